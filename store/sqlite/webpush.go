package sqlite

import (
	"context"
	"time"

	"github.com/hitl-dev/hitl"
)

// Web Push subscriptions and the uses of their action tokens.

func (t *txn) PutWebPushSubscription(s *hitl.PushSubscription) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO web_push_subscriptions (endpoint, person, p256dh, auth, expires_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (endpoint) DO UPDATE SET person = excluded.person, p256dh = excluded.p256dh,
		auth = excluded.auth, expires_at = excluded.expires_at, created_at = excluded.created_at`,
		s.Endpoint, s.Person, s.P256DH, s.Auth, nullMicros(s.ExpiresAt), micros(s.CreatedAt))
	return dbError(err, "web push subscription")
}

func (t *txn) DeleteWebPushSubscription(endpoint string) error {
	res, err := t.tx.ExecContext(t.ctx, "DELETE FROM web_push_subscriptions WHERE endpoint = ?", endpoint)
	return oneRow(res, err, "web push subscription", notFound("web push subscription"))
}

func (t *txn) UseWebPushAction(id string, expires time.Time) error {
	res, err := t.tx.ExecContext(t.ctx, "INSERT INTO web_push_action_uses (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", id, micros(expires))
	return oneRow(res, err, "web push action", hitl.Errorf(hitl.EConflict, "this notification's action was used already: it answers once"))
}

func (t *txn) DeleteWebPushActionUses(before time.Time, limit int) (int, error) {
	res, err := t.tx.ExecContext(t.ctx, `DELETE FROM web_push_action_uses WHERE id IN
		(SELECT id FROM web_push_action_uses WHERE expires_at < ? LIMIT ?)`, micros(before), limit)
	if err != nil {
		return 0, dbError(err, "web push action uses")
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func (s *Store) WebPushSubscriptions(ctx context.Context, people []string) ([]*hitl.PushSubscription, error) {
	return readBy(s, ctx, dialect.WebPushSubscriptions, people)
}

func (s *Store) WebPushSubscription(ctx context.Context, endpoint string) (*hitl.PushSubscription, error) {
	return readBy(s, ctx, dialect.WebPushSubscription, endpoint)
}

func (t *txn) RecordView(inquiryID int64, person string, at time.Time) error {
	_, err := t.tx.ExecContext(t.ctx, "INSERT INTO inquiry_views (inquiry_id, person, viewed_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
		inquiryID, person, micros(at))
	return dbError(err, "first view")
}
