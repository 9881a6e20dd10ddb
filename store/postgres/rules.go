package postgres

import (
	"context"
	"errors"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

func (s *Store) Rules(ctx context.Context) ([]*hitl.Rule, error) {
	return sqlstore.Rules.List(ctx, dialect, s.db)
}

func (t *txn) InsertRule(r *hitl.Rule) error {
	doc, err := sqlstore.RuleDoc(r)
	if err != nil {
		return err
	}
	tag, err := t.Exec("INSERT INTO rules (id, created_at, doc) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
		r.ID, r.CreatedAt, doc)
	return oneRow(tag, err, "rule", hitl.Errorf(hitl.EConflict, "rule %s already exists", r.ID))
}

func (t *txn) RevokeRule(r *hitl.Rule) error {
	doc, err := sqlstore.RuleDoc(r)
	if err != nil {
		return err
	}
	tag, err := t.Exec("UPDATE rules SET revoked_at = $1, doc = $2 WHERE id = $3 AND revoked_at IS NULL",
		r.RevokedAt, doc, r.ID)
	if err := oneRow(tag, err, "rule", errNoRow); err != errNoRow {
		return err
	}
	var n int
	if err := t.QueryRow(t.ctx, "SELECT COUNT(*) FROM rules WHERE id = $1", r.ID).Scan(&n); err != nil {
		return dbError(err, "rule "+r.ID)
	}
	if n == 0 {
		return notFound("rule " + r.ID)
	}
	return hitl.Errorf(hitl.EConflict, "rule %s is revoked already", r.ID)
}

// errNoRow tells that a conditional statement touched no row.
var errNoRow = errors.New("no row")
