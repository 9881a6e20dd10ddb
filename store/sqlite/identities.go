package sqlite

import (
	"context"
)

func (t *txn) Identity(name string) (int64, error) {
	if _, err := t.tx.ExecContext(t.ctx, "INSERT INTO identities (name) VALUES (?) ON CONFLICT (name) DO NOTHING", name); err != nil {
		return 0, dbError(err, "identity of "+name)
	}
	var id int64
	err := t.tx.QueryRowContext(t.ctx, "SELECT id FROM identities WHERE name = ?", name).Scan(&id)
	return id, dbError(err, "identity of "+name)
}

func (t *txn) ExecutionInquiry(execution string) (int64, error) {
	var id int64
	err := t.tx.QueryRowContext(t.ctx, "SELECT inquiry_id FROM execution_inquiries WHERE execution = ?", execution).Scan(&id)
	return id, dbError(err, "inquiry of execution "+execution)
}

func (t *txn) InsertExecutionInquiry(execution string, inquiryID int64) error {
	_, err := t.tx.ExecContext(t.ctx, "INSERT INTO execution_inquiries (execution, inquiry_id) VALUES (?, ?)", execution, inquiryID)
	return dbError(err, "inquiry of execution "+execution)
}

func (s *Store) IdentityName(ctx context.Context, id int64) (string, error) {
	return readBy(s, ctx, dialect.IdentityName, id)
}

func (s *Store) IdentityIDs(ctx context.Context, names []string) (map[string]int64, error) {
	return readBy(s, ctx, dialect.IdentityIDs, names)
}
