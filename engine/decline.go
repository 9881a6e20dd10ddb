package engine

import (
	"context"
	"time"

	"github.com/hitl-dev/hitl"
)

// Decline is a person's refusal to answer, where the agent that asked allows it
// (cancellable_by_responder): the inquiry is cancelled and its session fails with the
// reason, in one transaction, so the agent learns that nobody will answer and why.
func (e *Engine) Decline(ctx context.Context, p *hitl.Principal, id int64, reason string) (*hitl.Inquiry, error) {
	if reason == "" {
		reason = "declined by " + p.Name
	}
	cur, err := e.Inquiry(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if err := mayDecline(p, cur); err != nil {
		return nil, err
	}
	if err := e.separated(ctx, cur, p.Name); err != nil { // who may not answer may not decline either
		return nil, err
	}
	return e.cancel(ctx, p, id, reason, mayDecline, func(tx hitl.Tx, cur *hitl.Inquiry, now time.Time) ([]*hitl.Event, error) {
		if c := cur.Claim; c.Claimed(now) && c.By != p.Name {
			return nil, claimedBy(cur, now)
		}
		if cur.Session == "" {
			return nil, nil
		}
		s, err := tx.Session(cur.Session)
		if err != nil || s.Status.Finished() {
			return nil, err
		}
		return finishSession(tx, s, SessionEnd{Status: hitl.SessionFailed, Error: reason}, p.Name, now, cur.ID)
	})
}
