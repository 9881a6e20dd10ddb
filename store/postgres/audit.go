package postgres

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// insertEvent appends one event at the next seq with its link of the audit chain. It runs
// under the event lock, so the newest event it chains from is the last one committed, and
// the hash is computed by the server in the same statement that assigns the seq: the batch
// stays one round trip. The canonical JSON around the seq was made before the batch was sent
// (audit.Canonicalize); SHA-256(previous hash ‖ before ‖ seq ‖ after) is audit.Link. The next
// seq is the newest's + 1, or $10 when that is larger: a restore skips seqs (MoveSequences).
const insertEvent = `INSERT INTO events (seq, id, type, time, inquiry_id, session, actor, data, hash)
	SELECT s.seq, $1, $2, $3, $4, $5, $6, $7,
		sha256(COALESCE(h.hash, decode(repeat('00', 32), 'hex')) || $8::bytea || convert_to(s.seq::text, 'UTF8') || $9::bytea)
	FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1) h ON true
	CROSS JOIN LATERAL (SELECT GREATEST(COALESCE(h.seq, 0) + 1, $10::bigint) AS seq) s
	RETURNING seq`

// queueInsertEvent queues the insert of ev at the next seq, or at seq at when it is larger.
func queueInsertEvent(b *pgx.Batch, ev *hitl.Event, at int64) {
	c := audit.Canonicalize(ev)
	b.Queue(insertEvent, ev.ID, ev.Type, ev.Time, ev.InquiryID, nullText(ev.Session), ev.Actor, string(ev.Data), c.Before, c.After, at).
		QueryRow(func(row pgx.Row) error { return row.Scan(&ev.Seq) })
}

// ChainedEvents reads the log with its hashes a page at a time.
func (s *Store) ChainedEvents(ctx context.Context, after int64, fn func(ev *hitl.Event, hash []byte) error) error {
	return sqlstore.ChainedEvents(after, func(after int64) ([]sqlstore.Chained, error) { return dialect.ChainedPage(ctx, s.logDB, after) }, fn)
}

// addEventHashes is migration 13: the events get their audit chain. The events written before
// it are chained here, in seq order, as new ones are, so that an upgraded database verifies
// from its first event. From here on every event has its hash: a node of an older hitl can no
// longer append to this database (its events would break the chain), so upgrade every node.
func addEventHashes(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "ALTER TABLE events ADD COLUMN hash BYTEA"); err != nil {
		return err
	}
	err := audit.Rechain(func(after int64) ([]*hitl.Event, error) {
		page, err := dialect.ChainedPage(ctx, sqlstore.SQL{Q: tx}, after)
		return sqlstore.Events(page), err
	}, func(seq int64, h audit.Hash) error {
		_, err := tx.ExecContext(ctx, "UPDATE events SET hash = $1 WHERE seq = $2", h[:], seq)
		return err
	})
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, "ALTER TABLE events ALTER COLUMN hash SET NOT NULL")
	return err
}
