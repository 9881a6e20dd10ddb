package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/hitl-dev/hitl"
)

// The stored state beside the log, for the audit (hitl.Store.InquiryStates): the rows, the
// rows beside them and the first and newest events are read in one read transaction, which in WAL mode sees one snapshot of the
// database from its first read to its end, so a change committed meanwhile is in both or in
// neither.

func (s *Store) InquiryStates(ctx context.Context, q hitl.StateQuery[int64]) ([]*hitl.InquiryState, error) {
	return readStates(s, ctx, q, stateReads[int64, hitl.Inquiry]{
		// The union lists the ids of rows and of events alike: a row removed behind hitl's back
		// leaves its events, which must be met too.
		page: `SELECT id FROM (SELECT id FROM inquiries WHERE id > ? ORDER BY id LIMIT ?)
			UNION SELECT inquiry_id FROM (SELECT DISTINCT inquiry_id FROM events WHERE inquiry_id > ? ORDER BY inquiry_id LIMIT ?)
			ORDER BY 1 LIMIT ?`,
		// Every column, the booleans as the reads take them (= 1).
		stored: `SELECT i.id, i.id, i.doc, i.status, i.session, i.origin, i.request_type, i.created_by, i.unassigned = 1, i.exclusive = 1,
			i.timeout_at, i.next_reminder_at, i.escalate_at, i.claim_expires_at, i.created_at, i.updated_at, i.prompt, i.execution,
			i.responded_by, i.fallback_applied = 1 FROM inquiries i WHERE i.id IN (SELECT key FROM k)`,
		// The rows beside it, each table by its index on inquiry_id; an assignee is current
		// where the reads take it to be (earlier = 0).
		beside: `SELECT inquiry_id, 'inquiry_assignees', assignee, CASE WHEN earlier = 0 THEN '' ELSE 'earlier' END FROM inquiry_assignees WHERE inquiry_id IN (SELECT key FROM k)
			UNION ALL SELECT inquiry_id, 'inquiry_metadata', key, value FROM inquiry_metadata WHERE inquiry_id IN (SELECT key FROM k)
			UNION ALL SELECT inquiry_id, 'execution_inquiries', execution, '' FROM execution_inquiries WHERE inquiry_id IN (SELECT key FROM k)`,
		events: `SELECT seq, id, type, time, inquiry_id, session, actor, data FROM events WHERE seq IN
			(SELECT (SELECT MIN(seq) FROM events WHERE inquiry_id = k.key) FROM k
			UNION ALL SELECT (SELECT MAX(seq) FROM events WHERE inquiry_id = k.key) FROM k)`,
		scan: scanInquiryState,
		of:   func(ev *hitl.Event) int64 { return *ev.InquiryID },
		what: "inquiries",
	})
}

// scanInquiryState reads the row of an inquiry's stored state: its id, its document and its
// columns.
func scanInquiryState(sc interface{ Scan(...any) error }) (*hitl.Inquiry, *hitl.InquiryColumns, error) {
	var (
		id                                 int64
		doc                                string
		c                                  hitl.InquiryColumns
		session, execution, respondedBy    sql.NullString
		timeout, reminder, escalate, claim sql.NullInt64
		created, updated                   int64
	)
	if err := sc.Scan(&id, &doc, &c.Status, &session, &c.Origin, &c.RequestType, &c.CreatedBy, &c.Unassigned, &c.Exclusive,
		&timeout, &reminder, &escalate, &claim, &created, &updated, &c.Prompt, &execution, &respondedBy, &c.FallbackApplied); err != nil {
		return nil, nil, err
	}
	inq := new(hitl.Inquiry)
	if err := json.Unmarshal([]byte(doc), inq); err != nil {
		return nil, nil, fmt.Errorf("inquiry %d: stored document: %w", id, err)
	}
	inq.ID = id
	c.Session, c.Execution, c.RespondedBy = stringOrNil(session), stringOrNil(execution), stringOrNil(respondedBy)
	c.TimeoutAt, c.NextReminderAt, c.EscalateAt, c.ClaimExpiresAt = timeOrNil(timeout), timeOrNil(reminder), timeOrNil(escalate), timeOrNil(claim)
	c.CreatedAt, c.UpdatedAt = fromMicros(created), fromMicros(updated)
	return inq, &c, nil
}

func stringOrNil(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func (s *Store) SessionStates(ctx context.Context, q hitl.StateQuery[string]) ([]*hitl.SessionState, error) {
	return readStates(s, ctx, q, stateReads[string, hitl.Session]{
		// The keys of rows and of every event in a session, which the index of events by
		// session holds alone: whether each is about no inquiry would be read from the events
		// themselves, those of the session's inquiries too.
		page: `SELECT key FROM (SELECT key FROM sessions WHERE key > ? ORDER BY key LIMIT ?)
			UNION SELECT session FROM (SELECT DISTINCT session FROM events WHERE session > ? ORDER BY session LIMIT ?)
			ORDER BY 1 LIMIT ?`,
		stored: "SELECT s.key, " + sessionStored + ", 0, 0 FROM sessions s WHERE s.key IN (SELECT key FROM k)",
		// From the newest event of the session back to the first of no inquiry, and from its
		// first on: most often the newest and the first themselves.
		events: `SELECT seq, id, type, time, inquiry_id, session, actor, data FROM events WHERE seq IN
			(SELECT (SELECT seq FROM events WHERE session = k.key AND inquiry_id IS NULL ORDER BY seq LIMIT 1) FROM k
			UNION ALL SELECT (SELECT seq FROM events WHERE session = k.key AND inquiry_id IS NULL ORDER BY seq DESC LIMIT 1) FROM k)`,
		scan: func(sc interface{ Scan(...any) error }) (*hitl.Session, *hitl.InquiryColumns, error) {
			sess, _, err := scanSession(sc)
			return sess, nil, err
		},
		of:   func(ev *hitl.Event) string { return ev.Session },
		what: "sessions",
	})
}

// stateReads are the queries of one kind of record: page lists the keys of a page (its
// arguments: after, limit, after, limit, limit); stored reads the rows of the keys in the
// table k (key), the key first and then the columns scan reads; beside, when there is one,
// reads the rows of the tables beside them (the key, the table, and two values: see
// hitl.InquiryColumns.AddRow); events reads the first and the newest event of each key in k,
// whose key of is.
type stateReads[K int64 | string, T hitl.Inquiry | hitl.Session] struct {
	page, stored, beside, events string
	scan                         func(sc interface{ Scan(...any) error }) (*T, *hitl.InquiryColumns, error)
	of                           func(ev *hitl.Event) K
	what                         string
}

func readStates[K int64 | string, T hitl.Inquiry | hitl.Session](s *Store, ctx context.Context, q hitl.StateQuery[K], r stateReads[K, T]) ([]*hitl.StoredState[K, T], error) {
	return onReader(s, ctx, func() (_ []*hitl.StoredState[K, T], err error) {
		tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return nil, dbError(err, r.what)
		}
		defer tx.Rollback()
		keys := q.Only
		if len(keys) == 0 {
			if keys, err = queryColumn[K](ctx, tx, r.page, q.After, q.Limit, q.After, q.Limit, q.Limit); err != nil {
				return nil, dbError(err, r.what)
			}
		}
		if len(keys) == 0 {
			return nil, nil
		}
		// The keys go in as one JSON array: a statement with a parameter for each costs more
		// to prepare than its reads, for each of its four statements.
		list, err := json.Marshal(keys)
		if err != nil {
			return nil, err
		}
		const k = "WITH k(key) AS (SELECT value FROM json_each(?)) "
		args := []any{string(list)}
		byKey := make(map[K]*hitl.StoredState[K, T], len(keys))
		out := make([]*hitl.StoredState[K, T], len(keys))
		for i, k := range keys {
			out[i] = &hitl.StoredState[K, T]{Key: k}
			byKey[k] = out[i]
		}
		if err := eachRow(ctx, tx, k+r.stored, args, r.what, func(rows *sql.Rows) error {
			var key K
			v, cols, err := r.scan(keyed{rows, &key})
			st := byKey[key]
			if st == nil { // the key itself could not be read
				return err
			}
			st.Stored, st.Columns, st.Unreadable = v, cols, err
			return nil
		}); err != nil {
			return nil, err
		}
		if r.beside != "" {
			err := eachRow(ctx, tx, k+r.beside, args, r.what, func(rows *sql.Rows) error {
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
		err = eachRow(ctx, tx, k+r.events, args, "events", func(rows *sql.Rows) error {
			ev, err := scanEvent(rows)
			if err != nil {
				return err
			}
			if st := byKey[r.of(ev)]; st != nil {
				st.AddEvent(ev)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	})
}

// eachRow calls fn with each row of query; an error of either is returned as one of what.
func eachRow(ctx context.Context, tx *sql.Tx, query string, args []any, what string, fn func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, query, args...)
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
// row whose other columns cannot be read still says whose it is (database/sql assigns the
// columns in order, and a column it cannot convert leaves the rows readable).
type keyed struct {
	row interface{ Scan(...any) error }
	key any
}

func (k keyed) Scan(dest ...any) error { return k.row.Scan(append([]any{k.key}, dest...)...) }
