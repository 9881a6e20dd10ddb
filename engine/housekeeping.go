package engine

import (
	"context"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine/internal/loops"
)

// Housekeeping: what the database keeps only for a while is removed in small transactions, a
// batch at a time, so that no answer waits behind a long delete: idempotency keys older than
// their time to live (a retry a day later is a new request), inbox sessions that have ended,
// the record of notifications' used Approve and Reject buttons once their tokens expired,
// and with --retain-resolved the inquiries and sessions that ended before it (retention.go).
// Every node does it; two nodes deleting the same rows at once delete them once.

const (
	// DefaultIdempotencyTTL is how long an idempotency key replays its inquiry.
	DefaultIdempotencyTTL = 24 * time.Hour
	housekeepingEvery     = time.Minute
	housekeepingBatch     = 500
)

// keepHouse sweeps every minute, the first time a minute after the start: nothing it removes
// is urgent, and a start has enough to do. It reads the groups the metrics name again too.
func (e *Engine) keepHouse(ctx context.Context) {
	loops.Every(ctx, housekeepingEvery, func(ctx context.Context) {
		e.sweep(ctx)
		if err := e.loadKnownGroups(ctx); err != nil && ctx.Err() == nil {
			e.log.Warn("reading the groups for the metrics failed; trying again in a minute", "err", err)
		}
	})
}

// reverifyAuditWhenDue looks every minute whether the whole log is due to be verified again
// (reverifyAudit), on a goroutine of its own: paced, that takes minutes on a large log, and the
// sweep's removals would wait for it.
func (e *Engine) reverifyAuditWhenDue(ctx context.Context) {
	loops.Every(ctx, housekeepingEvery, e.reverifyAudit)
}

// sweep removes what has expired at the engine's clock, and returns how many idempotency keys
// it removed.
func (e *Engine) sweep(ctx context.Context) int {
	before := e.clock().Add(-e.idempotencyTTL)
	removed := e.deleteInBatches(ctx, "removing expired idempotency keys", func(tx hitl.Tx) (int, error) {
		return tx.DeleteIdempotencyKeys(before, housekeepingBatch)
	})
	err := e.store.Update(ctx, func(tx hitl.Tx) error {
		_, err := tx.DeleteExpiredInboxSessions(e.clock())
		return err
	})
	if err != nil && ctx.Err() == nil {
		e.log.Warn("removing ended inbox sessions failed; trying again in a minute", "err", err)
	}
	e.forgetSpentPushActions(ctx)
	if removed > 0 {
		e.log.Debug("expired idempotency keys removed", "keys", removed)
	}
	if e.retainResolved > 0 {
		res, err := e.removeResolved(ctx, e.clock().Add(-e.retainResolved), "retention", time.Time{})
		switch {
		case err != nil && ctx.Err() == nil:
			e.log.Warn("removing what ended before the retention failed; trying again in a minute", "err", err)
		case res.Checkpoints > 0:
			e.log.Info("retention removed what ended before it", "before", res.Before, "inquiries", res.Inquiries, "sessions", res.Sessions, "events", res.Events)
		}
	}
	return removed
}

// spentActionsKept is how long the use of a push action token is kept past the token's
// expiry: the node that answers checks the expiry by its own clock, so the record outlives it
// by more than nodes' clocks differ.
const spentActionsKept = time.Hour

// forgetSpentPushActions removes the uses of action tokens that expired: an expired token is
// refused for its expiry, so its use need not be remembered.
func (e *Engine) forgetSpentPushActions(ctx context.Context) {
	before := e.clock().Add(-spentActionsKept)
	e.deleteInBatches(ctx, "forgetting the used actions of expired notifications", func(tx hitl.Tx) (int, error) {
		return tx.DeleteWebPushActionUses(before, housekeepingBatch)
	})
}

// deleteInBatches runs del, which deletes at most housekeepingBatch rows, in a transaction
// each time until it deletes fewer, and returns how many it deleted; a failure is logged as
// what failed, for the next sweep to try again.
func (e *Engine) deleteInBatches(ctx context.Context, what string, del func(hitl.Tx) (int, error)) int {
	removed := 0
	for ctx.Err() == nil {
		var n int
		err := e.store.Update(ctx, func(tx hitl.Tx) (err error) {
			n, err = del(tx)
			return err
		})
		if err != nil {
			if ctx.Err() == nil {
				e.log.Warn(what+" failed; trying again in a minute", "err", err)
			}
			break
		}
		removed += n
		if n < housekeepingBatch {
			break
		}
	}
	return removed
}
