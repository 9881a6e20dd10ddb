package postgres

import (
	"context"

	"github.com/hitl-dev/hitl"
)

// Identity inserts and then reads in two statements: when another node gives the name its
// identity at the same moment, the insert waits for that node's commit and does nothing, and
// only a statement that starts after it sees that node's row.
func (t *txn) Identity(name string) (int64, error) {
	if _, err := t.Exec("INSERT INTO identities (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", name); err != nil {
		return 0, dbError(err, "identity of "+name)
	}
	var id int64
	err := t.QueryRow(t.ctx, "SELECT id FROM identities WHERE name = $1", name).Scan(&id)
	return id, dbError(err, "identity of "+name)
}

func (t *txn) ExecutionInquiry(execution string) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, "SELECT inquiry_id FROM execution_inquiries WHERE execution = $1", execution).Scan(&id)
	return id, dbError(err, "inquiry of execution "+execution)
}

// InsertExecutionInquiry reports a taken execution without a failed statement, which would
// abort the whole transaction.
func (t *txn) InsertExecutionInquiry(execution string, inquiryID int64) error {
	tag, err := t.Exec("INSERT INTO execution_inquiries (execution, inquiry_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", execution, inquiryID)
	return oneRow(tag, err, "inquiry of execution "+execution, hitl.Errorf(hitl.EConflict, "execution %s has an inquiry already", execution))
}

func (s *Store) IdentityName(ctx context.Context, id int64) (string, error) {
	return dialect.IdentityName(ctx, s.db, id)
}

func (s *Store) IdentityIDs(ctx context.Context, names []string) (map[string]int64, error) {
	return dialect.IdentityIDs(ctx, s.db, names)
}
