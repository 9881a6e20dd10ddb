package postgres

import (
	"context"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// People, groups and chat webhooks: where notifications go.

func (t *txn) PutPerson(p *hitl.Person) error {
	hours, err := sqlstore.WorkingHoursText(p.WorkingHours)
	if err != nil {
		return err
	}
	_, err = t.Exec(`INSERT INTO people (name, display_name, email, slack_user_id, channels, time_zone, working_hours, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (name) DO UPDATE SET display_name = excluded.display_name,
		email = excluded.email, slack_user_id = excluded.slack_user_id, channels = excluded.channels,
		time_zone = excluded.time_zone, working_hours = excluded.working_hours,
		updated_at = excluded.updated_at`, p.Name, p.DisplayName, p.Email, p.SlackUserID, nonNil(p.Channels), p.TimeZone, hours, p.UpdatedAt)
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

func (t *txn) PutAbsence(a *hitl.Absence) error {
	_, err := t.Exec(`INSERT INTO absences (person, starts_at, ends_at, delegate, set_by, set_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (person) DO UPDATE SET starts_at = excluded.starts_at,
		ends_at = excluded.ends_at, delegate = excluded.delegate, set_by = excluded.set_by, set_at = excluded.set_at`,
		a.Person, a.From, a.Until, a.Delegate, a.SetBy, a.SetAt)
	return dbError(err, "absence of "+a.Person)
}

func (t *txn) DeleteAbsence(person string) error {
	tag, err := t.Exec("DELETE FROM absences WHERE person = $1", person)
	return oneRow(tag, err, "absence", notFound(person+" has no absence set"))
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

func (s *Store) Person(ctx context.Context, name string) (*hitl.Person, error) {
	return sqlstore.People.Get(ctx, dialect, s.db, name)
}

func (s *Store) People(ctx context.Context) ([]*hitl.Person, error) {
	return sqlstore.People.List(ctx, dialect, s.db)
}

func (s *Store) Group(ctx context.Context, name string) (*hitl.Group, error) {
	return sqlstore.Groups.Get(ctx, dialect, s.db, name)
}

func (s *Store) Groups(ctx context.Context) ([]*hitl.Group, error) {
	return sqlstore.Groups.List(ctx, dialect, s.db)
}

func (s *Store) Absences(ctx context.Context) ([]*hitl.Absence, error) {
	return sqlstore.Absences.List(ctx, dialect, s.db)
}

func (s *Store) ChatWebhook(ctx context.Context, id string) (*hitl.ChatWebhook, error) {
	return sqlstore.ChatWebhooks.Get(ctx, dialect, s.db, id)
}

func (s *Store) ChatWebhooks(ctx context.Context) ([]*hitl.ChatWebhook, error) {
	return sqlstore.ChatWebhooks.List(ctx, dialect, s.db)
}

func (s *Store) Notified(ctx context.Context, inquiryID int64) ([]hitl.Notified, error) {
	return dialect.Notified(ctx, s.db, inquiryID)
}

func (s *Store) NotificationThread(ctx context.Context, inquiryID int64, channel, address string) (string, bool, error) {
	return dialect.NotificationThread(ctx, s.db, inquiryID, channel, address)
}
