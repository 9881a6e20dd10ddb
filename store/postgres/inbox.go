package postgres

import (
	"context"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

func (s *Store) InboxSessionKey(ctx context.Context, idHash string, now time.Time) (*hitl.Key, error) {
	return sqlstore.One(ctx, dialect, s.db, "inbox session", dialect.ScanKey, `SELECT `+sqlstore.KeyColumns+`
		FROM inbox_sessions s JOIN api_keys k ON k.id = s.key_id
		WHERE s.id_hash = $1 AND s.expires_at > $2 AND k.revoked_at IS NULL`, idHash, now)
}

// InsertInboxSession reports a missing key or a taken id without a failed statement, which
// would abort the whole transaction.
func (t *txn) InsertInboxSession(s *hitl.InboxSession) error {
	var keyFound, inserted bool
	err := t.QueryRow(t.ctx, `WITH k AS (SELECT id FROM api_keys WHERE id = $2),
		ins AS (INSERT INTO inbox_sessions (id_hash, key_id, created_at, expires_at)
			SELECT $1, id, $3, $4 FROM k ON CONFLICT DO NOTHING RETURNING 1)
		SELECT EXISTS (SELECT 1 FROM k), EXISTS (SELECT 1 FROM ins)`, s.IDHash, s.KeyID, s.CreatedAt, s.ExpiresAt).Scan(&keyFound, &inserted)
	switch {
	case err != nil:
		return dbError(err, "inbox session")
	case !keyFound:
		return notFound("key " + s.KeyID)
	case !inserted:
		return hitl.Errorf(hitl.EConflict, "inbox session already exists")
	}
	return nil
}

func (t *txn) DeleteInboxSession(idHash string) error {
	tag, err := t.Exec("DELETE FROM inbox_sessions WHERE id_hash = $1", idHash)
	return oneRow(tag, err, "inbox session", notFound("inbox session"))
}

func (t *txn) DeleteKeyInboxSessions(keyID string) error {
	_, err := t.Exec("DELETE FROM inbox_sessions WHERE key_id = $1", keyID)
	return dbError(err, "inbox sessions")
}

func (t *txn) DeleteExpiredInboxSessions(now time.Time) (int, error) {
	tag, err := t.Exec("DELETE FROM inbox_sessions WHERE expires_at <= $1", now)
	if err != nil {
		return 0, dbError(err, "inbox sessions")
	}
	return int(tag.RowsAffected()), nil
}
