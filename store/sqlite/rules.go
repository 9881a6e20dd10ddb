package sqlite

import (
	"context"
	"errors"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

func (s *Store) Rules(ctx context.Context) ([]*hitl.Rule, error) {
	return readTable(s, ctx, sqlstore.Rules)
}

func (t *txn) InsertRule(r *hitl.Rule) error {
	doc, err := sqlstore.RuleDoc(r)
	if err != nil {
		return err
	}
	res, err := t.tx.ExecContext(t.ctx, "INSERT INTO rules (id, created_at, doc) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
		r.ID, micros(r.CreatedAt), doc)
	return oneRow(res, err, "rule", hitl.Errorf(hitl.EConflict, "rule %s already exists", r.ID))
}

func (t *txn) RevokeRule(r *hitl.Rule) error {
	doc, err := sqlstore.RuleDoc(r)
	if err != nil {
		return err
	}
	res, err := t.tx.ExecContext(t.ctx, "UPDATE rules SET revoked_at = ?, doc = ? WHERE id = ? AND revoked_at IS NULL",
		nullMicros(r.RevokedAt), doc, r.ID)
	if err := oneRow(res, err, "rule", errNoRow); err != errNoRow {
		return err
	}
	var n int
	if err := t.tx.QueryRowContext(t.ctx, "SELECT COUNT(*) FROM rules WHERE id = ?", r.ID).Scan(&n); err != nil {
		return dbError(err, "rule "+r.ID)
	}
	if n == 0 {
		return notFound("rule " + r.ID)
	}
	return hitl.Errorf(hitl.EConflict, "rule %s is revoked already", r.ID)
}

// errNoRow tells that a conditional statement touched no row.
var errNoRow = errors.New("no row")
