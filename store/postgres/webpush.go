package postgres

import (
	"context"
	"time"

	"github.com/hitl-dev/hitl"
)

// Web Push subscriptions and the uses of their action tokens.

func (t *txn) PutWebPushSubscription(s *hitl.PushSubscription) error {
	_, err := t.Exec(`INSERT INTO web_push_subscriptions (endpoint, person, p256dh, auth, expires_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (endpoint) DO UPDATE SET person = excluded.person, p256dh = excluded.p256dh,
		auth = excluded.auth, expires_at = excluded.expires_at, created_at = excluded.created_at`,
		s.Endpoint, s.Person, s.P256DH, s.Auth, s.ExpiresAt, s.CreatedAt)
	return dbError(err, "web push subscription")
}

func (t *txn) DeleteWebPushSubscription(endpoint string) error {
	tag, err := t.Exec("DELETE FROM web_push_subscriptions WHERE endpoint = $1", endpoint)
	return oneRow(tag, err, "web push subscription", notFound("web push subscription"))
}

func (t *txn) UseWebPushAction(id string, expires time.Time) error {
	tag, err := t.Exec("INSERT INTO web_push_action_uses (id, expires_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING", id, expires)
	return oneRow(tag, err, "web push action", hitl.Errorf(hitl.EConflict, "this notification's action was used already: it answers once"))
}

func (t *txn) DeleteWebPushActionUses(before time.Time, limit int) (int, error) {
	tag, err := t.Exec(`DELETE FROM web_push_action_uses WHERE id IN
		(SELECT id FROM web_push_action_uses WHERE expires_at < $1 LIMIT $2)`, before, limit)
	if err != nil {
		return 0, dbError(err, "web push action uses")
	}
	return int(tag.RowsAffected()), nil
}

func (s *Store) WebPushSubscriptions(ctx context.Context, people []string) ([]*hitl.PushSubscription, error) {
	return dialect.WebPushSubscriptions(ctx, s.db, people)
}

func (s *Store) WebPushSubscription(ctx context.Context, endpoint string) (*hitl.PushSubscription, error) {
	return dialect.WebPushSubscription(ctx, s.db, endpoint)
}

func (t *txn) RecordView(inquiryID int64, person string, at time.Time) error {
	_, err := t.Exec("INSERT INTO inquiry_views (inquiry_id, person, viewed_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", inquiryID, person, at)
	return dbError(err, "first view")
}
