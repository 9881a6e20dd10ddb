package sqlite

import (
	"context"
	"errors"
	"time"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

func (s *Store) InboxSessionKey(ctx context.Context, idHash string, now time.Time) (*hitl.Key, error) {
	return onReader(s, ctx, func() (*hitl.Key, error) {
		return sqlstore.One(ctx, dialect, sqlstore.SQL{Q: s.read}, "inbox session", dialect.ScanKey, `SELECT `+sqlstore.KeyColumns+`
			FROM inbox_sessions s JOIN api_keys k ON k.id = s.key_id
			WHERE s.id_hash = ? AND s.expires_at > ? AND k.revoked_at IS NULL`, idHash, micros(now))
	})
}

func (t *txn) InsertInboxSession(s *hitl.InboxSession) error {
	_, err := t.tx.ExecContext(t.ctx, "INSERT INTO inbox_sessions (id_hash, key_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
		s.IDHash, s.KeyID, micros(s.CreatedAt), micros(s.ExpiresAt))
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY {
		return notFound("key " + s.KeyID)
	}
	return dbError(err, "inbox session")
}

func (t *txn) DeleteInboxSession(idHash string) error {
	res, err := t.tx.ExecContext(t.ctx, "DELETE FROM inbox_sessions WHERE id_hash = ?", idHash)
	return oneRow(res, err, "inbox session", notFound("inbox session"))
}

func (t *txn) DeleteKeyInboxSessions(keyID string) error {
	_, err := t.tx.ExecContext(t.ctx, "DELETE FROM inbox_sessions WHERE key_id = ?", keyID)
	return dbError(err, "inbox sessions")
}

func (t *txn) DeleteExpiredInboxSessions(now time.Time) (int, error) {
	res, err := t.tx.ExecContext(t.ctx, "DELETE FROM inbox_sessions WHERE expires_at <= ?", micros(now))
	if err != nil {
		return 0, dbError(err, "inbox sessions")
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
