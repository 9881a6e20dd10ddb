package sqlite

import (
	"context"
	"encoding/json"

	"github.com/hitl-dev/hitl"
)

// People, groups and chat webhooks: where notifications go.

func (t *txn) PutPerson(p *hitl.Person) error {
	channels, err := json.Marshal(nonNilStrings(p.Channels))
	if err != nil {
		return err
	}
	_, err = t.tx.ExecContext(t.ctx, `INSERT INTO people (name, display_name, email, slack_user_id, channels, updated_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET display_name = excluded.display_name,
		email = excluded.email, slack_user_id = excluded.slack_user_id, channels = excluded.channels,
		updated_at = excluded.updated_at`, p.Name, p.DisplayName, p.Email, p.SlackUserID, string(channels), micros(p.UpdatedAt))
	return dbError(err, "person "+p.Name)
}

func (t *txn) DeletePerson(name string) error {
	res, err := t.tx.ExecContext(t.ctx, "DELETE FROM people WHERE name = ?", name)
	return oneRow(res, err, "person", notFound("person "+name))
}

func (t *txn) PutGroup(g *hitl.Group) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO contact_groups (name, email, slack_channel, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET email = excluded.email, slack_channel = excluded.slack_channel,
		updated_at = excluded.updated_at`, g.Name, g.Email, g.SlackChannel, micros(g.UpdatedAt))
	return dbError(err, "group "+g.Name)
}

func (t *txn) DeleteGroup(name string) error {
	res, err := t.tx.ExecContext(t.ctx, "DELETE FROM contact_groups WHERE name = ?", name)
	return oneRow(res, err, "group", notFound("group "+name))
}

func (t *txn) InsertChatWebhook(w *hitl.ChatWebhook) error {
	events, err := json.Marshal(nonNilStrings(w.Events))
	if err != nil {
		return err
	}
	_, err = t.tx.ExecContext(t.ctx, `INSERT INTO chat_webhooks (id, kind, url, events, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, w.ID, w.Kind, w.URL, string(events), w.CreatedBy, micros(w.CreatedAt))
	return dbError(err, "chat webhook "+w.ID)
}

func (t *txn) DeleteChatWebhook(id string) error {
	res, err := t.tx.ExecContext(t.ctx, "DELETE FROM chat_webhooks WHERE id = ?", id)
	if err := oneRow(res, err, "chat webhook", notFound("chat webhook "+id)); err != nil {
		return err
	}
	_, err = t.tx.ExecContext(t.ctx, `DELETE FROM deliveries WHERE kind = 'notification' AND recipient = ? AND channel = ?
		AND status = 'pending'`, id, hitl.ChannelChatWebhook)
	return dbError(err, "chat webhook deliveries")
}

func nonNilStrings(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

type scanner interface{ Scan(...any) error }

func scanPerson(sc scanner) (*hitl.Person, error) {
	var (
		p        hitl.Person
		channels string
		updated  int64
	)
	if err := sc.Scan(&p.Name, &p.DisplayName, &p.Email, &p.SlackUserID, &channels, &updated); err != nil {
		return nil, err
	}
	p.UpdatedAt = fromMicros(updated)
	return &p, json.Unmarshal([]byte(channels), &p.Channels)
}

func scanGroup(sc scanner) (*hitl.Group, error) {
	var (
		g       hitl.Group
		updated int64
	)
	if err := sc.Scan(&g.Name, &g.Email, &g.SlackChannel, &updated); err != nil {
		return nil, err
	}
	g.UpdatedAt = fromMicros(updated)
	return &g, nil
}

func scanChatWebhook(sc scanner) (*hitl.ChatWebhook, error) {
	var (
		w       hitl.ChatWebhook
		events  string
		created int64
	)
	if err := sc.Scan(&w.ID, &w.Kind, &w.URL, &events, &w.CreatedBy, &created); err != nil {
		return nil, err
	}
	w.CreatedAt = fromMicros(created)
	return &w, json.Unmarshal([]byte(events), &w.Events)
}

// readAll runs a query on the reader and scans every row.
func readAll[T any](s *Store, ctx context.Context, what string, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	return onReader(s, ctx, func() ([]T, error) {
		rows, err := s.read.QueryContext(ctx, query, args...)
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
	})
}

// readOne runs a query for one row on the reader.
func readOne[T any](s *Store, ctx context.Context, what string, scan func(scanner) (T, error), query string, args ...any) (T, error) {
	return onReader(s, ctx, func() (T, error) {
		v, err := scan(s.read.QueryRowContext(ctx, query, args...))
		return v, dbError(err, what)
	})
}

const (
	personColumns      = "name, display_name, email, slack_user_id, channels, updated_at"
	groupColumns       = "name, email, slack_channel, updated_at"
	chatWebhookColumns = "id, kind, url, events, created_by, created_at"
)

func (s *Store) Person(ctx context.Context, name string) (*hitl.Person, error) {
	return readOne(s, ctx, "person "+name, scanPerson, "SELECT "+personColumns+" FROM people WHERE name = ?", name)
}

func (s *Store) People(ctx context.Context) ([]*hitl.Person, error) {
	return readAll(s, ctx, "people", scanPerson, "SELECT "+personColumns+" FROM people ORDER BY name")
}

func (s *Store) Group(ctx context.Context, name string) (*hitl.Group, error) {
	return readOne(s, ctx, "group "+name, scanGroup, "SELECT "+groupColumns+" FROM contact_groups WHERE name = ?", name)
}

func (s *Store) Groups(ctx context.Context) ([]*hitl.Group, error) {
	return readAll(s, ctx, "groups", scanGroup, "SELECT "+groupColumns+" FROM contact_groups ORDER BY name")
}

func (s *Store) ChatWebhook(ctx context.Context, id string) (*hitl.ChatWebhook, error) {
	return readOne(s, ctx, "chat webhook "+id, scanChatWebhook, "SELECT "+chatWebhookColumns+" FROM chat_webhooks WHERE id = ?", id)
}

func (s *Store) ChatWebhooks(ctx context.Context) ([]*hitl.ChatWebhook, error) {
	return readAll(s, ctx, "chat webhooks", scanChatWebhook, "SELECT "+chatWebhookColumns+" FROM chat_webhooks ORDER BY created_at, id")
}

func (s *Store) NotificationThread(ctx context.Context, inquiryID int64, channel, address string) (string, bool, error) {
	type result struct {
		thread  string
		pending bool
	}
	r, err := readOne(s, ctx, "notification thread", func(sc scanner) (r result, err error) {
		return r, sc.Scan(&r.thread, &r.pending)
	}, `SELECT COALESCE((SELECT thread FROM deliveries d WHERE `+sameAddress+` AND status = 'delivered' AND thread <> ''
			ORDER BY ord DESC LIMIT 1), ''),
		EXISTS (SELECT 1 FROM deliveries d WHERE `+sameAddress+` AND status = 'pending' AND reason = 'created')`,
		inquiryID, channel, address, inquiryID, channel, address)
	return r.thread, r.pending, err
}

// sameAddress selects an inquiry's notifications by one channel to one address.
const sameAddress = "d.inquiry_id = ? AND d.kind = 'notification' AND d.channel = ? AND d.address = ?"
