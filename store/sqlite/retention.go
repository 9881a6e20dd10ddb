package sqlite

import (
	"context"
	"database/sql"
	"slices"

	"github.com/hitl-dev/hitl"
)

// The rule of hitl.RetentionRule, written once for the search off the writer and once more
// for the check in the writer's transaction by primary key. Arguments: before, through. The
// unary + keeps SQLite's planner off the index on session, which would read every inquiry
// outside a session, for the index of final inquiries by updated_at.
const (
	removableInquiry = `+i.session IS NULL AND i.status <> 'pending' AND i.updated_at < ?
		AND NOT EXISTS (SELECT 1 FROM events e WHERE e.inquiry_id = i.id AND e.seq > ?)
		AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.inquiry_id = i.id AND d.status = 'pending')`
	// Arguments: before, before, through, through.
	removableSession = `s.status <> 'running' AND s.completed_at < ?
		AND NOT EXISTS (SELECT 1 FROM inquiries i WHERE i.session = s.key AND (i.status = 'pending' OR i.updated_at >= ?))
		AND NOT EXISTS (SELECT 1 FROM events e WHERE e.session = s.key AND e.seq > ?)
		AND NOT EXISTS (SELECT 1 FROM inquiries i JOIN events e ON e.inquiry_id = i.id WHERE i.session = s.key AND e.seq > ?)
		AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.session = s.key AND d.status = 'pending')
		AND NOT EXISTS (SELECT 1 FROM inquiries i JOIN deliveries d ON d.inquiry_id = i.id WHERE i.session = s.key AND d.status = 'pending')`
)

func inquiryArgs(r hitl.RetentionRule) []any { return []any{micros(r.Before), r.Through} }

func sessionArgs(r hitl.RetentionRule) []any {
	return []any{micros(r.Before), micros(r.Before), r.Through, r.Through}
}

func (s *Store) RetentionCandidates(ctx context.Context, r hitl.RetentionRule, limit int) (hitl.RetentionBatch, error) {
	return onReader(s, ctx, func() (b hitl.RetentionBatch, err error) {
		// The index of final inquiries by updated_at (migration 17) finds the old ones.
		b.Inquiries, err = queryColumn[int64](ctx, s.read, "SELECT i.id FROM inquiries i WHERE "+removableInquiry+" ORDER BY i.updated_at LIMIT ?",
			append(inquiryArgs(r), limit)...)
		if err != nil {
			return b, dbError(err, "inquiries past retention")
		}
		b.Sessions, err = queryColumn[string](ctx, s.read, "SELECT s.key FROM sessions s WHERE "+removableSession+" ORDER BY s.completed_at LIMIT ?",
			append(sessionArgs(r), limit)...)
		return b, dbError(err, "sessions past retention")
	})
}

func (t *txn) RemoveResolved(b hitl.RetentionBatch, r hitl.RetentionRule) (*hitl.Removal, error) {
	out := &hitl.Removal{}
	var err error
	if len(b.Inquiries) > 0 {
		out.Inquiries, err = queryColumn[int64](t.ctx, t.tx, "SELECT i.id FROM inquiries i WHERE i.id IN ("+placeholders(len(b.Inquiries))+") AND "+removableInquiry,
			append(int64Args(b.Inquiries), inquiryArgs(r)...)...)
		if err != nil {
			return nil, dbError(err, "inquiries past retention")
		}
	}
	if len(b.Sessions) > 0 {
		out.Sessions, err = queryColumn[string](t.ctx, t.tx, "SELECT s.key FROM sessions s WHERE s.key IN ("+placeholders(len(b.Sessions))+") AND "+removableSession,
			append(anyArgs(b.Sessions), sessionArgs(r)...)...)
		if err != nil {
			return nil, dbError(err, "sessions past retention")
		}
	}
	if len(out.Sessions) > 0 {
		theirs, err := queryColumn[int64](t.ctx, t.tx, "SELECT id FROM inquiries WHERE session IN ("+placeholders(len(out.Sessions))+")", anyArgs(out.Sessions)...)
		if err != nil {
			return nil, dbError(err, "inquiries of sessions past retention")
		}
		out.Inquiries = append(out.Inquiries, theirs...)
	}
	if len(out.Inquiries) == 0 && len(out.Sessions) == 0 {
		return out, nil
	}
	ids, keys := placeholders(len(out.Inquiries)), placeholders(len(out.Sessions))
	idArgs, keyArgs := int64Args(out.Inquiries), anyArgs(out.Sessions)
	rows, err := t.tx.QueryContext(t.ctx, "DELETE FROM events WHERE inquiry_id IN ("+ids+") OR session IN ("+keys+") RETURNING seq, hash", append(idArgs, keyArgs...)...)
	if err != nil {
		return nil, dbError(err, "events past retention")
	}
	for rows.Next() {
		var ev hitl.RemovedEvent
		if err := rows.Scan(&ev.Seq, &ev.Hash); err != nil {
			rows.Close()
			return nil, dbError(err, "events past retention")
		}
		out.Events = append(out.Events, ev)
	}
	if err := rows.Close(); err != nil {
		return nil, dbError(err, "events past retention")
	}
	slices.SortFunc(out.Events, func(a, b hitl.RemovedEvent) int { return int(a.Seq - b.Seq) })
	// Children before their parents: the foreign keys hold at every statement.
	both := append(slices.Clone(idArgs), keyArgs...)
	for _, del := range []struct {
		sql, what string
		args      []any
	}{
		{"DELETE FROM deliveries WHERE inquiry_id IN (" + ids + ") OR session IN (" + keys + ")", "deliveries", both},
		{"DELETE FROM inquiry_assignees WHERE inquiry_id IN (" + ids + ")", "assignees", idArgs},
		{"DELETE FROM inquiry_metadata WHERE inquiry_id IN (" + ids + ")", "metadata", idArgs},
		{"DELETE FROM idempotency_keys WHERE inquiry_id IN (" + ids + ")", "idempotency keys", idArgs},
		{"DELETE FROM execution_inquiries WHERE inquiry_id IN (" + ids + ")", "execution links", idArgs},
		{"DELETE FROM inquiries WHERE id IN (" + ids + ")", "inquiries", idArgs},
		{"DELETE FROM sessions WHERE key IN (" + keys + ")", "sessions", keyArgs},
	} {
		if _, err := t.tx.ExecContext(t.ctx, del.sql, del.args...); err != nil {
			return nil, dbError(err, del.what+" past retention")
		}
	}
	return out, nil
}

func int64Args(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// queryColumn reads a query's one column.
func queryColumn[T any](ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
