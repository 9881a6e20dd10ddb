package sqlite

import (
	"context"
	"encoding/json"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// People, groups and chat webhooks: where notifications go.

func (t *txn) PutPerson(p *hitl.Person) error {
	channels, err := json.Marshal(nonNilStrings(p.Channels))
	if err != nil {
		return err
	}
	hours, err := sqlstore.WorkingHoursText(p.WorkingHours)
	if err != nil {
		return err
	}
	_, err = t.tx.ExecContext(t.ctx, `INSERT INTO people (name, display_name, email, slack_user_id, channels, time_zone, working_hours, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET display_name = excluded.display_name,
		email = excluded.email, slack_user_id = excluded.slack_user_id, channels = excluded.channels,
		time_zone = excluded.time_zone, working_hours = excluded.working_hours,
		updated_at = excluded.updated_at`, p.Name, p.DisplayName, p.Email, p.SlackUserID, string(channels), p.TimeZone, hours, micros(p.UpdatedAt))
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

func (t *txn) PutAbsence(a *hitl.Absence) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO absences (person, starts_at, ends_at, delegate, set_by, set_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (person) DO UPDATE SET starts_at = excluded.starts_at,
		ends_at = excluded.ends_at, delegate = excluded.delegate, set_by = excluded.set_by, set_at = excluded.set_at`,
		a.Person, micros(a.From), micros(a.Until), a.Delegate, a.SetBy, micros(a.SetAt))
	return dbError(err, "absence of "+a.Person)
}

func (t *txn) DeleteAbsence(person string) error {
	res, err := t.tx.ExecContext(t.ctx, "DELETE FROM absences WHERE person = ?", person)
	return oneRow(res, err, "absence", notFound(person+" has no absence set"))
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

func (s *Store) Person(ctx context.Context, name string) (*hitl.Person, error) {
	return readRow(s, ctx, sqlstore.People, name)
}

func (s *Store) People(ctx context.Context) ([]*hitl.Person, error) {
	return readTable(s, ctx, sqlstore.People)
}

func (s *Store) Group(ctx context.Context, name string) (*hitl.Group, error) {
	return readRow(s, ctx, sqlstore.Groups, name)
}

func (s *Store) Groups(ctx context.Context) ([]*hitl.Group, error) {
	return readTable(s, ctx, sqlstore.Groups)
}

func (s *Store) Absences(ctx context.Context) ([]*hitl.Absence, error) {
	return readTable(s, ctx, sqlstore.Absences)
}

func (s *Store) ChatWebhook(ctx context.Context, id string) (*hitl.ChatWebhook, error) {
	return readRow(s, ctx, sqlstore.ChatWebhooks, id)
}

func (s *Store) ChatWebhooks(ctx context.Context) ([]*hitl.ChatWebhook, error) {
	return readTable(s, ctx, sqlstore.ChatWebhooks)
}

func (s *Store) Notified(ctx context.Context, inquiryID int64) ([]hitl.Notified, error) {
	return readBy(s, ctx, dialect.Notified, inquiryID)
}

func (s *Store) NotificationThread(ctx context.Context, inquiryID int64, channel, address string) (string, bool, error) {
	type result struct {
		thread  string
		pending bool
	}
	r, err := onReader(s, ctx, func() (r result, err error) {
		r.thread, r.pending, err = dialect.NotificationThread(ctx, sqlstore.SQL{Q: s.read}, inquiryID, channel, address)
		return r, err
	})
	return r.thread, r.pending, err
}
