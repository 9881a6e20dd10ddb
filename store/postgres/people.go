package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/hitl-dev/hitl"
)

// People, groups and chat webhooks: where notifications go.

func (t *txn) PutPerson(p *hitl.Person) error {
	_, err := t.Exec(`INSERT INTO people (name, display_name, email, slack_user_id, channels, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO UPDATE SET display_name = excluded.display_name,
		email = excluded.email, slack_user_id = excluded.slack_user_id, channels = excluded.channels,
		updated_at = excluded.updated_at`, p.Name, p.DisplayName, p.Email, p.SlackUserID, nonNil(p.Channels), p.UpdatedAt)
	return dbError(err, "person "+p.Name)
}

func (t *txn) DeletePerson(name string) error {
	tag, err := t.Exec("DELETE FROM people WHERE name = $1", name)
	return oneRow(tag, err, "person", notFound("person "+name))
}

func (t *txn) PutGroup(g *hitl.Group) error {
	_, err := t.Exec(`INSERT INTO contact_groups (name, email, slack_channel, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (name) DO UPDATE SET email = excluded.email, slack_channel = excluded.slack_channel,
		updated_at = excluded.updated_at`, g.Name, g.Email, g.SlackChannel, g.UpdatedAt)
	return dbError(err, "group "+g.Name)
}

func (t *txn) DeleteGroup(name string) error {
	tag, err := t.Exec("DELETE FROM contact_groups WHERE name = $1", name)
	return oneRow(tag, err, "group", notFound("group "+name))
}

func (t *txn) InsertChatWebhook(w *hitl.ChatWebhook) error {
	tag, err := t.Exec(`INSERT INTO chat_webhooks (id, kind, url, events, created_by, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, w.ID, w.Kind, w.URL, nonNil(w.Events), w.CreatedBy, w.CreatedAt)
	return oneRow(tag, err, "chat webhook", hitl.Errorf(hitl.EConflict, "chat webhook %s already exists", w.ID))
}

func (t *txn) DeleteChatWebhook(id string) error {
	tag, err := t.Exec("DELETE FROM chat_webhooks WHERE id = $1", id)
	if err := oneRow(tag, err, "chat webhook", notFound("chat webhook "+id)); err != nil {
		return err
	}
	_, err = t.Exec(`DELETE FROM deliveries WHERE kind = 'notification' AND recipient = $1 AND channel = $2
		AND status = 'pending'`, id, hitl.ChannelChatWebhook)
	return dbError(err, "chat webhook deliveries")
}

func scanPerson(row pgx.Row) (*hitl.Person, error) {
	var p hitl.Person
	if err := row.Scan(&p.Name, &p.DisplayName, &p.Email, &p.SlackUserID, &p.Channels, &p.UpdatedAt); err != nil {
		return nil, err
	}
	p.UpdatedAt = p.UpdatedAt.UTC()
	return &p, nil
}

func scanGroup(row pgx.Row) (*hitl.Group, error) {
	var g hitl.Group
	if err := row.Scan(&g.Name, &g.Email, &g.SlackChannel, &g.UpdatedAt); err != nil {
		return nil, err
	}
	g.UpdatedAt = g.UpdatedAt.UTC()
	return &g, nil
}

func scanChatWebhook(row pgx.Row) (*hitl.ChatWebhook, error) {
	var w hitl.ChatWebhook
	if err := row.Scan(&w.ID, &w.Kind, &w.URL, &w.Events, &w.CreatedBy, &w.CreatedAt); err != nil {
		return nil, err
	}
	w.CreatedAt = w.CreatedAt.UTC()
	return &w, nil
}

// readAll runs a query and scans every row.
func readAll[T any](s *Store, ctx context.Context, what string, scan func(pgx.Row) (T, error), query string, args ...any) ([]T, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, dbError(err, what)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, dbError(err, what)
		}
		out = append(out, v)
	}
	return out, dbError(rows.Err(), what)
}

// readMap runs a query of (name, value) rows into a map.
func readMap[V any](s *Store, ctx context.Context, what, query string, args ...any) (map[string]V, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, dbError(err, what)
	}
	defer rows.Close()
	out := map[string]V{}
	for rows.Next() {
		var (
			k string
			v V
		)
		if err := rows.Scan(&k, &v); err != nil {
			return nil, dbError(err, what)
		}
		out[k] = v
	}
	return out, dbError(rows.Err(), what)
}

const (
	personColumns      = "name, display_name, email, slack_user_id, channels, updated_at"
	groupColumns       = "name, email, slack_channel, updated_at"
	chatWebhookColumns = "id, kind, url, events, created_by, created_at"
)

func (s *Store) Person(ctx context.Context, name string) (*hitl.Person, error) {
	p, err := scanPerson(s.pool.QueryRow(ctx, "SELECT "+personColumns+" FROM people WHERE name = $1", name))
	return p, dbError(err, "person "+name)
}

func (s *Store) People(ctx context.Context) ([]*hitl.Person, error) {
	return readAll(s, ctx, "people", scanPerson, "SELECT "+personColumns+" FROM people ORDER BY name")
}

func (s *Store) Group(ctx context.Context, name string) (*hitl.Group, error) {
	g, err := scanGroup(s.pool.QueryRow(ctx, "SELECT "+groupColumns+" FROM contact_groups WHERE name = $1", name))
	return g, dbError(err, "group "+name)
}

func (s *Store) Groups(ctx context.Context) ([]*hitl.Group, error) {
	return readAll(s, ctx, "groups", scanGroup, "SELECT "+groupColumns+" FROM contact_groups ORDER BY name")
}

func (s *Store) ChatWebhook(ctx context.Context, id string) (*hitl.ChatWebhook, error) {
	w, err := scanChatWebhook(s.pool.QueryRow(ctx, "SELECT "+chatWebhookColumns+" FROM chat_webhooks WHERE id = $1", id))
	return w, dbError(err, "chat webhook "+id)
}

func (s *Store) ChatWebhooks(ctx context.Context) ([]*hitl.ChatWebhook, error) {
	return readAll(s, ctx, "chat webhooks", scanChatWebhook, "SELECT "+chatWebhookColumns+" FROM chat_webhooks ORDER BY created_at, id")
}

func (s *Store) NotificationThread(ctx context.Context, inquiryID int64, channel, address string) (thread string, firstPending bool, err error) {
	const sameAddress = "d.inquiry_id = $1 AND d.kind = 'notification' AND d.channel = $2 AND d.address = $3"
	err = s.pool.QueryRow(ctx, `SELECT COALESCE((SELECT thread FROM deliveries d WHERE `+sameAddress+` AND status = 'delivered'
			AND thread <> '' ORDER BY ord DESC LIMIT 1), ''),
		EXISTS (SELECT 1 FROM deliveries d WHERE `+sameAddress+` AND status = 'pending' AND reason = 'created')`,
		inquiryID, channel, address).Scan(&thread, &firstPending)
	return thread, firstPending, dbError(err, "notification thread")
}
