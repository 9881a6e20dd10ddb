package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// The stored state beside the log, for the audit (hitl.Store.InquiryStates): the rows, the
// rows beside them and the first and newest events are read in one read transaction, which in WAL mode sees one snapshot of the
// database from its first read to its end, so a change committed meanwhile is in both or in
// neither. The keys of a page go in as one JSON array, the table k (key): a statement with a
// parameter for each costs more to prepare than its reads, for each of its statements.

const keysTable = "WITH k(key) AS (SELECT value FROM json_each(?)) "

func keysJSON[K int64 | string](keys []K) []any {
	list, _ := json.Marshal(keys) // of integers or strings: it cannot fail
	return []any{string(list)}
}

func (s *Store) InquiryStates(ctx context.Context, q hitl.StateQuery[int64]) ([]*hitl.InquiryState, error) {
	// The union lists the ids of rows and of events alike: a row removed behind hitl's back
	// leaves its events, which must be met too.
	return readStates(s, ctx, q, `SELECT id FROM (SELECT id FROM inquiries WHERE id > ? ORDER BY id LIMIT ?)
			UNION SELECT inquiry_id FROM (SELECT DISTINCT inquiry_id FROM events WHERE inquiry_id > ? ORDER BY inquiry_id LIMIT ?)
			ORDER BY 1 LIMIT ?`, sqlstore.StateReads[int64, hitl.Inquiry]{
		// Every column, the booleans as the reads take them (= 1).
		Stored: keysTable + `SELECT i.id, i.id, i.doc, i.status, i.session, i.origin, i.request_type, i.created_by, i.unassigned = 1, i.exclusive = 1,
			i.timeout_at, i.next_reminder_at, i.escalate_at, i.claim_expires_at, i.created_at, i.updated_at, i.prompt, i.execution,
			i.responded_by, i.fallback_applied = 1 FROM inquiries i WHERE i.id IN (SELECT key FROM k)`,
		// The rows beside it, each table by its index on inquiry_id; an assignee is current
		// where the reads take it to be (earlier = 0).
		Beside: keysTable + `SELECT inquiry_id, 'inquiry_assignees', assignee, CASE WHEN earlier = 0 THEN '' ELSE 'earlier' END FROM inquiry_assignees WHERE inquiry_id IN (SELECT key FROM k)
			UNION ALL SELECT inquiry_id, 'inquiry_metadata', key, value FROM inquiry_metadata WHERE inquiry_id IN (SELECT key FROM k)
			UNION ALL SELECT inquiry_id, 'execution_inquiries', execution, '' FROM execution_inquiries WHERE inquiry_id IN (SELECT key FROM k)`,
		Events: keysTable + `SELECT ` + sqlstore.EventColumns + ` FROM events WHERE seq IN
			(SELECT (SELECT MIN(seq) FROM events WHERE inquiry_id = k.key) FROM k
			UNION ALL SELECT (SELECT MAX(seq) FROM events WHERE inquiry_id = k.key) FROM k)`,
		Keys: keysJSON[int64],
		Scan: dialect.ScanInquiryState,
		Of:   func(ev *hitl.Event) int64 { return *ev.InquiryID },
		What: "inquiries",
	})
}

func (s *Store) SessionStates(ctx context.Context, q hitl.StateQuery[string]) ([]*hitl.SessionState, error) {
	// The keys of rows and of every event in a session, which the index of events by
	// session holds alone: whether each is about no inquiry would be read from the events
	// themselves, those of the session's inquiries too.
	return readStates(s, ctx, q, `SELECT key FROM (SELECT key FROM sessions WHERE key > ? ORDER BY key LIMIT ?)
			UNION SELECT session FROM (SELECT DISTINCT session FROM events WHERE session > ? ORDER BY session LIMIT ?)
			ORDER BY 1 LIMIT ?`, sqlstore.StateReads[string, hitl.Session]{
		Stored: keysTable + "SELECT s.key, " + dialect.SessionStored() + ", 0, 0 FROM sessions s WHERE s.key IN (SELECT key FROM k)",
		// From the newest event of the session back to the first of no inquiry, and from its
		// first on: most often the newest and the first themselves.
		Events: keysTable + `SELECT ` + sqlstore.EventColumns + ` FROM events WHERE seq IN
			(SELECT (SELECT seq FROM events WHERE session = k.key AND inquiry_id IS NULL ORDER BY seq LIMIT 1) FROM k
			UNION ALL SELECT (SELECT seq FROM events WHERE session = k.key AND inquiry_id IS NULL ORDER BY seq DESC LIMIT 1) FROM k)`,
		Keys: keysJSON[string],
		Scan: dialect.ScanSessionState,
		Of:   func(ev *hitl.Event) string { return ev.Session },
		What: "sessions",
	})
}

// readStates reads the states of q's keys, or of the page of keys that page lists (its
// arguments: after, limit, after, limit, limit).
func readStates[K int64 | string, T hitl.Inquiry | hitl.Session](s *Store, ctx context.Context, q hitl.StateQuery[K], page string, r sqlstore.StateReads[K, T]) ([]*hitl.StoredState[K, T], error) {
	return onReader(s, ctx, func() ([]*hitl.StoredState[K, T], error) {
		tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return nil, dbError(err, r.What)
		}
		defer tx.Rollback()
		keys := q.Only
		if len(keys) == 0 {
			if keys, err = sqlstore.Column[K](ctx, sqlstore.SQL{Q: tx}, page, q.After, q.Limit, q.After, q.Limit, q.Limit); err != nil {
				return nil, dbError(err, r.What)
			}
		}
		return sqlstore.ReadStates(ctx, dialect, sqlstore.SQL{Q: tx}, keys, r)
	})
}
