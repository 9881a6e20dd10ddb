package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/hitl-dev/hitl"
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
	var due where
	due.add("status = 'pending' AND next_attempt_at <= ?", micros(c.Now))
	if full := c.Full(); len(full) > 0 {
		due.add("target NOT IN ("+placeholders(len(full))+")", anyArgs(full)...)
	}
	args := append(due.args, c.Limit*hitl.ClaimWindow)
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
	rows, err := queryDeliveryRows(t.ctx, t.tx, "SELECT "+deliveryColumns+", COALESCE(wh.secret, '') FROM deliveries d LEFT JOIN webhooks wh ON wh.id = d.webhook_id"+
		` WHERE d.id IN (SELECT id FROM (SELECT id, target, next_attempt_at,
				ROW_NUMBER() OVER (PARTITION BY target ORDER BY next_attempt_at, ord) AS rank
				FROM (SELECT id, target, next_attempt_at, ord FROM deliveries`+due.String()+` ORDER BY next_attempt_at LIMIT ?))
			WHERE rank <= `+room+` ORDER BY next_attempt_at LIMIT ?)
		ORDER BY d.next_attempt_at, d.ord`, true, args...)
	if err != nil {
		return nil, err
	}
	ds := make([]*hitl.Delivery, len(rows))
	for i, r := range rows {
		d := r.d
		ds[i] = d
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
	d, err := getDelivery(t.ctx, t.tx, id)
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
	rows, err := t.tx.QueryContext(t.ctx, `SELECT 'setting', name, value FROM settings WHERE name IN (`+placeholders(len(settings))+`)
		UNION ALL SELECT 'webhook', id, secret FROM webhooks UNION ALL SELECT 'chat webhook', id, url FROM chat_webhooks
		ORDER BY 1, 2`, anyArgs(settings)...)
	if err != nil {
		return nil, dbError(err, "secrets")
	}
	defer rows.Close()
	var out []hitl.StoredSecret
	for rows.Next() {
		var s hitl.StoredSecret
		if err := rows.Scan(&s.Kind, &s.Name, &s.Value); err != nil {
			return nil, dbError(err, "secrets")
		}
		out = append(out, s)
	}
	return out, dbError(rows.Err(), "secrets")
}

func (t *txn) SetStoredSecret(s hitl.StoredSecret) error {
	query := "UPDATE settings SET value = ? WHERE name = ?"
	switch s.Kind {
	case hitl.SecretWebhook:
		query = "UPDATE webhooks SET secret = ? WHERE id = ?"
	case hitl.SecretChatWebhook:
		query = "UPDATE chat_webhooks SET url = ? WHERE id = ?"
	}
	res, err := t.tx.ExecContext(t.ctx, query, s.Value, s.Name)
	return oneRow(res, err, s.Place(), notFound(s.Place()))
}

func emptyNull(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

const webhookColumns = "id, url, events, description, created_by, created_at"

func scanWebhook(sc interface{ Scan(...any) error }) (*hitl.Webhook, error) {
	var (
		w       hitl.Webhook
		events  string
		created int64
	)
	if err := sc.Scan(&w.ID, &w.URL, &events, &w.Description, &w.CreatedBy, &created); err != nil {
		return nil, err
	}
	w.CreatedAt = fromMicros(created)
	return &w, json.Unmarshal([]byte(events), &w.Events)
}

func (s *Store) Webhooks(ctx context.Context) ([]*hitl.Webhook, error) {
	return onReader(s, ctx, func() ([]*hitl.Webhook, error) {
		rows, err := s.read.QueryContext(ctx, "SELECT "+webhookColumns+" FROM webhooks ORDER BY created_at, id")
		if err != nil {
			return nil, dbError(err, "webhooks")
		}
		defer rows.Close()
		var out []*hitl.Webhook
		for rows.Next() {
			w, err := scanWebhook(rows)
			if err != nil {
				return nil, err
			}
			out = append(out, w)
		}
		return out, dbError(rows.Err(), "webhooks")
	})
}

func (s *Store) Webhook(ctx context.Context, id string) (*hitl.Webhook, error) {
	return onReader(s, ctx, func() (*hitl.Webhook, error) {
		w, err := scanWebhook(s.read.QueryRowContext(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE id = ?", id))
		return w, dbError(err, "webhook "+id)
	})
}

const deliveryColumns = `d.ord, d.id, d.kind, d.webhook_id, d.url, d.target, d.event_seq, d.event_id, d.event_type,
	d.inquiry_id, d.session, d.payload, d.status, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status,
	d.last_error, d.last_response, d.created_at, d.retry_from, d.delivered_at, d.channel, d.recipient, d.address,
	d.reason, d.thread, d.traceparent, d.tracestate`

// scanDelivery reads deliveryColumns, and the secret after them when withSecret.
func scanDelivery(sc interface{ Scan(...any) error }, withSecret bool) (*hitl.Delivery, int64, error) {
	var (
		d                       hitl.Delivery
		ord, created, retryFrom int64
		webhookID, session      sql.NullString
		inquiryID               sql.NullInt64
		next, last, delivered   sql.NullInt64
		payload                 string
	)
	dest := []any{&ord, &d.ID, &d.Kind, &webhookID, &d.URL, &d.Target, &d.EventSeq, &d.EventID, &d.EventType,
		&inquiryID, &session, &payload, &d.Status, &d.Attempts, &next, &last, &d.LastStatus,
		&d.LastError, &d.LastResponse, &created, &retryFrom, &delivered, &d.Channel, &d.Recipient, &d.Address,
		&d.Reason, &d.Thread, &d.Traceparent, &d.Tracestate}
	if withSecret {
		dest = append(dest, &d.Secret)
	}
	if err := sc.Scan(dest...); err != nil {
		return nil, 0, err
	}
	d.WebhookID, d.Session, d.Payload = webhookID.String, session.String, json.RawMessage(payload)
	if inquiryID.Valid {
		d.InquiryID = &inquiryID.Int64
	}
	d.NextAttemptAt, d.LastAttemptAt, d.DeliveredAt = timeOrNil(next), timeOrNil(last), timeOrNil(delivered)
	d.CreatedAt, d.RetryFrom = fromMicros(created), fromMicros(retryFrom)
	return &d, ord, nil
}

func timeOrNil(us sql.NullInt64) *time.Time {
	if !us.Valid {
		return nil
	}
	t := fromMicros(us.Int64)
	return &t
}

type deliveryRow struct {
	d   *hitl.Delivery
	ord int64
}

func queryDeliveryRows(ctx context.Context, q querier, query string, withSecret bool, args ...any) ([]deliveryRow, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbError(err, "deliveries")
	}
	defer rows.Close()
	var out []deliveryRow
	for rows.Next() {
		d, ord, err := scanDelivery(rows, withSecret)
		if err != nil {
			return nil, err
		}
		out = append(out, deliveryRow{d, ord})
	}
	return out, dbError(rows.Err(), "deliveries")
}

func getDelivery(ctx context.Context, q querier, id string) (*hitl.Delivery, error) {
	d, _, err := scanDelivery(q.QueryRowContext(ctx, "SELECT "+deliveryColumns+" FROM deliveries d WHERE d.id = ?", id), false)
	return d, dbError(err, "delivery "+id)
}

func (s *Store) Deliveries(ctx context.Context, f hitl.DeliveryFilter) ([]*hitl.Delivery, string, error) {
	type page struct {
		items []*hitl.Delivery
		next  string
	}
	p, err := onReader(s, ctx, func() (page, error) {
		var w where
		cursor, err := f.Page.After()
		if err != nil {
			return page{}, err
		}
		if cursor > 0 {
			w.add("d.ord < ?", cursor)
		}
		if f.Kind != "" {
			w.add("d.kind = ?", f.Kind)
		}
		if f.WebhookID != "" {
			w.add("d.webhook_id = ?", f.WebhookID)
		}
		if f.Status != "" {
			w.add("d.status = ?", f.Status)
		}
		if f.InquiryID != 0 {
			w.add("d.inquiry_id = ?", f.InquiryID)
		}
		if f.Session != "" {
			w.add("d.session = ?", f.Session)
		}
		rows, err := queryDeliveryRows(ctx, s.read, "SELECT "+deliveryColumns+" FROM deliveries d"+w.String()+" ORDER BY d.ord DESC LIMIT ?",
			false, append(w.args, f.Page.Limit+1)...)
		if err != nil {
			return page{}, err
		}
		rows, next := hitl.PageOf(rows, f.Page.Limit, func(r deliveryRow) int64 { return r.ord })
		out := make([]*hitl.Delivery, len(rows))
		for i, r := range rows {
			out[i] = r.d
		}
		return page{out, next}, nil
	})
	return p.items, p.next, err
}

func (s *Store) PendingDeliveries(ctx context.Context, kind hitl.DeliveryKind) (map[string]int, error) {
	return onReader(s, ctx, func() (map[string]int, error) {
		return scanMap[int]("deliveries")(s.read.QueryContext(ctx,
			"SELECT channel, COUNT(*) FROM deliveries WHERE status = 'pending' AND kind = ? GROUP BY channel", string(kind)))
	})
}

// scanMap reads (name, value) rows into a map; what names the rows in errors.
func scanMap[V any](what string) func(rows *sql.Rows, err error) (map[string]V, error) {
	return func(rows *sql.Rows, err error) (map[string]V, error) {
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
}

func (s *Store) OutboxCursor(ctx context.Context) (int64, error) {
	return onReader(s, ctx, func() (int64, error) {
		var seq int64
		err := s.read.QueryRowContext(ctx, "SELECT seq FROM outbox_cursor WHERE id = 1").Scan(&seq)
		return seq, dbError(err, "outbox cursor")
	})
}

func (s *Store) SessionsByKey(ctx context.Context, keys []string) ([]*hitl.Session, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	return onReader(s, ctx, func() ([]*hitl.Session, error) {
		rows, err := s.read.QueryContext(ctx, "SELECT "+sessionColumns+" FROM sessions s WHERE s.key IN ("+placeholders(len(keys))+")", anyArgs(keys)...)
		if err != nil {
			return nil, dbError(err, "sessions")
		}
		defer rows.Close()
		var out []*hitl.Session
		for rows.Next() {
			sess, _, err := scanSession(rows)
			if err != nil {
				return nil, err
			}
			out = append(out, sess)
		}
		return out, dbError(rows.Err(), "sessions")
	})
}
