package engine

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
)

// Decline is a person's refusal to answer, where the agent that asked allows it
// (cancellable_by_responder): the inquiry is cancelled and its session fails with the
// reason, in one transaction, so the agent learns that nobody will answer and why.
func (e *Engine) Decline(ctx context.Context, p *hitl.Principal, id int64, reason string) (*hitl.Inquiry, error) {
	inq, err := e.Inquiry(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if err := mayDecline(p, inq); err != nil {
		return nil, err
	}
	if n := utf8.RuneCountInString(reason); n > maxComment {
		return nil, hitl.Errorf(hitl.EInvalid, "reason is %d characters long; at most %d are allowed", n, maxComment)
	}
	if reason == "" {
		reason = "declined by " + p.Name
	}
	if inq.Status.Final() {
		return nil, conflictFinal(inq)
	}
	now := e.clock()
	if inq.TimeoutAt != nil && !now.Before(*inq.TimeoutAt) {
		return nil, e.late(ctx, id)
	}
	var (
		evs []*hitl.Event
		out *hitl.Inquiry
	)
	err = e.store.Update(ctx, func(tx hitl.Tx) error {
		cur, err := pendingInTx(tx, id, now)
		if err != nil {
			return err
		}
		var ev *hitl.Event
		out, ev, err = cancelInquiry(tx, cur, reason, p.Name, now)
		if err != nil {
			return err
		}
		evs = []*hitl.Event{ev}
		if cur.Session == "" {
			return nil
		}
		s, err := tx.Session(cur.Session)
		if err != nil || s.Status.Finished() {
			return err
		}
		more, err := finishSession(tx, s, SessionEnd{Status: hitl.SessionFailed, Error: reason}, p.Name, now)
		evs = append(evs, more...)
		return err
	})
	var final errFinal
	switch {
	case errors.As(err, &final):
		return nil, conflictFinal(final.cur)
	case errors.As(err, &errLate{}):
		return nil, e.late(ctx, id)
	case err != nil:
		return nil, err
	}
	e.published(evs)
	return out, nil
}
