package postgres

import (
	"time"

	"github.com/hitl-dev/hitl"
)

// sequencesQuery reads the last inquiry id and integer identity given out (the larger of the
// sequence's last value and the largest id, should rows have been written with ids of their
// own), and the newest event's seq and time.
const sequencesQuery = `SELECT
	GREATEST(COALESCE(pg_sequence_last_value(pg_get_serial_sequence('inquiries', 'id')::regclass), 0), COALESCE((SELECT MAX(id) FROM inquiries), 0)),
	GREATEST(COALESCE(pg_sequence_last_value(pg_get_serial_sequence('identities', 'id')::regclass), 0), COALESCE((SELECT MAX(id) FROM identities), 0)),
	COALESCE(h.seq, 0), h.time
	FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT seq, time FROM events ORDER BY seq DESC LIMIT 1) h ON true`

func (t *txn) Sequences() (hitl.Sequences, error) {
	var (
		s  hitl.Sequences
		at *time.Time
	)
	// The event lock, which every node's commit takes to append its events, is held from here
	// to this transaction's end: the newest event read now stays the newest.
	if _, err := t.Exec("SELECT pg_advisory_xact_lock($1)", eventLock); err != nil {
		return s, dbError(err, "the event lock")
	}
	if err := t.QueryRow(t.ctx, sequencesQuery).Scan(&s.Inquiry, &s.Identity, &s.Event, &at); err != nil {
		return s, dbError(err, "the sequences")
	}
	if at != nil {
		s.EventTime = at.UTC()
	}
	return s, nil
}

func (t *txn) MoveSequences(next hitl.Sequences, ev *hitl.Event) error {
	// setval's value is the last one given out: nextval gives the one after it.
	_, err := t.Exec(`SELECT setval(pg_get_serial_sequence('inquiries', 'id'), $1), setval(pg_get_serial_sequence('identities', 'id'), $2)`,
		next.Inquiry-1, next.Identity-1)
	if err != nil {
		return dbError(err, "the sequences")
	}
	if t.seqAt == nil {
		t.seqAt = make(map[*hitl.Event]int64)
	}
	t.seqAt[ev] = next.Event
	return t.AppendEvent(ev)
}

// TakeBackupMark finds no mark: pg_dump cannot write one into its dump, so a PostgreSQL
// database restored with pg_restore is told apart by hitl restore, run after it.
func (t *txn) TakeBackupMark() (time.Time, error) { return time.Time{}, nil }
