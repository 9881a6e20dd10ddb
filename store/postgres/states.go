package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// The stored state beside the log, for the audit (hitl.Store.InquiryStates): the rows, the
// rows beside them and the first and newest events are read in one read-only transaction at REPEATABLE READ, which sees one
// snapshot of the database, so a change committed meanwhile is in both or in neither. The
// keys of a page are the one argument ($1) of each statement.

func (s *Store) InquiryStates(ctx context.Context, q hitl.StateQuery[int64]) ([]*hitl.InquiryState, error) {
	return readStates(s, ctx, q, statePage("inquiries", "id", "inquiry_id", "bigint"), sqlstore.StateReads[int64, hitl.Inquiry]{
		Stored: `SELECT i.id, i.id, i.doc, i.status, i.session, i.origin, i.request_type, i.created_by, i.unassigned, i.exclusive,
			i.timeout_at, i.next_reminder_at, i.escalate_at, i.claim_expires_at, i.created_at, i.updated_at, i.prompt, i.execution,
			i.responded_by, i.fallback_applied FROM inquiries i WHERE i.id = ANY ($1)`,
		// The rows beside it, each table by its index on inquiry_id.
		Beside: `SELECT inquiry_id, 'inquiry_assignees', assignee, CASE WHEN earlier THEN 'earlier' ELSE '' END FROM inquiry_assignees WHERE inquiry_id = ANY ($1)
			UNION ALL SELECT inquiry_id, 'inquiry_metadata', key, value FROM inquiry_metadata WHERE inquiry_id = ANY ($1)
			UNION ALL SELECT inquiry_id, 'execution_inquiries', execution, '' FROM execution_inquiries WHERE inquiry_id = ANY ($1)`,
		Events: `SELECT e.seq, e.id, e.type, e.time, e.inquiry_id, e.session, e.actor, e.data FROM unnest($1::bigint[]) k (key)
			CROSS JOIN LATERAL ((SELECT * FROM events WHERE inquiry_id = k.key ORDER BY seq LIMIT 1)
				UNION ALL (SELECT * FROM events WHERE inquiry_id = k.key ORDER BY seq DESC LIMIT 1)) e`,
		Keys: keysArg[int64],
		Scan: dialect.ScanInquiryState,
		Of:   func(ev *hitl.Event) int64 { return *ev.InquiryID },
		What: "inquiries",
	})
}

func (s *Store) SessionStates(ctx context.Context, q hitl.StateQuery[string]) ([]*hitl.SessionState, error) {
	// The keys of rows and of every event in a session, which the index of events by
	// session holds alone: whether each is about no inquiry would be read from the events
	// themselves, those of the session's inquiries too.
	return readStates(s, ctx, q, statePage("sessions", "key", "session", "text"), sqlstore.StateReads[string, hitl.Session]{
		Stored: "SELECT s.key, " + dialect.SessionStored() + ", 0, 0 FROM sessions s WHERE s.key = ANY ($1)",
		// From the newest event of the session back to the last of no inquiry, and from its
		// first on: most often the newest and the first themselves. COALESCE keeps the planner
		// on that walk down the index of events by session, whatever it guesses of the events
		// of no inquiry (a table not analyzed yet had it intersect both indexes, 5 ms a
		// session).
		Events: `SELECT e.seq, e.id, e.type, e.time, e.inquiry_id, e.session, e.actor, e.data FROM unnest($1::text[]) k (key)
			CROSS JOIN LATERAL ((SELECT * FROM events WHERE session = k.key AND COALESCE(inquiry_id, 0) = 0 ORDER BY seq LIMIT 1)
				UNION ALL (SELECT * FROM events WHERE session = k.key AND COALESCE(inquiry_id, 0) = 0 ORDER BY seq DESC LIMIT 1)) e`,
		Keys: keysArg[string],
		Scan: dialect.ScanSessionState,
		Of:   func(ev *hitl.Event) string { return ev.Session },
		What: "sessions",
	})
}

// statePage lists a page of keys ($1 after, $2 limit) of the rows of table (by its column
// key) and of the events (by their column of, of type typ) alike: a row removed behind
// hitl's back leaves its events, which must be met too. Those of the events are found one
// probe of the index each, from one to the next: DISTINCT would read every event after the
// page's start.
func statePage(table, key, of, typ string) string {
	return `WITH RECURSIVE e(key, n) AS (
			SELECT (SELECT ` + of + ` FROM events WHERE ` + of + ` > $1::` + typ + ` ORDER BY ` + of + ` LIMIT 1), 1
			UNION ALL SELECT (SELECT ` + of + ` FROM events WHERE ` + of + ` > e.key ORDER BY ` + of + ` LIMIT 1), n + 1 FROM e WHERE e.key IS NOT NULL AND n < $2::int)
		SELECT ` + key + ` FROM (SELECT ` + key + ` FROM ` + table + ` WHERE ` + key + ` > $1::` + typ + ` ORDER BY ` + key + ` LIMIT $2::int) r
		UNION SELECT key FROM e WHERE key IS NOT NULL
		ORDER BY 1 LIMIT $2::int`
}

func keysArg[K int64 | string](keys []K) []any { return []any{keys} }

// readStates reads the states of q's keys, or of the page of keys that page lists ($1 after,
// $2 limit).
func readStates[K int64 | string, T hitl.Inquiry | hitl.Session](s *Store, ctx context.Context, q hitl.StateQuery[K], page string, r sqlstore.StateReads[K, T]) ([]*hitl.StoredState[K, T], error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, dbError(err, r.What)
	}
	defer tx.Rollback(ctx)
	keys := q.Only
	if len(keys) == 0 {
		if keys, err = sqlstore.Column[K](ctx, pgDB{q: tx}, page, q.After, q.Limit); err != nil {
			return nil, dbError(err, r.What)
		}
	}
	out, err := sqlstore.ReadStates(ctx, dialect, pgDB{q: tx}, keys, r)
	if err != nil {
		return nil, err
	}
	return out, tx.Commit(ctx)
}
