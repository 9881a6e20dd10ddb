package engine

import (
	"context"
	"time"

	"github.com/hitl-dev/hitl"
)

// Decline is a person's refusal to answer, unless the agent that asked kept the inquiry to
// answers (cancellable_by_responder false): the inquiry is cancelled (declined_by) and its
// session fails with the reason, in one transaction, so the agent learns that nobody will
// answer and why.
func (e *Engine) Decline(ctx context.Context, p *hitl.Principal, id int64, reason string) (*hitl.Inquiry, error) {
	if reason == "" {
		reason = "declined by " + p.Name
	}
	may := func(p *hitl.Principal, inq *hitl.Inquiry) error {
		if err := mayDecline(p, inq); err != nil {
			return err
		}
		return e.Separated(ctx, inq, p.Name, p.Via) // who may not answer may not decline either
	}
	return e.cancel(ctx, p, id, reason, may, true, func(tx hitl.Tx, cur *hitl.Inquiry, now time.Time) ([]*hitl.Event, error) {
		// Declining is answering: not while another holds the claim (read here, in the
		// transaction; the cancellation written before it is rolled back with the error).
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
