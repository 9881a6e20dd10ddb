package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hitl-dev/hitl"
)

// The stored state beside the log, for the audit (hitl.Store.InquiryStates): the rows and the
// newest events are read in one read transaction, which in WAL mode sees one snapshot of the
// database from its first read to its end, so a change committed meanwhile is in both or in
// neither.

func (s *Store) InquiryStates(ctx context.Context, q hitl.StateQuery[int64]) ([]*hitl.InquiryState, error) {
	return readStates(s, ctx, q, stateReads[int64, hitl.Inquiry]{
		// The union lists the ids of rows and of events alike: a row removed behind hitl's back
		// leaves its events, which must be met too.
		page: `SELECT id FROM (SELECT id FROM inquiries WHERE id > ? ORDER BY id LIMIT ?)
			UNION SELECT inquiry_id FROM (SELECT DISTINCT inquiry_id FROM events WHERE inquiry_id > ? ORDER BY inquiry_id LIMIT ?)
			ORDER BY 1 LIMIT ?`,
		stored: "SELECT i.id, " + inquiryColumns + " FROM inquiries i WHERE i.id IN (SELECT key FROM k)",
		newest: "SELECT seq, id, type, time, inquiry_id, session, actor, data FROM events WHERE seq IN (SELECT (SELECT MAX(seq) FROM events WHERE inquiry_id = k.key) FROM k)",
		scan:   scanInquiry,
		of:     func(ev *hitl.Event) int64 { return *ev.InquiryID },
		what:   "inquiries",
	})
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
		// From the newest event of the session back to the first of no inquiry: most often
		// the newest itself.
		newest: `SELECT seq, id, type, time, inquiry_id, session, actor, data FROM events WHERE seq IN
			(SELECT (SELECT seq FROM events WHERE session = k.key AND inquiry_id IS NULL ORDER BY seq DESC LIMIT 1) FROM k)`,
		scan: func(sc interface{ Scan(...any) error }) (*hitl.Session, error) {
			sess, _, err := scanSession(sc)
			return sess, err
		},
		of:   func(ev *hitl.Event) string { return ev.Session },
		what: "sessions",
	})
}

// stateReads are the queries of one kind of record: page lists the keys of a page (its
// arguments: after, limit, after, limit, limit); stored reads the rows of the keys in the
// table k (key), the key first and then the columns scan reads; newest reads the newest event
// of each key in k, whose key of is.
type stateReads[K int64 | string, T hitl.Inquiry | hitl.Session] struct {
	page, stored, newest string
	scan                 func(sc interface{ Scan(...any) error }) (*T, error)
	of                   func(ev *hitl.Event) K
	what                 string
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
		k := "WITH k(key) AS (VALUES " + strings.TrimSuffix(strings.Repeat("(?), ", len(keys)), ", ") + ") "
		args := make([]any, len(keys))
		byKey := make(map[K]*hitl.StoredState[K, T], len(keys))
		out := make([]*hitl.StoredState[K, T], len(keys))
		for i, k := range keys {
			args[i], out[i] = k, &hitl.StoredState[K, T]{Key: k}
			byKey[k] = out[i]
		}
		rows, err := tx.QueryContext(ctx, k+r.stored, args...)
		if err != nil {
			return nil, dbError(err, r.what)
		}
		defer rows.Close()
		for rows.Next() {
			var key K
			v, err := r.scan(keyed{rows, &key})
			st := byKey[key]
			if st == nil { // the key itself could not be read
				return nil, dbError(err, r.what)
			}
			st.Stored, st.Unreadable = v, err
		}
		if err := rows.Err(); err != nil {
			return nil, dbError(err, r.what)
		}
		evs, err := tx.QueryContext(ctx, k+r.newest, args...)
		if err != nil {
			return nil, dbError(err, "events")
		}
		defer evs.Close()
		for evs.Next() {
			ev, err := scanEvent(evs)
			if err != nil {
				return nil, dbError(err, "events")
			}
			if st := byKey[r.of(ev)]; st != nil {
				st.Newest = ev
			}
		}
		if err := evs.Err(); err != nil {
			return nil, dbError(err, "events")
		}
		return out, nil
	})
}

// keyed scans a row's first column into key and the others into what Scan is given, so that a
// row whose other columns cannot be read still says whose it is (database/sql assigns the
// columns in order, and a column it cannot convert leaves the rows readable).
type keyed struct {
	row interface{ Scan(...any) error }
	key any
}

func (k keyed) Scan(dest ...any) error { return k.row.Scan(append([]any{k.key}, dest...)...) }
