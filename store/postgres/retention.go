package postgres

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/hitl-dev/hitl"
)

// The rule of hitl.RetentionRule, written once for the search off the writer and once more
// for the check in the writer's transaction by primary key. $1: before, $2: through.
const (
	removableInquiry = `i.session IS NULL AND i.status <> 'pending' AND i.updated_at < $1
		AND NOT EXISTS (SELECT 1 FROM events e WHERE e.inquiry_id = i.id AND e.seq > $2)
		AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.inquiry_id = i.id AND d.status = 'pending')`
	removableSession = `s.status <> 'running' AND s.completed_at < $1
		AND NOT EXISTS (SELECT 1 FROM inquiries i WHERE i.session = s.key AND (i.status = 'pending' OR i.updated_at >= $1))
		AND NOT EXISTS (SELECT 1 FROM events e WHERE e.session = s.key AND e.seq > $2)
		AND NOT EXISTS (SELECT 1 FROM inquiries i JOIN events e ON e.inquiry_id = i.id WHERE i.session = s.key AND e.seq > $2)
		AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.session = s.key AND d.status = 'pending')
		AND NOT EXISTS (SELECT 1 FROM inquiries i JOIN deliveries d ON d.inquiry_id = i.id WHERE i.session = s.key AND d.status = 'pending')`
)

func (s *Store) RetentionCandidates(ctx context.Context, r hitl.RetentionRule, limit int) (hitl.RetentionBatch, error) {
	var b hitl.RetentionBatch
	// The index of final inquiries by updated_at (migration 17) finds the old ones.
	rows, err := s.pool.Query(ctx, "SELECT i.id FROM inquiries i WHERE "+removableInquiry+" ORDER BY i.updated_at LIMIT $3", r.Before, r.Through, limit)
	if b.Inquiries, err = collectColumn[int64](rows, err); err != nil {
		return b, dbError(err, "inquiries past retention")
	}
	rows, err = s.pool.Query(ctx, "SELECT s.key FROM sessions s WHERE "+removableSession+" ORDER BY s.completed_at LIMIT $3", r.Before, r.Through, limit)
	b.Sessions, err = collectColumn[string](rows, err)
	return b, dbError(err, "sessions past retention")
}

// RemoveResolved locks what it removes, skipping rows another node holds: two nodes sweeping
// at once remove each inquiry once, and each checkpoint names only what its node removed.
func (t *txn) RemoveResolved(b hitl.RetentionBatch, r hitl.RetentionRule) (*hitl.Removal, error) {
	out := &hitl.Removal{}
	if len(b.Inquiries) > 0 {
		rows, err := t.Query(t.ctx, "SELECT i.id FROM inquiries i WHERE i.id = ANY($3) AND "+removableInquiry+" FOR UPDATE OF i SKIP LOCKED", r.Before, r.Through, b.Inquiries)
		if out.Inquiries, err = collectColumn[int64](rows, err); err != nil {
			return nil, dbError(err, "inquiries past retention")
		}
	}
	if len(b.Sessions) > 0 {
		rows, err := t.Query(t.ctx, "SELECT s.key FROM sessions s WHERE s.key = ANY($3) AND "+removableSession+" FOR UPDATE OF s SKIP LOCKED", r.Before, r.Through, b.Sessions)
		if out.Sessions, err = collectColumn[string](rows, err); err != nil {
			return nil, dbError(err, "sessions past retention")
		}
	}
	if len(out.Sessions) > 0 {
		rows, err := t.Query(t.ctx, "SELECT id FROM inquiries WHERE session = ANY($1) FOR UPDATE", out.Sessions)
		theirs, err := collectColumn[int64](rows, err)
		if err != nil {
			return nil, dbError(err, "inquiries of sessions past retention")
		}
		out.Inquiries = append(out.Inquiries, theirs...)
	}
	if len(out.Inquiries) == 0 && len(out.Sessions) == 0 {
		return out, nil
	}
	ids, keys := nonNilIDs(out.Inquiries), nonNil(out.Sessions)
	rows, err := t.Query(t.ctx, "DELETE FROM events WHERE inquiry_id = ANY($1) OR session = ANY($2) RETURNING seq, hash", ids, keys)
	if err == nil {
		out.Events, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (ev hitl.RemovedEvent, err error) {
			return ev, row.Scan(&ev.Seq, &ev.Hash)
		})
	}
	if err != nil {
		return nil, dbError(err, "events past retention")
	}
	slices.SortFunc(out.Events, func(a, b hitl.RemovedEvent) int { return int(a.Seq - b.Seq) })
	// Children before their parents: the foreign keys hold at every statement.
	for _, del := range []struct {
		sql, what string
		args      []any
	}{
		{"DELETE FROM deliveries WHERE inquiry_id = ANY($1) OR session = ANY($2)", "deliveries", []any{ids, keys}},
		{"DELETE FROM inquiry_assignees WHERE inquiry_id = ANY($1)", "assignees", []any{ids}},
		{"DELETE FROM inquiry_metadata WHERE inquiry_id = ANY($1)", "metadata", []any{ids}},
		{"DELETE FROM idempotency_keys WHERE inquiry_id = ANY($1)", "idempotency keys", []any{ids}},
		{"DELETE FROM push_configs WHERE inquiry_id = ANY($1)", "push configs", []any{ids}},
		{"DELETE FROM receipt_redemptions WHERE inquiry_id = ANY($1)", "receipt redemptions", []any{ids}},
		{"DELETE FROM inquiry_views WHERE inquiry_id = ANY($1)", "first views", []any{ids}},
		{"DELETE FROM execution_inquiries WHERE inquiry_id = ANY($1)", "execution links", []any{ids}},
		{"DELETE FROM inquiries WHERE id = ANY($1)", "inquiries", []any{ids}},
		{"DELETE FROM sessions WHERE key = ANY($1)", "sessions", []any{keys}},
	} {
		if _, err := t.Exec(del.sql, del.args...); err != nil {
			return nil, dbError(err, del.what+" past retention")
		}
	}
	return out, nil
}

func nonNilIDs(ids []int64) []int64 {
	if ids == nil {
		return []int64{}
	}
	return ids
}

// collectColumn reads a query's one column (rows and err as Query returns them).
func collectColumn[T any](rows pgx.Rows, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[T])
}
