package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine/internal/fanout"
)

// Following the log (engine/internal/fanout's Follower reads it): on a store shared with other
// nodes, each event read is applied here too. It wakes this node's waiters, keeps its deadlines
// in step (every node holds every deadline, so a node that dies loses none) and refreshes the
// pending count. Applying an event twice is harmless: waking woken waiters and removing
// removed deadlines do nothing, and events come in seq order, so an inquiry's deadline is
// added before it is removed.

// kickFollower asks the follower to read the log now.
func (e *Engine) kickFollower() { e.follower.Kick() }

// followingOf is how the follower follows this engine's store: on a shared store, applying each
// event of the other nodes, and refreshing the pending count every interval.
func (e *Engine) followingOf(watcher hitl.EventWatcher) fanout.Following {
	if !e.following {
		return fanout.Following{}
	}
	return fanout.Following{
		Watcher: watcher,
		Apply: func(ev *hitl.Event, at time.Time) {
			e.outbox.Kick() // the other nodes' events too may ask for deliveries
			e.applyFollowed(ev, at)
		},
		Tick: func(ctx context.Context) {
			if n, err := e.store.PendingCount(ctx); err == nil {
				e.pending.Store(int64(n))
			}
		},
	}
}

func (e *Engine) applyFollowed(ev *hitl.Event, at time.Time) {
	if isKeyEvent(ev) {
		e.keyChanged(ev)
		return
	}
	if isAbsenceEvent(ev) {
		e.absences.forget()
		return
	}
	if ev.Type == hitl.EventSigningKeyRotated {
		e.signingKeyRotated(ev)
		return
	}
	if isRuleEvent(ev) {
		e.rules.forget()
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
