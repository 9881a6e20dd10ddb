package sqlite

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
	// is replaced stays the one of its first version.
	res, err := t.tx.ExecContext(t.ctx, `INSERT INTO templates (name, doc, created_at, updated_at, updated_by)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`, tpl.Name, string(doc), micros(tpl.CreatedAt), micros(tpl.UpdatedAt), tpl.UpdatedBy)
	if err != nil {
		return false, dbError(err, what)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return true, nil
	}
	var createdAt int64
	err = t.tx.QueryRowContext(t.ctx, `UPDATE templates SET doc = ?, updated_at = ?, updated_by = ? WHERE name = ? RETURNING created_at`,
		string(doc), micros(tpl.UpdatedAt), tpl.UpdatedBy, tpl.Name).Scan(&createdAt)
	tpl.CreatedAt = fromMicros(createdAt)
	return false, dbError(err, what)
}

func (t *txn) DeleteTemplate(name string) error {
	res, err := t.tx.ExecContext(t.ctx, "DELETE FROM templates WHERE name = ?", name)
	return oneRow(res, err, "template", notFound("template "+name))
}

func (s *Store) Template(ctx context.Context, name string) (*hitl.Template, error) {
	return readRow(s, ctx, sqlstore.Templates, name)
}

func (s *Store) Templates(ctx context.Context) ([]*hitl.Template, error) {
	return readTable(s, ctx, sqlstore.Templates)
}

// Push configs.

func (t *txn) PutPushConfig(c *hitl.PushConfig) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO push_configs (inquiry_id, id, url, token, version, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (inquiry_id, id) DO UPDATE SET url = excluded.url, token = excluded.token, version = excluded.version`,
		c.InquiryID, c.ID, c.URL, c.Token, c.Version, c.CreatedBy, micros(c.CreatedAt))
	return dbError(err, "push config "+c.ID)
}

func (t *txn) InquiryPushConfigs(inquiryID int64) ([]*hitl.PushConfig, error) {
	return dialect.PushConfigs(t.ctx, sqlstore.SQL{Q: t.tx}, []int64{inquiryID})
}

func (t *txn) DeletePushConfig(inquiryID int64, id string) error {
	res, err := t.tx.ExecContext(t.ctx, "DELETE FROM push_configs WHERE inquiry_id = ? AND id = ?", inquiryID, id)
	return oneRow(res, err, "push config", notFound("push config "+id))
}

func (s *Store) PushConfigs(ctx context.Context, inquiryIDs []int64) ([]*hitl.PushConfig, error) {
	return readBy(s, ctx, dialect.PushConfigs, inquiryIDs)
}
