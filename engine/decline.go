package engine

import (
	"context"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/wording"
)

// Decline is a person's refusal to answer, unless the agent that asked kept the inquiry to
// answers (cancellable_by_responder false): the inquiry is cancelled (declined_by) and its
// session fails with the reason, in one transaction, so the agent learns that nobody will
// answer and why.
//
// A delegate declines as they answer: for the away assignee they stand in for (on_behalf_of,
// "declined by bob for alice"), held to separation of duties for both.
func (e *Engine) Decline(ctx context.Context, p *hitl.Principal, id int64, reason string) (*hitl.Inquiry, error) {
	p, err := e.withDelegations(ctx, p) // the away people p stands in for now, not when p was made
	if err != nil {
		return nil, err
	}
	declined := &answering{who: p, relayedBy: p.Via}
	may := func(p *hitl.Principal, inq *hitl.Inquiry) error {
		if err := mayDecline(p, inq); err != nil {
			return err
		}
		if err := answeringJoined(inq); err != nil { // people decline the one it joined (engine/dedup.go)
			return err
		}
		declined.onBehalfOf = AnswersFor(p, inq)
		return e.separated(ctx, inq, *declined) // who may not answer may not decline either
	}
	return e.cancel(ctx, p, id, reason, may, declined, func(tx hitl.Tx, cur *hitl.Inquiry, now time.Time) ([]*hitl.Event, error) {
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
		return finishSession(tx, s, SessionEnd{Status: hitl.SessionFailed, Error: declined.declineReason(reason)}, p.Name, now, cur.ID)
	})
}

// declineReason is the reason a decline gives: the one given, else who declined, and for whom
// when a delegate did ("declined by bob for alice").
func (a *answering) declineReason(given string) string {
	if given != "" {
		return given
	}
	return "declined by " + wording.DeclinedBy(a.who.Name, a.onBehalfOf)
}
