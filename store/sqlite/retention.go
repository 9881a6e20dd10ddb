package sqlite

import (
	"context"
	"slices"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
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
		b.Inquiries, err = sqlstore.Column[int64](ctx, sqlstore.SQL{Q: s.read}, "SELECT i.id FROM inquiries i WHERE "+removableInquiry+" ORDER BY i.updated_at LIMIT ?",
			append(inquiryArgs(r), limit)...)
		if err != nil {
			return b, dbError(err, "inquiries past retention")
		}
		b.Sessions, err = sqlstore.Column[string](ctx, sqlstore.SQL{Q: s.read}, "SELECT s.key FROM sessions s WHERE "+removableSession+" ORDER BY s.completed_at LIMIT ?",
			append(sessionArgs(r), limit)...)
		return b, dbError(err, "sessions past retention")
	})
}

func (t *txn) RemoveResolved(b hitl.RetentionBatch, r hitl.RetentionRule) (*hitl.Removal, error) {
	out := &hitl.Removal{}
	var err error
	if len(b.Inquiries) > 0 {
		out.Inquiries, err = sqlstore.Column[int64](t.ctx, sqlstore.SQL{Q: t.tx}, "SELECT i.id FROM inquiries i WHERE i.id IN ("+sqlstore.Placeholders(len(b.Inquiries))+") AND "+removableInquiry,
			append(sqlstore.Args(b.Inquiries), inquiryArgs(r)...)...)
		if err != nil {
			return nil, dbError(err, "inquiries past retention")
		}
	}
	if len(b.Sessions) > 0 {
		out.Sessions, err = sqlstore.Column[string](t.ctx, sqlstore.SQL{Q: t.tx}, "SELECT s.key FROM sessions s WHERE s.key IN ("+sqlstore.Placeholders(len(b.Sessions))+") AND "+removableSession,
			append(sqlstore.Args(b.Sessions), sessionArgs(r)...)...)
		if err != nil {
			return nil, dbError(err, "sessions past retention")
		}
	}
	if len(out.Sessions) > 0 {
		theirs, err := sqlstore.Column[int64](t.ctx, sqlstore.SQL{Q: t.tx}, "SELECT id FROM inquiries WHERE session IN ("+sqlstore.Placeholders(len(out.Sessions))+")", sqlstore.Args(out.Sessions)...)
		if err != nil {
			return nil, dbError(err, "inquiries of sessions past retention")
		}
		out.Inquiries = append(out.Inquiries, theirs...)
	}
	if len(out.Inquiries) == 0 && len(out.Sessions) == 0 {
		return out, nil
	}
	ids, keys := sqlstore.Placeholders(len(out.Inquiries)), sqlstore.Placeholders(len(out.Sessions))
	idArgs, keyArgs := sqlstore.Args(out.Inquiries), sqlstore.Args(out.Sessions)
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
		{"DELETE FROM push_configs WHERE inquiry_id IN (" + ids + ")", "push configs", idArgs},
		{"DELETE FROM receipt_redemptions WHERE inquiry_id IN (" + ids + ")", "receipt redemptions", idArgs},
		{"DELETE FROM inquiry_views WHERE inquiry_id IN (" + ids + ")", "first views", idArgs},
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
