package engine

import (
	"context"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
)

// The housekeeping's verification of the whole log and of every stored state (reverifyAudit)
// reads the whole database: a million events took about 15 s of one core on the project's
// 2-core machine (hitl bench, 2026-11-27). Run flat out, a minute after a start and each hour
// after, it took one of the two cores from the answers given meanwhile. It is background work
// that nobody waits for, so it rests between pages: auditRest times as long as it worked, a
// tenth of one core at most, and a log of a million events takes a few minutes. (A look at
// the log for a page or a signed head is not paced: someone waits for it, and it reads only
// what was appended since the last.)
const (
	auditRest = 9
	// auditPaceEvents is how many events it verifies between rests.
	auditPaceEvents = 500
)

// pacedAudit reads the log and the stored states for a whole verification, resting between
// pages (see auditRest); the rest of the store (the checkpoints' few pages) is read as is.
type pacedAudit struct {
	hitl.Store
	resumed time.Time // when it last rested
}

var (
	_ audit.Source      = (*pacedAudit)(nil)
	_ audit.StateSource = (*pacedAudit)(nil)
)

func newPacedAudit(s hitl.Store) *pacedAudit { return &pacedAudit{Store: s, resumed: time.Now()} }

// rest sleeps auditRest times as long as the work since the last rest took, or until ctx ends.
func (p *pacedAudit) rest(ctx context.Context) error {
	t := time.NewTimer(auditRest * time.Since(p.resumed))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	p.resumed = time.Now()
	return nil
}

func (p *pacedAudit) ChainedEvents(ctx context.Context, after int64, fn func(ev *hitl.Event, hash []byte) error) error {
	n := 0
	return p.Store.ChainedEvents(ctx, after, func(ev *hitl.Event, hash []byte) error {
		if n++; n%auditPaceEvents == 0 {
			if err := p.rest(ctx); err != nil {
				return err
			}
		}
		return fn(ev, hash)
	})
}

func (p *pacedAudit) InquiryStates(ctx context.Context, q hitl.StateQuery[int64]) ([]*hitl.InquiryState, error) {
	if err := p.rest(ctx); err != nil {
		return nil, err
	}
	return p.Store.InquiryStates(ctx, q)
}

func (p *pacedAudit) SessionStates(ctx context.Context, q hitl.StateQuery[string]) ([]*hitl.SessionState, error) {
	if err := p.rest(ctx); err != nil {
		return nil, err
	}
	return p.Store.SessionStates(ctx, q)
}
