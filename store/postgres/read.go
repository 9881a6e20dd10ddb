package postgres

import (
	"context"

	"github.com/hitl-dev/hitl"
)

// The reads both stores share run on the pool (s.db).

func (s *Store) Inquiry(ctx context.Context, id int64) (*hitl.Inquiry, error) {
	return dialect.Inquiry(ctx, s.db, id, "")
}

func (s *Store) Inquiries(ctx context.Context, f hitl.InquiryFilter) ([]*hitl.Inquiry, string, error) {
	return dialect.InquiryPage(ctx, s.db, f)
}

func (s *Store) CountInquiries(ctx context.Context, f hitl.InquiryFilter) (int, error) {
	return dialect.CountInquiries(ctx, s.db, f)
}

func (s *Store) PendingCount(ctx context.Context) (int, error) {
	return dialect.PendingCount(ctx, s.db)
}

func (s *Store) PendingDeadlines(ctx context.Context) ([]hitl.Deadline, error) {
	return dialect.Timers(ctx, s.db, "deadlines", "SELECT id, timeout_at FROM inquiries WHERE status = 'pending' AND timeout_at IS NOT NULL ORDER BY timeout_at")
}

func (s *Store) PendingNudges(ctx context.Context) ([]hitl.Deadline, error) {
	return dialect.Timers(ctx, s.db, "reminders", `SELECT id, LEAST(next_reminder_at, escalate_at) FROM inquiries
		WHERE status = 'pending' AND (next_reminder_at IS NOT NULL OR escalate_at IS NOT NULL)`)
}

func (s *Store) PendingClaims(ctx context.Context) ([]hitl.Deadline, error) {
	return dialect.Timers(ctx, s.db, "claims", "SELECT id, claim_expires_at FROM inquiries WHERE status = 'pending' AND claim_expires_at IS NOT NULL")
}

func (s *Store) AssigneeLoads(ctx context.Context, names []string) (map[string]hitl.AssigneeLoad, error) {
	out := map[string]hitl.AssigneeLoad{}
	if len(names) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT a.assignee, COUNT(*) FILTER (WHERE i.status = 'pending'), MAX(i.created_at)
		FROM inquiry_assignees a JOIN inquiries i ON i.id = a.inquiry_id
		WHERE NOT a.earlier AND a.assignee = ANY($1) GROUP BY a.assignee`, names)
	if err != nil {
		return nil, dbError(err, "assignee loads")
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var load hitl.AssigneeLoad
		if err := rows.Scan(&name, &load.Pending, dialect.ScanTime(&load.LastAssignedAt)); err != nil {
			return nil, dbError(err, "assignee loads")
		}
		out[name] = load
	}
	return out, dbError(rows.Err(), "assignee loads")
}

func (s *Store) Session(ctx context.Context, key string) (*hitl.Session, error) {
	return dialect.Session(ctx, s.db, key, "")
}

func (s *Store) Sessions(ctx context.Context, f hitl.SessionFilter) ([]*hitl.Session, string, error) {
	return dialect.Sessions(ctx, s.db, f)
}

func (s *Store) SessionInquiries(ctx context.Context, key string, v hitl.Visibility) ([]*hitl.Inquiry, error) {
	return dialect.SessionInquiries(ctx, s.db, key, v)
}

func (s *Store) SessionVersion(ctx context.Context, key string) (int64, error) {
	return dialect.SessionVersion(ctx, s.db, key)
}

func (s *Store) Events(ctx context.Context, f hitl.EventFilter) ([]*hitl.Event, error) {
	return dialect.Events(ctx, s.logDB, f)
}

func (s *Store) LastEventSeq(ctx context.Context) (int64, error) {
	return dialect.LastEventSeq(ctx, s.db)
}

func (s *Store) KeyByTokenHash(ctx context.Context, hash string) (*hitl.Key, error) {
	return dialect.KeyByTokenHash(ctx, s.db, hash)
}

func (s *Store) Keys(ctx context.Context) ([]*hitl.Key, error) { return dialect.Keys(ctx, s.db) }
