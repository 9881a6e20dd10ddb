package postgres

import (
	"context"
	"encoding/json"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// Templates: the template's request is kept whole as JSON in doc.

func (t *txn) PutTemplate(tpl *hitl.Template) (created bool, err error) {
	doc, err := json.Marshal(tpl.TemplateRequest)
	if err != nil {
		return false, err
	}
	what := "template " + tpl.Name
	// Insert, and only when the name is taken replace it: the created_at of a template that
	// is replaced stays the one of its first version. Two nodes creating one name at once:
	// the second insert waits for the first to commit, does nothing, and replaces it.
	tag, err := t.Exec(`INSERT INTO templates (name, doc, created_at, updated_at, updated_by)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING`, tpl.Name, string(doc), tpl.CreatedAt, tpl.UpdatedAt, tpl.UpdatedBy)
	if err != nil {
		return false, dbError(err, what)
	}
	if tag.RowsAffected() == 1 {
		return true, nil
	}
	err = t.QueryRow(t.ctx, `UPDATE templates SET doc = $1, updated_at = $2, updated_by = $3 WHERE name = $4 RETURNING created_at`,
		string(doc), tpl.UpdatedAt, tpl.UpdatedBy, tpl.Name).Scan(&tpl.CreatedAt)
	tpl.CreatedAt = tpl.CreatedAt.UTC()
	return false, dbError(err, what)
}

func (t *txn) DeleteTemplate(name string) error {
	tag, err := t.Exec("DELETE FROM templates WHERE name = $1", name)
	return oneRow(tag, err, "template", notFound("template "+name))
}

func (s *Store) Template(ctx context.Context, name string) (*hitl.Template, error) {
	return sqlstore.Templates.Get(ctx, dialect, s.db, name)
}

func (s *Store) Templates(ctx context.Context) ([]*hitl.Template, error) {
	return sqlstore.Templates.List(ctx, dialect, s.db)
}

// Push configs.

func (t *txn) PutPushConfig(c *hitl.PushConfig) error {
	_, err := t.Exec(`INSERT INTO push_configs (inquiry_id, id, url, token, version, created_by, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (inquiry_id, id) DO UPDATE SET url = excluded.url, token = excluded.token, version = excluded.version`,
		c.InquiryID, c.ID, c.URL, c.Token, c.Version, c.CreatedBy, c.CreatedAt)
	return dbError(err, "push config "+c.ID)
}

func (t *txn) InquiryPushConfigs(inquiryID int64) ([]*hitl.PushConfig, error) {
	return dialect.PushConfigs(t.ctx, pgDB{q: t}, []int64{inquiryID})
}

func (t *txn) DeletePushConfig(inquiryID int64, id string) error {
	tag, err := t.Exec("DELETE FROM push_configs WHERE inquiry_id = $1 AND id = $2", inquiryID, id)
	return oneRow(tag, err, "push config", notFound("push config "+id))
}

func (s *Store) PushConfigs(ctx context.Context, inquiryIDs []int64) ([]*hitl.PushConfig, error) {
	return dialect.PushConfigs(ctx, s.db, inquiryIDs)
}
