package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// chainHead is the newest event of the audit chain as the writer's transaction sees it: read
// once per batch, at its first event, and moved by each event the batch appends (and back
// when a change rolls back to its savepoint). The writer holds the database's write lock for
// the whole batch, so no one else can append in between.
type chainHead struct {
	seq   int64
	hash  audit.Hash
	known bool
}

func (b *batchTx) chainHead(ctx context.Context) (*chainHead, error) {
	if b.head.known {
		return &b.head, nil
	}
	var stored []byte
	err := b.QueryRowContext(ctx, "SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").Scan(&b.head.seq, &stored)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		b.head.seq, b.head.hash = 0, audit.Genesis
	case err != nil:
		return nil, dbError(err, "the newest event")
	default:
		// An event without a hash (written by an older hitl) breaks the chain there, and
		// verification says so; the events after it still chain on.
		copy(b.head.hash[:], stored)
	}
	b.head.known = true
	return &b.head, nil
}

// AppendEvent inserts the event at the next seq with its link of the audit chain.
func (t *txn) AppendEvent(ev *hitl.Event) error {
	canonical := audit.Canonicalize(ev)
	head, err := t.tx.chainHead(t.ctx)
	if err != nil {
		return err
	}
	seq := head.seq + 1
	hash := audit.Link(head.hash, canonical, seq)
	var session sql.NullString
	if ev.Session != "" {
		session = sql.NullString{String: ev.Session, Valid: true}
	}
	var inquiryID sql.NullInt64
	if ev.InquiryID != nil {
		inquiryID = sql.NullInt64{Int64: *ev.InquiryID, Valid: true}
	}
	_, err = t.tx.ExecContext(t.ctx, "INSERT INTO events (seq, id, type, time, inquiry_id, session, actor, data, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
		seq, ev.ID, ev.Type, micros(ev.Time), inquiryID, session, ev.Actor, string(ev.Data), hash[:])
	if err != nil {
		return dbError(err, "event")
	}
	ev.Seq = seq
	head.seq, head.hash = seq, hash
	return nil
}

// ChainedEvents reads the log with its hashes a page at a time, and calls fn off the reader.
func (s *Store) ChainedEvents(ctx context.Context, after int64, fn func(ev *hitl.Event, hash []byte) error) error {
	return sqlstore.ChainedEvents(after, func(after int64) ([]sqlstore.Chained, error) {
		return onReader(s, ctx, func() ([]sqlstore.Chained, error) { return dialect.ChainedPage(ctx, sqlstore.SQL{Q: s.read}, after) })
	}, fn)
}

// addEventHashes is migration 13: the events get their audit chain. The events written before
// it are chained here, in seq order, as the writer chains new ones, so that a database that
// was upgraded verifies from its first event.
func addEventHashes(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "ALTER TABLE events ADD COLUMN hash BLOB"); err != nil {
		return err
	}
	return audit.Rechain(func(after int64) ([]*hitl.Event, error) {
		page, err := dialect.ChainedPage(ctx, sqlstore.SQL{Q: tx}, after)
		return sqlstore.Events(page), err
	}, func(seq int64, h audit.Hash) error {
		_, err := tx.ExecContext(ctx, "UPDATE events SET hash = ? WHERE seq = ?", h[:], seq)
		return err
	})
}
