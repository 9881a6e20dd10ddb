package postgres

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// Webhooks and the outbox of deliveries.

func (t *txn) InsertWebhook(w *hitl.Webhook) error {
	tag, err := t.Exec(`INSERT INTO webhooks (id, url, events, description, secret, created_by, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
		w.ID, w.URL, nonNil(w.Events), w.Description, w.Secret, w.CreatedBy, w.CreatedAt)
	return oneRow(tag, err, "webhook", hitl.Errorf(hitl.EConflict, "webhook %s already exists", w.ID))
}

func (t *txn) DeleteWebhook(id string) error {
	tag, err := t.Exec("DELETE FROM webhooks WHERE id = $1", id)
	return oneRow(tag, err, "webhook", notFound("webhook "+id))
}

// AdvanceOutboxCursor takes the cursor's row lock without waiting: when another node holds it,
// that node is moving the cursor, and this one's deliveries would be duplicates.
func (t *txn) AdvanceOutboxCursor(from, to int64) error {
	var seq int64
	if err := t.QueryRow(t.ctx, "SELECT seq FROM outbox_cursor WHERE id = 1 FOR UPDATE NOWAIT").Scan(&seq); err != nil {
		return dbError(err, "outbox cursor")
	}
	if seq != from {
		return hitl.Errorf(hitl.EConflict, "the outbox cursor has moved")
	}
	_, err := t.Exec("UPDATE outbox_cursor SET seq = $1 WHERE id = 1", to)
	return dbError(err, "outbox cursor")
}

func (t *txn) InsertDelivery(d *hitl.Delivery) error {
	tag, err := t.insertDelivery(d)
	return oneRow(tag, err, "delivery", hitl.Errorf(hitl.EConflict, "delivery %s already exists", d.ID))
}

func (t *txn) InsertNotification(d *hitl.Delivery) error {
	_, err := t.insertDelivery(d)
	return dbError(err, "delivery "+d.ID)
}

func (t *txn) insertDelivery(d *hitl.Delivery) (pgconn.CommandTag, error) {
	return t.Exec(`INSERT INTO deliveries (id, kind, webhook_id, url, target, event_seq, event_id,
		event_type, inquiry_id, session, payload, status, attempts, next_attempt_at, last_attempt_at, last_status,
		last_error, last_response, created_at, retry_from, delivered_at, channel, recipient, address, reason, thread,
		traceparent, tracestate)
		VALUES ($1, $2, NULLIF($3, ''), $4, $5, $6, $7, $8, $9, NULLIF($10, ''), $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,
			$22, $23, $24, $25, $26, $27, $28)
		ON CONFLICT DO NOTHING`,
		d.ID, d.Kind, d.WebhookID, d.URL, d.Target, d.EventSeq, d.EventID, d.EventType, d.InquiryID,
		d.Session, string(d.Payload), d.Status, d.Attempts, d.NextAttemptAt, d.LastAttemptAt, d.LastStatus,
		d.LastError, d.LastResponse, d.CreatedAt, d.RetryFrom, d.DeliveredAt, d.Channel, d.Recipient, d.Address, string(d.Reason), d.Thread,
		d.Traceparent, d.Tracestate)
}

// ClaimDeliveries ranks, among the oldest due deliveries of the targets with room, those of
// each target, to take no more of one than its room; it skips rows another node is claiming,
// so two dispatchers never take the same.
func (t *txn) ClaimDeliveries(c hitl.Claim) ([]*hitl.Delivery, error) {
	targets, rooms := []string{}, []int{}
	for target, n := range c.InFlight {
		targets, rooms = append(targets, target), append(rooms, c.PerTarget-n)
	}
	rows, err := sqlstore.Query(t.ctx, dialect, pgDB{q: t}, "deliveries", dialect.ScanDelivery(true), `UPDATE deliveries d SET next_attempt_at = $1
		FROM (SELECT id FROM deliveries WHERE id IN (
				SELECT w.id FROM (SELECT id, target, next_attempt_at,
						ROW_NUMBER() OVER (PARTITION BY target ORDER BY next_attempt_at, ord) AS rank
						FROM (SELECT id, target, next_attempt_at, ord FROM deliveries
							WHERE status = 'pending' AND next_attempt_at <= $2 AND target <> ALL ($7)
							ORDER BY next_attempt_at LIMIT $8) oldest) w
					LEFT JOIN unnest($3::text[], $4::int[]) AS r (target, room) ON r.target = w.target
				WHERE w.rank <= COALESCE(r.room, $5) ORDER BY w.next_attempt_at LIMIT $6)
				-- Checked again on the row as locked: another node may have claimed it since.
				AND status = 'pending' AND next_attempt_at <= $2
			ORDER BY next_attempt_at FOR UPDATE SKIP LOCKED) due
		WHERE d.id = due.id
		RETURNING `+sqlstore.DeliveryColumns+`, COALESCE((SELECT w.secret FROM webhooks w WHERE w.id = d.webhook_id), '')`,
		c.LeaseUntil, c.Now, targets, rooms, c.PerTarget, c.Limit, c.Full(), c.Limit*hitl.ClaimWindow)
	slices.SortFunc(rows, func(a, b sqlstore.Delivery) int { return cmp.Compare(a.Ord, b.Ord) }) // RETURNING keeps no order
	return sqlstore.Deliveries(rows), err
}

func (t *txn) SaveAttempt(d *hitl.Delivery) error {
	tag, err := t.Exec(`UPDATE deliveries SET status = $1, attempts = $2, next_attempt_at = $3,
		last_attempt_at = $4, last_status = $5, last_error = $6, last_response = $7, delivered_at = $8, thread = $9 WHERE id = $10`,
		d.Status, d.Attempts, d.NextAttemptAt, d.LastAttemptAt, d.LastStatus, d.LastError, d.LastResponse, d.DeliveredAt, d.Thread, d.ID)
	return oneRow(tag, err, "delivery", notFound("delivery "+d.ID))
}

func (t *txn) RetryDelivery(id string, at time.Time) (*hitl.Delivery, error) {
	d, err := dialect.Delivery(t.ctx, pgDB{q: t}, id, " FOR UPDATE")
	if err != nil {
		return nil, err
	}
	if d.Status == hitl.DeliveryPending {
		return nil, hitl.Errorf(hitl.EConflict, "delivery %s is pending already", id)
	}
	d.Status, d.NextAttemptAt, d.RetryFrom = hitl.DeliveryPending, &at, at
	_, err = t.Exec("UPDATE deliveries SET status = 'pending', next_attempt_at = $1, retry_from = $1 WHERE id = $2", at, id)
	return d, dbError(err, "delivery "+id)
}

// Setting reads the value in a statement of its own when the insert meets another's: a node
// starting beside this one may have inserted it after this statement's snapshot was taken.
func (t *txn) Setting(name, init string) (string, error) {
	var v string
	err := t.QueryRow(t.ctx, "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING value", name, init).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		err = t.QueryRow(t.ctx, "SELECT value FROM settings WHERE name = $1", name).Scan(&v)
	}
	return v, dbError(err, "setting "+name)
}

func (t *txn) StoredSecrets(settings []string) ([]hitl.StoredSecret, error) {
	rows, err := t.Query(t.ctx, `SELECT 'setting', name, value FROM settings WHERE name = ANY($1)
		UNION ALL SELECT 'webhook', id, secret FROM webhooks UNION ALL SELECT 'chat webhook', id, url FROM chat_webhooks
		ORDER BY 1, 2`, nonNil(settings))
	if err != nil {
		return nil, dbError(err, "secrets")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[hitl.StoredSecret])
	return out, dbError(err, "secrets")
}

func (t *txn) SetStoredSecret(s hitl.StoredSecret) error {
	tag, err := t.Exec(dialect.SecretUpdate(s.Kind), s.Value, s.Name)
	return oneRow(tag, err, s.Place(), notFound(s.Place()))
}

func (s *Store) Webhooks(ctx context.Context) ([]*hitl.Webhook, error) {
	return dialect.Webhooks(ctx, s.db)
}

func (s *Store) Webhook(ctx context.Context, id string) (*hitl.Webhook, error) {
	return dialect.Webhook(ctx, s.db, id)
}

func (s *Store) Deliveries(ctx context.Context, f hitl.DeliveryFilter) ([]*hitl.Delivery, string, error) {
	return dialect.Deliveries(ctx, s.db, f)
}

func (s *Store) PendingDeliveries(ctx context.Context, kind hitl.DeliveryKind) (map[string]int, error) {
	return dialect.PendingDeliveries(ctx, s.db, kind)
}

func (s *Store) OutboxCursor(ctx context.Context) (int64, error) {
	return dialect.OutboxCursor(ctx, s.db)
}

func (s *Store) SessionsByKey(ctx context.Context, keys []string) ([]*hitl.Session, error) {
	return dialect.SessionsByKey(ctx, s.db, keys)
}
