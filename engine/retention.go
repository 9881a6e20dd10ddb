package engine

import (
	"cmp"
	"context"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
)

// Retention: inquiries and sessions that ended long enough ago go, with everything kept for
// them, a batch at a time: the batch is found off the writer, and each transaction removes at
// most retentionBatch inquiries and retentionBatch sessions, so that no answer waits behind a
// long delete, and the next batch waits four times as long as the last took, so that a large
// backlog takes at most a fifth of the writer's time. Each transaction appends an
// audit.checkpoint event naming what it removed and the hashes the audit chain goes on from
// across the gaps (internal/audit).

const (
	// retentionBatch is how many inquiries, and how many sessions, one transaction removes at
	// most.
	retentionBatch = 10
	// defaultPurgeFor is how long one purge by hand works before it answers: a request that
	// removes a large backlog says how far it got, and the caller asks again (PurgeResult.More).
	defaultPurgeFor = 20 * time.Second
)

// MayPurge says whether p may purge (admins only), before its request is read.
func MayPurge(p *hitl.Principal) error { return mayAdmin(p) }

// Purge removes what ended before the time, as --retain-resolved does on its own (admins only).
func (e *Engine) Purge(ctx context.Context, p *hitl.Principal, before time.Time) (hitl.PurgeResult, error) {
	if err := MayPurge(p); err != nil {
		return hitl.PurgeResult{}, err
	}
	if now := e.clock(); before.After(now) {
		return hitl.PurgeResult{}, hitl.Errorf(hitl.EInvalid, "before %s is in the future: only what has already ended can be removed", before.UTC().Format(time.RFC3339))
	}
	res, err := e.removeResolved(ctx, before, p.Name, time.Now().Add(cmp.Or(e.purgeFor, defaultPurgeFor)))
	if err != nil {
		return res, err
	}
	e.log.Info("purged by hand", "actor", p.Name, "before", before, "inquiries", res.Inquiries, "sessions", res.Sessions, "events", res.Events)
	return res, nil
}

// removeResolved removes, a batch at a time, what ended before the time, with actor as the
// checkpoints' actor, until nothing is left or the time is up (the zero time: none).
func (e *Engine) removeResolved(ctx context.Context, before time.Time, actor string, until time.Time) (hitl.PurgeResult, error) {
	res := hitl.PurgeResult{Before: before.UTC()}
	for {
		began := time.Now()
		rule, err := e.retentionRule(ctx, before)
		if err != nil {
			return res, err
		}
		batch, err := e.store.RetentionCandidates(ctx, rule, retentionBatch)
		if err != nil || len(batch.Inquiries)+len(batch.Sessions) == 0 {
			return res, err
		}
		var (
			removed *hitl.Removal
			ev      *hitl.Event
		)
		err = e.store.Update(ctx, func(tx hitl.Tx) (err error) {
			ev = nil
			removed, err = tx.RemoveResolved(batch, rule)
			if err != nil || len(removed.Inquiries)+len(removed.Sessions) == 0 {
				return err
			}
			// Lists, never null, in the log.
			cp := hitl.AuditCheckpoint{Before: res.Before, Inquiries: append([]int64{}, removed.Inquiries...), Sessions: append([]string{}, removed.Sessions...),
				Removed: append([]hitl.RemovedRun{}, audit.Runs(removed.Events)...)}
			ev, err = appendAuditEvent(tx, hitl.EventAuditCheckpoint, cp, actor, e.clock())
			return err
		})
		if err != nil {
			return res, err
		}
		if ev == nil {
			return res, nil // another node removed them first
		}
		e.published([]*hitl.Event{ev})
		res.Inquiries += len(removed.Inquiries)
		res.Sessions += len(removed.Sessions)
		res.Events += len(removed.Events)
		res.Checkpoints++
		if len(batch.Inquiries) < retentionBatch && len(batch.Sessions) < retentionBatch {
			return res, nil
		}
		if !until.IsZero() && time.Now().After(until) {
			res.More = true
			return res, nil
		}
		// Four times as long again before the next batch: a purge of a large backlog takes at
		// most a fifth of the writer's time, and the answers beside it keep their usual pace
		// (hitl bench: their p99 within half a millisecond of it; at half the writer's time,
		// batches of 20, it rose by 2 to 3 ms).
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(4 * time.Since(began)):
		}
	}
}

// retentionRule is the rule for what ended before the time: nothing the log or the outbox
// still needs goes, so only events up to the outbox's cursor, and never the newest event.
func (e *Engine) retentionRule(ctx context.Context, before time.Time) (hitl.RetentionRule, error) {
	last, err := e.store.LastEventSeq(ctx)
	if err != nil {
		return hitl.RetentionRule{}, err
	}
	cursor, err := e.store.OutboxCursor(ctx)
	return hitl.RetentionRule{Before: before, Through: min(cursor, last-1)}, err
}
