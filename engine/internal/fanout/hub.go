// Package fanout holds the engine's live fan-out: the follower that reads the event log as it
// grows, the hub that hands each event to the open streams that may see it, the waiters
// parked on an inquiry until it is final (one inquiry, or many in one wait), and the stream
// events encoded once for every subscriber. Who may see what, and what another node's change
// means to this one, are the engine's rules, handed in as functions; this package only keeps
// who listens and delivers, in seq order, without blocking on a slow listener.
package fanout

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"

	"github.com/hitl-dev/hitl"
)

// streamBuffer is how many events a subscriber may fall behind before it is reset: the hub
// never blocks on a slow client, and never drops an event silently.
const streamBuffer = 1024

// replayPage is how many stored events one read of a subscription's replay takes.
const replayPage = 500

// StreamFilter selects the events a subscription receives, beyond what its principal may see.
type StreamFilter struct {
	Types      []string
	Session    string
	InquiryID  int64
	AssignedTo []string // inquiries assigned to any of these entries
	// AnswerableBy: inquiries that are unassigned or assigned to any of these entries.
	AnswerableBy []string
}

// FromNow, as a subscription's start, starts a stream at the end of the log: only new events.
const FromNow = -1

// MaySee is the rule of who sees an event: p, an inquiry's event (inq, its inquiry after the
// change), a session's (sess), or neither (an event only admins see).
type MaySee func(p *hitl.Principal, inq *hitl.Inquiry, sess *hitl.Session) bool

// Replay reads up to limit stored events after a seq that a subscription may see, for the
// replay that precedes the live events.
type Replay func(ctx context.Context, after int64, limit int) ([]*hitl.Event, error)

// Subscription is one stream of events, in seq order: the stored ones after a seq first, then
// live ones as they commit, with no gap and no duplicate. The hub puts live events straight
// into Events, which the handler reads: no goroutine of the subscription's own stands between
// them (one per subscriber was a goroutine switch and a channel hop per event per stream).
type Subscription struct {
	// After is the seq the stream starts after.
	After int64
	// Events delivers the events; it is closed when the subscription ends (see Reset).
	Events <-chan *StreamEvent
	events chan *StreamEvent // Events, buffered: the replay fills it, then the hub
	p      *hitl.Principal
	filter StreamFilter // its Types hold the stored types the requested aliases derive from
	// requested are the types the subscriber asked for (nil: every type but the aliases); an alias
	// (hitl.IntentAlias) is sent beside its event when asked for.
	requested []string
	hub       *Hub
	done      chan struct{} // closed when the subscription ends, to stop a replay's send
	mu        sync.Mutex
	// replaying: the stored events are still being sent, and the hub holds live ones in
	// pending (as many as Events holds, else the subscriber is reset) until the replay is
	// through; only the replay sends on events meanwhile, and it closes events if the
	// subscription ended during it.
	replaying bool
	pending   []*StreamEvent
	last      int64 // the last seq the hub took for it
	ended     bool
	reset     bool  // the hub ended it because it fell behind
	sent      int64 // the last seq put on Events (or skipped for the filter)
}

// Reset reports, once Events is closed, whether the subscriber fell too far behind and was
// cut off, and the seq it has received everything up to (where to resume).
func (s *Subscription) Reset() (resumeAfter int64, overflowed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent, s.reset
}

// Close ends the subscription.
func (s *Subscription) Close() { s.hub.Remove(s) }

// Principal is whom the subscription streams to.
func (s *Subscription) Principal() *hitl.Principal { return s.p }

// Filter is the subscription's filter, with the types of the aliases asked for replaced by the
// stored types they derive from.
func (s *Subscription) Filter() StreamFilter { return s.filter }

// Hub fans the event log out to live subscriptions.
type Hub struct {
	maySee MaySee
	log    *slog.Logger
	mu     sync.Mutex
	subs   map[*Subscription]struct{}
}

// NewHub returns a hub that gives each event to the subscriptions whose principal maySee it.
func NewHub(maySee MaySee, log *slog.Logger) *Hub {
	return &Hub{maySee: maySee, log: log, subs: make(map[*Subscription]struct{})}
}

// Open registers a subscription of p's to the events that pass f; the hub holds its live
// events from now on, and Run sends them after the stored ones.
func (h *Hub) Open(p *hitl.Principal, f StreamFilter) *Subscription {
	requested := f.Types
	f.Types = nil
	for _, t := range requested {
		if sources := hitl.IntentAliasSources(t); sources != nil {
			f.Types = append(f.Types, sources...)
		} else {
			f.Types = append(f.Types, t)
		}
	}
	events := make(chan *StreamEvent, streamBuffer)
	s := &Subscription{Events: events, events: events, p: p, filter: f, requested: requested, hub: h,
		done: make(chan struct{}), replaying: true}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

// Count is the number of open subscriptions.
func (h *Hub) Count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Remove ends s.
func (h *Hub) Remove(s *Subscription) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
	s.end(false)
}

// InboxSessions lists the inbox sessions that open streams were authenticated with.
func (h *Hub) InboxSessions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for s := range h.subs {
		if id := s.p.InboxSession; id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// EndInboxSession ends the streams of an inbox session that has ended.
func (h *Hub) EndInboxSession(idHash string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if s.p.InboxSession == idHash {
			delete(h.subs, s)
			s.end(false)
		}
	}
}

// Idle runs fn and reports true when nothing subscribes; it holds the hub's lock meanwhile,
// so no subscription starts in between.
func (h *Hub) Idle(fn func()) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.subs) > 0 {
		return false
	}
	fn()
	return true
}

// end closes the subscription once; reset marks an overflow. Events closes now, or when the
// replay in progress stops sending on it.
func (s *Subscription) end(reset bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended, s.reset = true, reset
	s.pending = nil
	close(s.done)
	if !s.replaying {
		close(s.events)
	}
}

// Publish delivers one event of the log, in seq order, to every subscription that may see it:
// the same StreamEvent to each, encoded before the first is woken, so that none waits for
// another to encode it. inq and sess are what DecodeForStream reads from it; the streams of
// revokedKey, when given, end (a revoked token's streams end at once).
func (h *Hub) Publish(raw *hitl.Event, inq *hitl.Inquiry, sess *hitl.Session, revokedKey string) {
	ev := NewStreamEvent(raw)
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if revokedKey != "" && s.p.KeyID == revokedKey {
			delete(h.subs, s)
			s.end(false)
			continue
		}
		if !s.wants(raw, inq, sess) {
			continue
		}
		ev.encode()
		if !s.offer(ev) {
			delete(h.subs, s)
			s.end(true)
		}
	}
}

// offer hands ev to the subscription without blocking: onto Events, or while the replay runs
// into pending. It reports false when the subscriber has fallen streamBuffer events behind.
// The hub calls it in seq order, under its lock.
func (s *Subscription) offer(ev *StreamEvent) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev.Seq <= s.last || s.ended {
		return true
	}
	if s.replaying {
		if len(s.pending) >= streamBuffer {
			return false
		}
		s.pending = append(s.pending, ev)
		s.last = ev.Seq
		return true
	}
	// The event and its alias go together or not at all, so a reset's resume_after is a seq
	// the subscriber has all of.
	event, alias := s.messages(ev)
	if cap(s.events)-len(s.events) < count(event)+count(alias) {
		return false
	}
	// Room is checked above, and only the hub sends once the replay is through.
	if event != nil {
		s.events <- event
	}
	if alias != nil {
		s.events <- alias
	}
	s.last, s.sent = ev.Seq, ev.Seq
	return true
}

// messages is what the subscriber receives for an event it wants, each nil when not: the
// event if it asked for its type, and its alias (hitl.IntentAlias) if it asked for that.
func (s *Subscription) messages(ev *StreamEvent) (event, alias *StreamEvent) {
	if s.asked(ev.Type) {
		event = ev
	}
	// Aliases only to who names them: a stream that takes every type keeps one event a seq
	// (the WebSocket's seed protocol and seq-counting clients rely on it).
	if typ := hitl.IntentAliasType(ev.Event); typ != "" && s.requested != nil && s.asked(typ) {
		alias = ev.intentAlias()
	}
	return event, alias
}

func count(ev *StreamEvent) int {
	if ev == nil {
		return 0
	}
	return 1
}

func (s *Subscription) asked(typ string) bool {
	return s.requested == nil || slices.Contains(s.requested, typ)
}

// wants applies the subscription's filter, then the hub's rule of who sees what.
func (s *Subscription) wants(ev *hitl.Event, inq *hitl.Inquiry, sess *hitl.Session) bool {
	f := s.filter
	if len(f.Types) > 0 && !slices.Contains(f.Types, ev.Type) {
		return false
	}
	if f.Session != "" && ev.Session != f.Session {
		return false
	}
	if f.InquiryID != 0 && (ev.InquiryID == nil || *ev.InquiryID != f.InquiryID) {
		return false
	}
	switch {
	case inq != nil:
		assigned := func(entries []string) bool {
			return slices.ContainsFunc(inq.AssignedTo, func(a string) bool { return slices.Contains(entries, a) })
		}
		if len(f.AssignedTo) > 0 && !assigned(f.AssignedTo) {
			return false
		}
		if len(f.AnswerableBy) > 0 && len(inq.AssignedTo) > 0 && !assigned(f.AnswerableBy) {
			return false
		}
	case len(f.AssignedTo) > 0 || len(f.AnswerableBy) > 0 || f.InquiryID != 0:
		return false
	}
	return s.hub.maySee(s.p, inq, sess)
}

// DecodeForStream reads what visibility needs from an event: its inquiry or its session.
func DecodeForStream(ev *hitl.Event) (*hitl.Inquiry, *hitl.Session) {
	switch {
	case ev.InquiryID != nil:
		var inq hitl.Inquiry
		if json.Unmarshal(ev.Data, &inq) == nil {
			return &inq, nil
		}
	case ev.Session != "":
		var s hitl.Session
		if json.Unmarshal(ev.Data, &s) == nil {
			return nil, &s
		}
	}
	return nil, nil
}

// Run sends the stored events after s.After that replay reads, then the live events the hub
// held meanwhile, skipping what it has sent; from then on the hub puts live events on Events
// itself, and Run returns. The subscription ends when ctx does (or when Close is called).
func (s *Subscription) Run(ctx context.Context, replay Replay) {
	stop := context.AfterFunc(ctx, s.Close)
	last := s.After
	s.mu.Lock()
	s.sent = last
	s.mu.Unlock()
	if s.replay(ctx, replay, &last) {
		return
	}
	// Ended, or to be ended: the hub no longer sends to it, and the replay closes Events.
	stop()
	s.hub.Remove(s)
	s.mu.Lock()
	s.replaying = false
	close(s.events)
	s.mu.Unlock()
}

// replay sends the stored events after *last, then the pending live ones, until none is
// pending: then the hub takes over. It reports false if the subscription ended meanwhile or
// must end (a failed read).
func (s *Subscription) replay(ctx context.Context, replay Replay, last *int64) bool {
	send := func(ev *StreamEvent) bool {
		event, alias := s.messages(ev)
		for _, m := range [2]*StreamEvent{event, alias} {
			if m == nil {
				continue
			}
			select {
			case s.events <- m:
			case <-s.done:
				return false
			}
		}
		s.mu.Lock()
		s.sent = ev.Seq
		s.mu.Unlock()
		return true
	}
	for {
		evs, err := replay(ctx, *last, replayPage)
		if err != nil {
			if ctx.Err() == nil {
				s.hub.log.Warn("replaying events for a stream failed", "err", err)
			}
			return false
		}
		for _, ev := range evs {
			*last = ev.Seq
			if inq, sess := DecodeForStream(ev); s.wants(ev, inq, sess) && !send(NewStreamEvent(ev)) {
				return false
			}
		}
		if len(evs) < replayPage {
			break
		}
	}
	for {
		s.mu.Lock()
		if s.ended {
			s.mu.Unlock()
			return false
		}
		held := s.pending
		s.pending = nil
		if len(held) == 0 {
			// The replay may have read events the hub has yet to publish: it skips them.
			s.replaying, s.last = false, max(s.last, *last)
			s.mu.Unlock()
			return true
		}
		s.mu.Unlock()
		for _, ev := range held {
			if ev.Seq <= *last {
				continue
			}
			*last = ev.Seq
			if !send(ev) {
				return false
			}
		}
	}
}
