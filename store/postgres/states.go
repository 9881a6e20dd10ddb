package postgres

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/hitl-dev/hitl"
)

// The stored state beside the log, for the audit (hitl.Store.InquiryStates): the rows, the
// rows beside them and the first and newest events are read in one read-only transaction at REPEATABLE READ, which sees one
// snapshot of the database, so a change committed meanwhile is in both or in neither.

func (s *Store) InquiryStates(ctx context.Context, q hitl.StateQuery[int64]) ([]*hitl.InquiryState, error) {
	return readStates(s, ctx, q, stateReads[int64, hitl.Inquiry]{
		// The ids of rows and of events alike: a row removed behind hitl's back leaves its
		// events, which must be met too. Those of the events are found one probe of the index
		// each, from one to the next: DISTINCT would read every event after the page's start.
		page: `WITH RECURSIVE e(id, n) AS (
				SELECT (SELECT inquiry_id FROM events WHERE inquiry_id > $1::bigint ORDER BY inquiry_id LIMIT 1), 1
				UNION ALL SELECT (SELECT inquiry_id FROM events WHERE inquiry_id > e.id ORDER BY inquiry_id LIMIT 1), n + 1 FROM e WHERE e.id IS NOT NULL AND n < $2::int)
			SELECT id FROM (SELECT id FROM inquiries WHERE id > $1::bigint ORDER BY id LIMIT $2::int) i
			UNION SELECT id FROM e WHERE id IS NOT NULL
			ORDER BY 1 LIMIT $2::int`,
		stored: `SELECT i.id, i.id, i.doc, i.status, i.session, i.origin, i.request_type, i.created_by, i.unassigned, i.exclusive,
			i.timeout_at, i.next_reminder_at, i.escalate_at, i.claim_expires_at, i.created_at, i.updated_at, i.prompt, i.execution,
			i.responded_by, i.fallback_applied FROM inquiries i WHERE i.id = ANY ($1)`,
		// The rows beside it, each table by its index on inquiry_id.
		beside: `SELECT inquiry_id, 'inquiry_assignees', assignee, CASE WHEN earlier THEN 'earlier' ELSE '' END FROM inquiry_assignees WHERE inquiry_id = ANY ($1)
			UNION ALL SELECT inquiry_id, 'inquiry_metadata', key, value FROM inquiry_metadata WHERE inquiry_id = ANY ($1)
			UNION ALL SELECT inquiry_id, 'execution_inquiries', execution, '' FROM execution_inquiries WHERE inquiry_id = ANY ($1)`,
		events: `SELECT e.seq, e.id, e.type, e.time, e.inquiry_id, e.session, e.actor, e.data, e.hash FROM unnest($1::bigint[]) k (key)
			CROSS JOIN LATERAL ((SELECT * FROM events WHERE inquiry_id = k.key ORDER BY seq LIMIT 1)
				UNION ALL (SELECT * FROM events WHERE inquiry_id = k.key ORDER BY seq DESC LIMIT 1)) e`,
		scan: scanInquiryState,
		of:   func(ev *hitl.Event) int64 { return *ev.InquiryID },
		what: "inquiries",
	})
}

// scanInquiryState reads the row of an inquiry's stored state: its id, its document and its
// columns.
func scanInquiryState(row pgx.Row) (*hitl.Inquiry, *hitl.InquiryColumns, error) {
	var (
		id  int64
		doc string
		c   hitl.InquiryColumns
	)
	if err := row.Scan(&id, &doc, &c.Status, &c.Session, &c.Origin, &c.RequestType, &c.CreatedBy, &c.Unassigned, &c.Exclusive,
		&c.TimeoutAt, &c.NextReminderAt, &c.EscalateAt, &c.ClaimExpiresAt, &c.CreatedAt, &c.UpdatedAt, &c.Prompt, &c.Execution,
		&c.RespondedBy, &c.FallbackApplied); err != nil {
		return nil, nil, err
	}
	inq := new(hitl.Inquiry)
	if err := json.Unmarshal([]byte(doc), inq); err != nil {
		return nil, nil, err
	}
	inq.ID = id
	c.TimeoutAt, c.NextReminderAt, c.EscalateAt, c.ClaimExpiresAt = utcPtr(c.TimeoutAt), utcPtr(c.NextReminderAt), utcPtr(c.EscalateAt), utcPtr(c.ClaimExpiresAt)
	c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	return inq, &c, nil
}

func (s *Store) SessionStates(ctx context.Context, q hitl.StateQuery[string]) ([]*hitl.SessionState, error) {
	return readStates(s, ctx, q, stateReads[string, hitl.Session]{
		// The keys of rows and of every event in a session, which the index of events by
		// session holds alone: whether each is about no inquiry would be read from the events
		// themselves, those of the session's inquiries too.
		page: `WITH RECURSIVE e(key, n) AS (
				SELECT (SELECT session FROM events WHERE session > $1::text ORDER BY session LIMIT 1), 1
				UNION ALL SELECT (SELECT session FROM events WHERE session > e.key ORDER BY session LIMIT 1), n + 1 FROM e WHERE e.key IS NOT NULL AND n < $2::int)
			SELECT key FROM (SELECT key FROM sessions WHERE key > $1::text ORDER BY key LIMIT $2::int) s
			UNION SELECT key FROM e WHERE key IS NOT NULL
			ORDER BY 1 LIMIT $2::int`,
		stored: "SELECT s.key, " + sessionStored + ", 0, 0 FROM sessions s WHERE s.key = ANY ($1)",
		// From the newest event of the session back to the last of no inquiry, and from its
		// first on: most often the newest and the first themselves. COALESCE keeps the planner
		// on that walk down the index of events by session, whatever it guesses of the events
		// of no inquiry (a table not analyzed yet had it intersect both indexes, 5 ms a
		// session).
		events: `SELECT e.seq, e.id, e.type, e.time, e.inquiry_id, e.session, e.actor, e.data, e.hash FROM unnest($1::text[]) k (key)
			CROSS JOIN LATERAL ((SELECT * FROM events WHERE session = k.key AND COALESCE(inquiry_id, 0) = 0 ORDER BY seq LIMIT 1)
				UNION ALL (SELECT * FROM events WHERE session = k.key AND COALESCE(inquiry_id, 0) = 0 ORDER BY seq DESC LIMIT 1)) e`,
		scan: func(row pgx.Row) (*hitl.Session, *hitl.InquiryColumns, error) {
			sess, _, err := scanSession(row)
			return sess, nil, err
		},
		of:   func(ev *hitl.Event) string { return ev.Session },
		what: "sessions",
	})
}

// stateReads are the queries of one kind of record: page lists the keys of a page ($1 after,
// $2 limit); stored reads the rows of some keys ($1), the key first and then the columns scan
// reads; beside, when there is one, reads the rows of the tables beside them (the key, the
// table, and two values: see hitl.InquiryColumns.AddRow); events reads the first and the
// newest event of each of some keys ($1), whose key of is.
type stateReads[K int64 | string, T hitl.Inquiry | hitl.Session] struct {
	page, stored, beside, events string
	scan                         func(row pgx.Row) (*T, *hitl.InquiryColumns, error)
	of                           func(ev *hitl.Event) K
	what                         string
}

func readStates[K int64 | string, T hitl.Inquiry | hitl.Session](s *Store, ctx context.Context, q hitl.StateQuery[K], r stateReads[K, T]) ([]*hitl.StoredState[K, T], error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, dbError(err, r.what)
	}
	defer tx.Rollback(ctx)
	keys := q.Only
	if len(keys) == 0 {
		rows, err := tx.Query(ctx, r.page, q.After, q.Limit)
		if err != nil {
			return nil, dbError(err, r.what)
		}
		if keys, err = pgx.CollectRows(rows, pgx.RowTo[K]); err != nil {
			return nil, dbError(err, r.what)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	byKey := make(map[K]*hitl.StoredState[K, T], len(keys))
	out := make([]*hitl.StoredState[K, T], len(keys))
	for i, k := range keys {
		out[i] = &hitl.StoredState[K, T]{Key: k}
		byKey[k] = out[i]
	}
	err = eachRow(ctx, tx, r.stored, keys, r.what, func(rows pgx.Rows) error {
		var key K
		v, cols, err := r.scan(keyed{rows, &key})
		st := byKey[key]
		if st == nil { // the key itself could not be read
			return err
		}
		st.Stored, st.Columns, st.Unreadable = v, cols, err
		return nil
	})
	if err != nil {
		return nil, err
	}
	if r.beside != "" {
		err := eachRow(ctx, tx, r.beside, keys, r.what, func(rows pgx.Rows) error {
			var (
				key         K
				table, a, b string
			)
			if err := rows.Scan(&key, &table, &a, &b); err != nil {
				return err
			}
			if st := byKey[key]; st != nil {
				st.Columns.AddRow(table, a, b)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	err = eachRow(ctx, tx, r.events, keys, "events", func(rows pgx.Rows) error {
		c, err := scanChained(rows)
		if err != nil {
			return err
		}
		if st := byKey[r.of(c.ev)]; st != nil {
			st.AddEvent(c.ev)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, tx.Commit(ctx)
}

// eachRow calls fn with each row of query, whose one argument is keys; an error of either is
// returned as one of what.
func eachRow[K int64 | string](ctx context.Context, tx pgx.Tx, query string, keys []K, what string, fn func(pgx.Rows) error) error {
	rows, err := tx.Query(ctx, query, keys)
	if err != nil {
		return dbError(err, what)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return dbError(err, what)
		}
	}
	return dbError(rows.Err(), what)
}

// keyed scans a row's first column into key and the others into what Scan is given, so that a
// row whose stored document or metadata cannot be decoded still says whose it is.
type keyed struct {
	row pgx.Row
	key any
}

func (k keyed) Scan(dest ...any) error { return k.row.Scan(append([]any{k.key}, dest...)...) }
