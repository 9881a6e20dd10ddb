package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// Webhooks and the outbox of deliveries.

func (t *txn) InsertWebhook(w *hitl.Webhook) error {
	events, err := json.Marshal(w.Events)
	if err != nil {
		return err
	}
	_, err = t.tx.ExecContext(t.ctx, `INSERT INTO webhooks (id, url, events, description, secret, created_by, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, w.ID, w.URL, string(events), w.Description, w.Secret, w.CreatedBy, micros(w.CreatedAt))
	return dbError(err, "webhook "+w.ID)
}

func (t *txn) DeleteWebhook(id string) error {
	res, err := t.tx.ExecContext(t.ctx, "DELETE FROM webhooks WHERE id = ?", id)
	return oneRow(res, err, "webhook", notFound("webhook "+id))
}

func (t *txn) AdvanceOutboxCursor(from, to int64) error {
	res, err := t.tx.ExecContext(t.ctx, "UPDATE outbox_cursor SET seq = ? WHERE id = 1 AND seq = ?", to, from)
	return oneRow(res, err, "outbox cursor", hitl.Errorf(hitl.EConflict, "the outbox cursor has moved"))
}

func (t *txn) InsertDelivery(d *hitl.Delivery) error { return t.insertDelivery(d, "") }

func (t *txn) InsertNotification(d *hitl.Delivery) error {
	return t.insertDelivery(d, " ON CONFLICT (id) DO NOTHING")
}

func (t *txn) insertDelivery(d *hitl.Delivery, onConflict string) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO deliveries (id, kind, webhook_id, url, target, event_seq, event_id,
		event_type, inquiry_id, session, payload, status, attempts, next_attempt_at, last_attempt_at, last_status,
		last_error, last_response, created_at, retry_from, delivered_at, channel, recipient, address, reason, thread,
		traceparent, tracestate)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`+onConflict,
		d.ID, d.Kind, emptyNull(d.WebhookID), d.URL, d.Target, d.EventSeq, d.EventID, d.EventType, d.InquiryID,
		emptyNull(d.Session), string(d.Payload), d.Status, d.Attempts, nullMicros(d.NextAttemptAt),
		nullMicros(d.LastAttemptAt), d.LastStatus, d.LastError, d.LastResponse, micros(d.CreatedAt),
		micros(d.RetryFrom), nullMicros(d.DeliveredAt), d.Channel, d.Recipient, d.Address, d.Reason, d.Thread,
		d.Traceparent, d.Tracestate)
	return dbError(err, "delivery "+d.ID)
}

// ClaimDeliveries ranks, among the oldest due deliveries of the targets with room, those of
// each target, to take no more of one than its room.
func (t *txn) ClaimDeliveries(c hitl.Claim) ([]*hitl.Delivery, error) {
	due := dialect.Where()
	due.Add("status = 'pending' AND next_attempt_at <= " + due.Arg(micros(c.Now)))
	if full := c.Full(); len(full) > 0 {
		due.Add("NOT (target " + due.In(full) + ")")
	}
	args := append(due.Args, c.Limit*hitl.ClaimWindow)
	room := "?"
	if len(c.InFlight) > 0 {
		room = "CASE target"
		for target, n := range c.InFlight {
			room += " WHEN ? THEN ?"
			args = append(args, target, c.PerTarget-n)
		}
		room += " ELSE ? END"
	}
	args = append(args, c.PerTarget, c.Limit)
	rows, err := sqlstore.Query(t.ctx, dialect, sqlstore.SQL{Q: t.tx}, "deliveries", dialect.ScanDelivery(true), "SELECT "+sqlstore.DeliveryColumns+", COALESCE(wh.secret, '') FROM deliveries d LEFT JOIN webhooks wh ON wh.id = d.webhook_id"+
		` WHERE d.id IN (SELECT id FROM (SELECT id, target, next_attempt_at,
				ROW_NUMBER() OVER (PARTITION BY target ORDER BY next_attempt_at, ord) AS rank
				FROM (SELECT id, target, next_attempt_at, ord FROM deliveries`+due.String()+` ORDER BY next_attempt_at LIMIT ?))
			WHERE rank <= `+room+` ORDER BY next_attempt_at LIMIT ?)
		ORDER BY d.next_attempt_at, d.ord`, args...)
	if err != nil {
		return nil, err
	}
	ds := sqlstore.Deliveries(rows)
	for _, d := range ds {
		lease := c.LeaseUntil
		d.NextAttemptAt = &lease
		if _, err := t.tx.ExecContext(t.ctx, "UPDATE deliveries SET next_attempt_at = ? WHERE id = ?", micros(lease), d.ID); err != nil {
			return nil, dbError(err, "delivery "+d.ID)
		}
	}
	return ds, nil
}

func (t *txn) SaveAttempt(d *hitl.Delivery) error {
	res, err := t.tx.ExecContext(t.ctx, `UPDATE deliveries SET status = ?, attempts = ?, next_attempt_at = ?,
		last_attempt_at = ?, last_status = ?, last_error = ?, last_response = ?, delivered_at = ?, thread = ? WHERE id = ?`,
		d.Status, d.Attempts, nullMicros(d.NextAttemptAt), nullMicros(d.LastAttemptAt), d.LastStatus, d.LastError,
		d.LastResponse, nullMicros(d.DeliveredAt), d.Thread, d.ID)
	return oneRow(res, err, "delivery", notFound("delivery "+d.ID))
}

func (t *txn) RetryDelivery(id string, at time.Time) (*hitl.Delivery, error) {
	d, err := dialect.Delivery(t.ctx, sqlstore.SQL{Q: t.tx}, id, "")
	if err != nil {
		return nil, err
	}
	if d.Status == hitl.DeliveryPending {
		return nil, hitl.Errorf(hitl.EConflict, "delivery %s is pending already", id)
	}
	d.Status, d.NextAttemptAt, d.RetryFrom = hitl.DeliveryPending, &at, at
	_, err = t.tx.ExecContext(t.ctx, "UPDATE deliveries SET status = 'pending', next_attempt_at = ?, retry_from = ? WHERE id = ?",
		micros(at), micros(at), id)
	return d, dbError(err, "delivery "+id)
}

func (t *txn) Setting(name, init string) (string, error) {
	if _, err := t.tx.ExecContext(t.ctx, "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING", name, init); err != nil {
		return "", dbError(err, "setting "+name)
	}
	var v string
	err := t.tx.QueryRowContext(t.ctx, "SELECT value FROM settings WHERE name = ?", name).Scan(&v)
	return v, dbError(err, "setting "+name)
}

func (t *txn) StoredSecrets(settings []string) ([]hitl.StoredSecret, error) {
	return sqlstore.Query(t.ctx, dialect, sqlstore.SQL{Q: t.tx}, "secrets", scanSecret, `SELECT 'setting', name, value FROM settings WHERE name IN (`+sqlstore.Placeholders(len(settings))+`)
		UNION ALL SELECT 'webhook', id, secret FROM webhooks UNION ALL SELECT 'chat webhook', id, url FROM chat_webhooks
		ORDER BY 1, 2`, sqlstore.Args(settings)...)
}

func (t *txn) SetStoredSecret(s hitl.StoredSecret) error {
	res, err := t.tx.ExecContext(t.ctx, dialect.SecretUpdate(s.Kind), s.Value, s.Name)
	return oneRow(res, err, s.Place(), notFound(s.Place()))
}

func emptyNull(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

func scanSecret(sc sqlstore.Scanner) (s hitl.StoredSecret, err error) {
	return s, sc.Scan(&s.Kind, &s.Name, &s.Value)
}

func (s *Store) Webhooks(ctx context.Context) ([]*hitl.Webhook, error) {
	return read(s, ctx, dialect.Webhooks)
}

func (s *Store) Webhook(ctx context.Context, id string) (*hitl.Webhook, error) {
	return readBy(s, ctx, dialect.Webhook, id)
}

func (s *Store) Deliveries(ctx context.Context, f hitl.DeliveryFilter) ([]*hitl.Delivery, string, error) {
	return readPage(s, ctx, dialect.Deliveries, f)
}

func (s *Store) PendingDeliveries(ctx context.Context, kind hitl.DeliveryKind) (map[string]int, error) {
	return readBy(s, ctx, dialect.PendingDeliveries, kind)
}

func (s *Store) OutboxCursor(ctx context.Context) (int64, error) {
	return read(s, ctx, dialect.OutboxCursor)
}

func (s *Store) SessionsByKey(ctx context.Context, keys []string) ([]*hitl.Session, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	return readBy(s, ctx, dialect.SessionsByKey, keys)
}
