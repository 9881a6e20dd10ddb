package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine/internal/fanout"
)

// followInterval is how often a node reads the log even without a hint, so a lost
// notification or a dropped LISTEN connection delays a wake-up by at most this long.
const followInterval = 500 * time.Millisecond

// followPage is how many events one read of the log takes.
const followPage = 1000

// followGap is the least time between two reads of the log while it is busy: under load every
// commit sends a hint, and reading at most once per gap takes the events of many commits at
// once, for a wake-up delay of at most the gap. The log counts as busy when the last read
// found at least followBusy events; a quieter log is read at each hint, so that a single
// answer on another node wakes its waiter without the gap (cross-node p50 1.4 ms against
// 2.1 with the gap always kept, in --quick runs).
const (
	followGap  = 2 * time.Millisecond
	followBusy = 4
)

// follow reads the event log in seq order and applies each event: it feeds the live streams
// (every store), and on a store shared with other nodes it also wakes this node's waiters,
// keeps its deadlines in step (every node holds every deadline, so a node that dies loses
// none) and refreshes the pending count. It reads on each commit of this node, on each hint
// of another node, and at least every followInterval. Applying an event twice is harmless:
// waking woken waiters and removing removed deadlines do nothing, streams skip seqs they have
// sent, and events come in seq order, so an inquiry's deadline is added before it is removed.
//
// On a store of its own with nobody subscribed it does not read at all: it moves its position
// to the newest seq committed here, which a new subscription's replay covers.
func (e *Engine) follow(ctx context.Context, w hitl.EventWatcher, after int64) {
	if w != nil {
		e.running.Go(func() { w.WatchEvents(ctx, e.kickFollower) })
	}
	tick := time.NewTicker(followInterval)
	defer tick.Stop()
	var (
		last time.Time
		read int // events the last read found
	)
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.kick:
		case <-tick.C:
			if e.following {
				if n, err := e.store.PendingCount(ctx); err == nil {
					e.pending.Store(int64(n))
				}
			}
		}
		if !e.following && e.hub.Idle(func() { after = max(after, e.lastLocalSeq.Load()) }) {
			continue
		}
		if wait := followGap - time.Since(last); wait > 0 && read >= followBusy {
			time.Sleep(wait)
		}
		last = time.Now()
		after, read = e.catchUp(ctx, after)
	}
}

// kickFollower asks the follower to read the log now.
func (e *Engine) kickFollower() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// catchUp applies the events after seq and returns the last seq applied and how many events
// it read.
func (e *Engine) catchUp(ctx context.Context, after int64) (int64, int) {
	read := 0
	for {
		evs, err := e.store.Events(ctx, hitl.EventFilter{After: after, Visibility: hitl.Visibility{All: true}, Limit: followPage})
		if err != nil {
			if ctx.Err() == nil {
				e.log.Warn("reading the event log failed; retrying", "after", after, "err", err)
			}
			return after, read
		}
		read += len(evs)
		if e.following && len(evs) > 0 {
			e.outbox.Kick() // the other nodes' events too may ask for deliveries
		}
		at := time.Now()
		streaming := e.hub.Count() > 0
		for _, ev := range evs {
			after = ev.Seq
			if e.following {
				e.applyFollowed(ev, at)
			}
			if streaming {
				inq, sess := fanout.DecodeForStream(ev)
				e.hub.Publish(ev, inq, sess, revokedKeyID(ev))
			}
		}
		if len(evs) < followPage {
			return after, read
		}
	}
}

// revokedKeyID is the key a key.revoked event revokes, "" for other events.
func revokedKeyID(ev *hitl.Event) string {
	if ev.Type != hitl.EventKeyRevoked {
		return ""
	}
	var k struct {
		ID string `json:"id"`
	}
	json.Unmarshal(ev.Data, &k)
	return k.ID
}

func (e *Engine) applyFollowed(ev *hitl.Event, at time.Time) {
	if isKeyEvent(ev) {
		e.keyChanged(ev)
		return
	}
	if ev.InquiryID == nil {
		return
	}
	id := *ev.InquiryID
	switch ev.Type {
	case hitl.EventInquiryCreated, hitl.EventInquiryReminded, hitl.EventInquiryEscalated:
		// Only the timers are needed: decode just those.
		var t timers
		if err := json.Unmarshal(ev.Data, &t); err != nil {
			e.log.Error("an event's inquiry cannot be read", "seq", ev.Seq, "err", err)
			return
		}
		if t.TimeoutAt != nil && ev.Type == hitl.EventInquiryCreated {
			e.deadlines.Add(id, *t.TimeoutAt)
		}
		e.keepNudge(id, t.nextNudge())
	case hitl.EventInquiryStepCompleted, hitl.EventInquiryClaimed, hitl.EventInquiryReleased:
		var t timers
		if err := json.Unmarshal(ev.Data, &t); err != nil {
			e.log.Error("an event's inquiry cannot be read", "seq", ev.Seq, "err", err)
			return
		}
		e.keepTimers(id, t)
	case hitl.EventInquiryResponded, hitl.EventInquiryTimeout, hitl.EventInquiryCancelled:
		e.deadlines.Remove(id)
		e.nudges.Remove(id)
		e.claims.Remove(id)
		if !e.waiters.Has(id) {
			return // nobody here waits for it: no need to decode it
		}
		var inq hitl.Inquiry
		if err := json.Unmarshal(ev.Data, &inq); err != nil {
			e.log.Error("an event's inquiry cannot be read", "seq", ev.Seq, "err", err)
			return
		}
		e.waiters.Wake(&inq, at)
	}
}
