package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine/internal/fanout"
)

// Streams: the live events each principal may see (engine/internal/fanout keeps the open
// streams and hands them the events; who sees what is decided here, by eventVisible).

// StreamEvent is an event as the streams deliver it, encoded once for every subscriber.
type StreamEvent = fanout.StreamEvent

// NewStreamEvent wraps an event for the streams; it is not encoded until asked.
func NewStreamEvent(ev *hitl.Event) *StreamEvent { return fanout.NewStreamEvent(ev) }

// StreamFilter selects the events a subscription receives, beyond what its principal may see.
type StreamFilter = fanout.StreamFilter

// Subscription is one stream of events, in seq order: the stored ones after a seq first, then
// live ones as they commit, with no gap and no duplicate.
type Subscription = fanout.Subscription

// FromNow, as Subscribe's after, starts a stream at the end of the log: only new events.
const FromNow = fanout.FromNow

// eventVisible is who sees an event on a stream, the same rule as the lists: inquiry events
// with their inquiry, session events to the session's creator, other events (keys) to admins.
func eventVisible(p *hitl.Principal, inq *hitl.Inquiry, sess *hitl.Session) bool {
	switch {
	case inq != nil:
		return canSee(p, inq)
	case sess != nil:
		return ownsSession(p, sess) // responders see a session's status, never its events (they carry its state)
	default:
		return p.IsAdmin()
	}
}

// Streams returns the number of open event streams, for the metrics gauge.
func (e *Engine) Streams() int { return e.hub.Count() }

// Subscribe opens a stream of the events p may see that pass f, after seq after. It is
// registered before the stored events are read, so no event falls between the two.
func (e *Engine) Subscribe(ctx context.Context, p *hitl.Principal, f StreamFilter, after int64) (*Subscription, error) {
	if after < FromNow {
		return nil, hitl.Errorf(hitl.EInvalid, "after must not be negative")
	}
	if after > 0 {
		if err := e.checkPosition(ctx, after); err != nil {
			return nil, err
		}
	}
	s := e.hub.Open(p, f)
	if after == FromNow {
		var err error
		if after, err = e.store.LastEventSeq(ctx); err != nil {
			e.hub.Remove(s)
			return nil, err
		}
	}
	s.After = after
	e.kickFollower()
	stored := s.Filter()
	go s.Run(ctx, func(ctx context.Context, after int64, limit int) ([]*hitl.Event, error) {
		return e.store.Events(ctx, hitl.EventFilter{After: after, Types: stored.Types, Session: stored.Session,
			InquiryID: stored.InquiryID, Visibility: visibility(p), Limit: limit})
	})
	return s, nil
}

// UnknownPosition is Subscribe's error for a seq this log does not know as a place to resume
// after: one beyond its newest event, or one among the seqs a restore skipped. The events the
// client saw up to it are not this log's: the server the database was restored from gave
// those seqs to events this log does not hold (or the seq is from another server). The client
// resumes after ResumeAfter, the last seq this log shares with what the client may have seen,
// and reads again what it holds.
type UnknownPosition struct {
	After, ResumeAfter int64
}

func (u *UnknownPosition) Error() string {
	return fmt.Sprintf("seq %d is no position of this event log (the database was restored from a backup, or the seq is from another server): resume after seq %d, and read again what you hold",
		u.After, u.ResumeAfter)
}

// checkPosition refuses, with an *UnknownPosition, a seq this log does not know. The event
// after a seq in a restore's gap is the audit.restored event that made the gap.
func (e *Engine) checkPosition(ctx context.Context, after int64) error {
	next, err := e.store.Events(ctx, hitl.EventFilter{After: after, Visibility: hitl.Visibility{All: true}, Limit: 1})
	if err != nil {
		return err
	}
	if len(next) == 0 {
		head, err := e.store.LastEventSeq(ctx)
		if err != nil || after <= head {
			return err
		}
		return &UnknownPosition{After: after, ResumeAfter: head}
	}
	var r hitl.AuditRestore
	if ev := next[0]; ev.Type == hitl.EventAuditRestored && json.Unmarshal(ev.Data, &r) == nil && after >= r.Skipped.From {
		return &UnknownPosition{After: after, ResumeAfter: r.Skipped.From - 1}
	}
	return nil
}
