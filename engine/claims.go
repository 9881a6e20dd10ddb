package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/wording"
)

// Claims: one person who may answer takes the inquiry for a while, so that two people do not
// work on the same question; others who answer meanwhile get a conflict that says who holds it
// and until when. A claim ends when its holder releases it or answers, when an admin breaks
// it, or when it expires: a timer like the deadlines', fired once across nodes.

const (
	defaultClaimTTL = 15 * time.Minute
	maxClaimTTL     = 24 * time.Hour
)

// Claim takes a pending inquiry for p for ttlSeconds (nil: the default, 15 minutes); claiming
// it again extends the claim.
func (e *Engine) Claim(ctx context.Context, p *hitl.Principal, id int64, ttlSeconds *int64) (*hitl.Inquiry, error) {
	ttl := defaultClaimTTL
	if s := ttlSeconds; s != nil {
		if *s < 1 || *s > int64(maxClaimTTL/time.Second) {
			return nil, hitl.Errorf(hitl.EInvalid, "ttl_seconds must be between 1 and %d", int(maxClaimTTL/time.Second))
		}
		ttl = time.Duration(*s) * time.Second
	}
	cur, err := e.store.Inquiry(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := mayAnswer(p, cur); err != nil {
		return nil, err
	}
	if cur.IsVote() {
		return nil, hitl.Errorf(hitl.EInvalid, "inquiry %d is decided by votes, which several people cast; a claim is for a question one person answers", id)
	}
	if err := e.Separated(ctx, cur, p.Name, p.Via); err != nil {
		return nil, err
	}
	return e.changeClaim(ctx, id, func(cur *hitl.Inquiry, now time.Time) (string, any, error) {
		if other := cur.Claim; other.Claimed(now) && other.By != p.Name {
			return "", nil, claimedBy(cur, now)
		}
		cur.Claim = &hitl.InquiryClaim{By: p.Name, At: now, ExpiresAt: now.Add(ttl)}
		return hitl.EventInquiryClaimed, nil, nil
	}, p.Name)
}

// Release gives a claim back: its holder releases it, an admin breaks it.
func (e *Engine) Release(ctx context.Context, p *hitl.Principal, id int64) (*hitl.Inquiry, error) {
	cur, err := e.Inquiry(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if err := mayAnswer(p, cur); err != nil && !p.IsAdmin() {
		return nil, err
	}
	return e.changeClaim(ctx, id, func(cur *hitl.Inquiry, now time.Time) (string, any, error) {
		c := cur.Claim
		switch {
		case !c.Claimed(now):
			return "", nil, hitl.Errorf(hitl.EConflict, "inquiry %d is not claimed", id)
		case c.By != p.Name && !p.IsAdmin():
			return "", nil, forbidden("inquiry %d is claimed by %s; only %s or an admin may release it", id, c.By, c.By)
		}
		reason := "released"
		if c.By != p.Name {
			reason = "broken"
		}
		cur.Claim = nil
		return hitl.EventInquiryReleased, released{c, reason}, nil
	}, p.Name)
}

// ClaimChoices is what one person may do with an inquiry's claim at one moment of the
// engine's clock, for the pages that offer it as buttons.
type ClaimChoices struct {
	// At is the moment the choices are for: who holds the claim then (see wording.Claim).
	At time.Time
	// Claim: nobody holds the inquiry and the person may answer it. Release: the person holds
	// it. Break: someone else holds it and the person is an admin.
	Claim, Release, Break bool
}

// ClaimChoices says what p may do now with the claim of inq (as read by p) by the rules of
// Claim and Release: nothing for an inquiry that is no longer pending or that votes decide.
// Its error is the store's.
func (e *Engine) ClaimChoices(ctx context.Context, p *hitl.Principal, inq *hitl.Inquiry) (ClaimChoices, error) {
	c := ClaimChoices{At: e.clock()}
	if inq.Status != hitl.StatusPending || inq.IsVote() {
		return c, nil
	}
	answers := mayAnswer(p, inq) == nil
	switch held := inq.Claim.Claimed(c.At); {
	case held && inq.Claim.By == p.Name:
		c.Release = answers || p.IsAdmin()
	case held:
		c.Break = p.IsAdmin()
	case answers:
		err := e.Separated(ctx, inq, p.Name, p.Via)
		if err != nil && hitl.ErrorCode(err) != hitl.EForbidden {
			return c, err
		}
		c.Claim = err == nil
	}
	return c, nil
}

// released is what an inquiry.released event adds to the inquiry.
type released struct {
	Claim  *hitl.InquiryClaim `json:"claim"`
	Reason string             `json:"reason"`
}

func claimedBy(inq *hitl.Inquiry, now time.Time) error {
	c := inq.Claim
	return &hitl.Error{Code: hitl.EConflict, Inquiry: inq, Message: fmt.Sprintf(
		"inquiry %d is %s: only %s may answer it until then, unless they release it", inq.ID, wording.Claim(inq, now), c.By)}
}

// changeClaim writes a change of a pending inquiry's claim with its event: change edits the
// inquiry read in the transaction and says which event it makes, with what the event adds.
func (e *Engine) changeClaim(ctx context.Context, id int64, change func(cur *hitl.Inquiry, now time.Time) (string, any, error), actor string) (*hitl.Inquiry, error) {
	var (
		out *hitl.Inquiry
		ev  *hitl.Event
	)
	err := e.store.Update(ctx, func(tx hitl.Tx) error {
		now := e.clock()
		cur, err := pendingInTx(tx, id, now)
		if err != nil {
			return err
		}
		next := *cur
		next.UpdatedAt = now
		typ, extra, err := change(&next, now)
		if err != nil {
			return err
		}
		if err := tx.UpdatePendingInquiry(&next); err != nil {
			return err
		}
		out = &next
		shown := any(out)
		if r, ok := extra.(released); ok {
			shown = struct {
				*hitl.Inquiry
				released
			}{out, r}
		}
		ev, err = appendInquiryEventWith(tx, typ, out, shown, actor, now)
		return err
	})
	if err != nil {
		return nil, e.notPending(ctx, id, err)
	}
	e.published([]*hitl.Event{ev})
	return out, nil
}

// expireClaims releases the claims due among ids.
func (e *Engine) expireClaims(ctx context.Context, ids []int64) {
	e.fireTimers(ctx, e.claims, ids, "releasing expired claims", expireClaim)
}

func expireClaim(tx hitl.Tx, cur *hitl.Inquiry, now time.Time) ([]*hitl.Event, *time.Time, error) {
	c := cur.Claim
	switch {
	case c == nil:
		return nil, nil, nil
	case now.Before(c.ExpiresAt): // the wall clock is behind the timer, or the claim was renewed
		return nil, &c.ExpiresAt, nil
	}
	out := *cur
	out.Claim, out.UpdatedAt = nil, now
	if err := tx.UpdatePendingInquiry(&out); err != nil {
		return nil, nil, err
	}
	ev, err := appendInquiryEventWith(tx, hitl.EventInquiryReleased, &out, struct {
		*hitl.Inquiry
		released
	}{&out, released{c, "expired"}}, "system", now)
	return []*hitl.Event{ev}, nil, err
}
