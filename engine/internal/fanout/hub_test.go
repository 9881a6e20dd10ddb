package fanout

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

var admin = &hitl.Principal{Name: "root", Roles: []string{hitl.RoleAdmin}}

func newTestHub() *Hub {
	return NewHub(func(*hitl.Principal, *hitl.Inquiry, *hitl.Session) bool { return true }, slog.New(slog.DiscardHandler))
}

// eventLog is an event log in memory, appended to and then published as the follower does
// after a commit, and read by a subscription's replay as the store is.
type eventLog struct {
	mu  sync.Mutex
	evs []*hitl.Event
}

func (l *eventLog) append(h *Hub) {
	l.mu.Lock()
	ev := &hitl.Event{Seq: int64(len(l.evs)) + 1, Type: hitl.EventKeyCreated, Data: []byte(`{"id":"k"}`)}
	l.evs = append(l.evs, ev)
	l.mu.Unlock()
	if h != nil {
		h.Publish(ev, nil, nil, "")
	}
}

func (l *eventLog) replay(_ context.Context, after int64, limit int) ([]*hitl.Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*hitl.Event
	for _, ev := range l.evs {
		if ev.Seq > after && len(out) < limit {
			out = append(out, ev)
		}
	}
	return out, nil
}

// receive reads Events until it closes or holds seq upTo, and checks that the seqs follow
// each other from after+1 without a gap or a duplicate; it returns the last seq read.
func receive(t *testing.T, s *Subscription, after, upTo int64) int64 {
	t.Helper()
	last := after
	for last < upTo {
		select {
		case ev, ok := <-s.Events:
			if !ok {
				return last
			}
			if ev.Seq != last+1 {
				t.Fatalf("seq %d after %d", ev.Seq, last)
			}
			last = ev.Seq
		case <-time.After(10 * time.Second):
			t.Fatalf("no event after seq %d in 10 s", last)
		}
	}
	return last
}

// TestStreamReplaysThenGoesLiveInOrder: events committed while the stored ones are replayed
// (more than a page of them) reach the subscriber after them, each once, in seq order, and
// after the replay the hub delivers on its own.
func TestStreamReplaysThenGoesLiveInOrder(t *testing.T) {
	h, log := newTestHub(), &eventLog{}
	for range 3 * replayPage / 2 {
		log.append(nil)
	}
	s := h.Open(admin, StreamFilter{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 600 {
			log.append(h)
		}
	}()
	go s.Run(t.Context(), log.replay)
	const want = 3*replayPage/2 + 600
	last := receive(t, s, 0, want)
	if last != want {
		t.Fatalf("received up to %d of %d", last, want)
	}
	<-done
	for range 10 {
		log.append(h)
	}
	if got := receive(t, s, last, last+10); got != last+10 {
		t.Fatalf("live events up to %d, want %d", got, last+10)
	}
	s.Close()
	if _, ok := <-s.Events; ok || h.Count() != 0 {
		t.Fatalf("after Close: Events open %v, %d subscriptions", ok, h.Count())
	}
}

// TestSlowStreamIsResetWithoutStallingOthers: a subscriber that stops reading is cut off once
// streamBuffer events wait for it, without the hub blocking on it, and resumes after the last
// seq it received; one that reads gets every event.
func TestSlowStreamIsResetWithoutStallingOthers(t *testing.T) {
	h, log := newTestHub(), &eventLog{}
	slow, reader := h.Open(admin, StreamFilter{}), h.Open(admin, StreamFilter{})
	slow.Run(t.Context(), log.replay) // nothing stored: the replay is through at once
	reader.Run(t.Context(), log.replay)
	// The reader reads each half buffer as it is published: it keeps up, the slow one never reads.
	const events, chunk = 3 * streamBuffer, streamBuffer / 2
	var read int64
	for read < events {
		for range chunk {
			log.append(h)
		}
		if got := receive(t, reader, read, read+chunk); got != read+chunk {
			t.Fatalf("the reader received up to %d of %d", got, read+chunk)
		}
		read += chunk
	}
	var last int64
	for ev := range slow.Events {
		last = ev.Seq
	}
	resume, overflowed := slow.Reset()
	if !overflowed || resume != last || last != streamBuffer {
		t.Fatalf("slow: overflowed %v, resume after %d, received up to %d (buffer %d)", overflowed, resume, last, streamBuffer)
	}
	if h.Count() != 1 {
		t.Fatalf("%d subscriptions, want the reader's", h.Count())
	}
}

// TestSlowReplayIsReset: a subscriber that reads nothing while its replay runs is cut off once
// streamBuffer live events are held for it, and Events closes.
func TestSlowReplayIsReset(t *testing.T) {
	h, log := newTestHub(), &eventLog{}
	for range 2 * streamBuffer {
		log.append(nil)
	}
	s := h.Open(admin, StreamFilter{})
	ran := make(chan struct{})
	go func() { defer close(ran); s.Run(t.Context(), log.replay) }()
	for range streamBuffer + 1 {
		log.append(h)
	}
	<-ran // the replay stops sending once the subscription ends
	var last int64
	for ev := range s.Events {
		last = ev.Seq
	}
	if resume, overflowed := s.Reset(); !overflowed || resume != last {
		t.Fatalf("overflowed %v, resume after %d, received up to %d", overflowed, resume, last)
	}
}

// TestStreamEndsWithItsContext: when the context a subscription runs under ends, Events
// closes and the hub lets it go, whether or not the replay is through.
func TestStreamEndsWithItsContext(t *testing.T) {
	h, log := newTestHub(), &eventLog{}
	log.append(nil)
	for _, unread := range []bool{false, true} {
		ctx, cancel := context.WithCancel(t.Context())
		s := h.Open(admin, StreamFilter{})
		go s.Run(ctx, log.replay)
		if !unread {
			receive(t, s, 0, 1)
		}
		cancel()
		for range s.Events {
		}
		if h.Count() != 0 {
			t.Fatalf("unread %v: %d subscriptions after the context ended", unread, h.Count())
		}
	}
}
