package sqlite

import (
	"context"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// The reads both stores share run on a reader (onReader), with the read pool.

func read[T any](s *Store, ctx context.Context, fn func(context.Context, sqlstore.DB) (T, error)) (T, error) {
	return onReader(s, ctx, func() (T, error) { return fn(ctx, sqlstore.SQL{Q: s.read}) })
}

func readBy[A, T any](s *Store, ctx context.Context, fn func(context.Context, sqlstore.DB, A) (T, error), a A) (T, error) {
	return onReader(s, ctx, func() (T, error) { return fn(ctx, sqlstore.SQL{Q: s.read}, a) })
}

func readRow[T any](s *Store, ctx context.Context, tb sqlstore.Table[T], key string) (T, error) {
	return onReader(s, ctx, func() (T, error) { return tb.Get(ctx, dialect, sqlstore.SQL{Q: s.read}, key) })
}

func readTable[T any](s *Store, ctx context.Context, tb sqlstore.Table[T]) ([]T, error) {
	return onReader(s, ctx, func() ([]T, error) { return tb.List(ctx, dialect, sqlstore.SQL{Q: s.read}) })
}

func readPage[F, T any](s *Store, ctx context.Context, fn func(context.Context, sqlstore.DB, F) ([]T, string, error), f F) ([]T, string, error) {
	type page struct {
		items []T
		next  string
	}
	p, err := onReader(s, ctx, func() (p page, err error) {
		p.items, p.next, err = fn(ctx, sqlstore.SQL{Q: s.read}, f)
		return p, err
	})
	return p.items, p.next, err
}

func (s *Store) Inquiry(ctx context.Context, id int64) (*hitl.Inquiry, error) {
	return onReader(s, ctx, func() (*hitl.Inquiry, error) { return getInquiry(ctx, s.read, id) })
}

func (s *Store) Inquiries(ctx context.Context, f hitl.InquiryFilter) ([]*hitl.Inquiry, string, error) {
	return readPage(s, ctx, dialect.InquiryPage, f)
}

func (s *Store) CountInquiries(ctx context.Context, f hitl.InquiryFilter) (int, error) {
	return readBy(s, ctx, dialect.CountInquiries, f)
}

func (s *Store) PendingCount(ctx context.Context) (int, error) {
	return read(s, ctx, dialect.PendingCount)
}

// PendingDeadlines, PendingNudges and PendingClaims name their partial indexes: without
// statistics SQLite prefers inquiries_status and reads every pending row (with a million
// pending, 0.4-0.7 s per query at start-up even when none has the timer, and a sort), where
// the partial index holds just the rows that have it, in order.
func (s *Store) PendingDeadlines(ctx context.Context) ([]hitl.Deadline, error) {
	return s.timers(ctx, "deadlines", "SELECT id, timeout_at FROM inquiries INDEXED BY inquiries_deadline WHERE status = 'pending' AND timeout_at IS NOT NULL ORDER BY timeout_at")
}

func (s *Store) PendingNudges(ctx context.Context) ([]hitl.Deadline, error) {
	return s.timers(ctx, "reminders", `SELECT id, MIN(COALESCE(next_reminder_at, escalate_at), COALESCE(escalate_at, next_reminder_at))
			FROM inquiries INDEXED BY inquiries_nudges WHERE status = 'pending' AND (next_reminder_at IS NOT NULL OR escalate_at IS NOT NULL)`)
}

func (s *Store) PendingClaims(ctx context.Context) ([]hitl.Deadline, error) {
	return s.timers(ctx, "claims", "SELECT id, claim_expires_at FROM inquiries INDEXED BY inquiries_claims WHERE status = 'pending' AND claim_expires_at IS NOT NULL")
}

// timers reads (inquiry id, time) rows.
func (s *Store) timers(ctx context.Context, what, query string) ([]hitl.Deadline, error) {
	return onReader(s, ctx, func() ([]hitl.Deadline, error) { return dialect.Timers(ctx, sqlstore.SQL{Q: s.read}, what, query) })
}

func (s *Store) AssigneeLoads(ctx context.Context, names []string) (map[string]hitl.AssigneeLoad, error) {
	out := map[string]hitl.AssigneeLoad{}
	if len(names) == 0 {
		return out, nil
	}
	return onReader(s, ctx, func() (map[string]hitl.AssigneeLoad, error) {
		rows, err := s.read.QueryContext(ctx, `SELECT a.assignee, SUM(i.status = 'pending'), MAX(i.created_at)
			FROM inquiry_assignees a JOIN inquiries i ON i.id = a.inquiry_id
			WHERE a.earlier = 0 AND a.assignee IN (`+sqlstore.Placeholders(len(names))+`) GROUP BY a.assignee`, sqlstore.Args(names)...)
		if err != nil {
			return nil, dbError(err, "assignee loads")
		}
		err = sqlstore.Each(sqlstore.SQLRows(rows), func(sc sqlstore.Scanner) error {
			var name string
			var pending, last int64
			err := sc.Scan(&name, &pending, &last)
			out[name] = hitl.AssigneeLoad{Pending: int(pending), LastAssignedAt: fromMicros(last)}
			return err
		})
		return out, dbError(err, "assignee loads")
	})
}

func getSession(ctx context.Context, q querier, key string) (*hitl.Session, error) {
	return dialect.Session(ctx, sqlstore.SQL{Q: q}, key, "")
}

func (s *Store) Session(ctx context.Context, key string) (*hitl.Session, error) {
	return onReader(s, ctx, func() (*hitl.Session, error) { return getSession(ctx, s.read, key) })
}

func (s *Store) Sessions(ctx context.Context, f hitl.SessionFilter) ([]*hitl.Session, string, error) {
	return readPage(s, ctx, dialect.Sessions, f)
}

func (s *Store) SessionInquiries(ctx context.Context, key string, v hitl.Visibility) ([]*hitl.Inquiry, error) {
	return onReader(s, ctx, func() ([]*hitl.Inquiry, error) { return dialect.SessionInquiries(ctx, sqlstore.SQL{Q: s.read}, key, v) })
}

func (s *Store) SessionVersion(ctx context.Context, key string) (int64, error) {
	return onReader(s, ctx, func() (int64, error) { return dialect.SessionVersion(ctx, sqlstore.SQL{Q: s.read}, key) })
}

func (s *Store) Events(ctx context.Context, f hitl.EventFilter) ([]*hitl.Event, error) {
	return readBy(s, ctx, dialect.Events, f)
}

func (s *Store) LastEventSeq(ctx context.Context) (int64, error) {
	return read(s, ctx, dialect.LastEventSeq)
}

func (s *Store) KeyByTokenHash(ctx context.Context, hash string) (*hitl.Key, error) {
	return readBy(s, ctx, dialect.KeyByTokenHash, hash)
}

func (s *Store) Keys(ctx context.Context) ([]*hitl.Key, error) { return read(s, ctx, dialect.Keys) }
