package sqlstore

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hitl-dev/hitl"
)

// LikePattern matches text anywhere in a LIKE with \ as the escape character.
func LikePattern(text string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(text) + "%"
}

// equals is the condition column = v. A value of a fixed set (known) is written into the
// text rather than bound: SQLite weighs a bound value against the partial indexes on such
// columns (status = 'pending', kind = 'notification'), and then compiles the statement again
// each time it is bound, which was a fifth of the inbox page's CPU; PostgreSQL's generic plan
// of a prepared statement cannot use those indexes either. The texts stay few.
func (w *Where) equals(column, v string, known bool) string {
	if known {
		return column + " = '" + v + "'"
	}
	return column + " = " + w.Arg(v)
}

// deliveryKinds are the kinds of delivery there are (a filter of another kind finds none).
var deliveryKinds = []hitl.DeliveryKind{hitl.DeliveryWebhook, hitl.DeliveryInquiryCallback, hitl.DeliverySessionCallback,
	hitl.DeliveryBroker, hitl.DeliveryNotification}

// visible is the condition on inquiries (alias i) that v allows, for a v that does not
// allow all.
func (w *Where) visible(v hitl.Visibility) string {
	var ors []string
	if v.CreatedBy != "" {
		ors = append(ors, "i.created_by = "+w.Arg(v.CreatedBy))
	}
	if v.Responder {
		cond := w.d.True("i.unassigned")
		if len(v.AnswerableBy) > 0 {
			cond += " OR EXISTS (SELECT 1 FROM inquiry_assignees a WHERE a.inquiry_id = i.id AND a.assignee " + w.In(v.AnswerableBy) + w.d.PerRow + ")"
		}
		// A joined inquiry is answered through the one it joined: people see that one only.
		ors = append(ors, "(("+cond+") AND i.joined IS NULL)")
	}
	if len(ors) == 0 {
		return w.d.Never
	}
	return "(" + strings.Join(ors, " OR ") + ")"
}

// addVisible narrows inquiries (alias i) to what v allows.
func (w *Where) addVisible(v hitl.Visibility) {
	if !v.All {
		w.Add(w.visible(v))
	}
}

// addOwned narrows inquiries (alias i) to a responder's own (hitl.StatsOwner), when there is one.
func (w *Where) addOwned(o *hitl.StatsOwner) {
	if o == nil {
		return
	}
	cond := "i.responded_by = " + w.Arg(o.Name)
	if len(o.Entries) > 0 {
		cond += " OR EXISTS (SELECT 1 FROM inquiry_assignees a WHERE a.inquiry_id = i.id AND a.assignee " + w.In(o.Entries) + w.d.PerRow + ")"
	}
	w.Add("(" + cond + ")")
}

// InquiryWhere is the condition of a list of inquiries, the page's position aside.
func (d *Dialect) InquiryWhere(f hitl.InquiryFilter) *Where {
	w := d.Where()
	if f.Status != "" {
		w.Add(w.equals("i.status", string(f.Status), f.Status.Valid()))
	}
	// In a fixed order: the same filter is the same SQL text, which statement caches reuse.
	for _, c := range []struct{ col, v string }{{"i.execution", f.Execution}, {"i.session", f.Session},
		{"i.origin", f.Origin}, {"i.request_type", string(f.RequestType)}, {"i.created_by", f.CreatedBy}} {
		if c.v != "" {
			w.Add(c.col + " = " + w.Arg(c.v))
		}
	}
	if f.Text != "" {
		// The prompt column, not the stored document: JSON functions refuse deep documents,
		// and would parse each row.
		if text := d.Searchable(f.Text); d.Search != nil {
			var cond string
			w.join, cond = d.Search(w, text)
			w.Add(cond)
		} else {
			w.Add("i.prompt " + d.Like + " " + w.Arg(LikePattern(text)) + ` ESCAPE '\'`)
		}
	}
	if len(f.AssignedTo) > 0 {
		w.Add("EXISTS (SELECT 1 FROM inquiry_assignees a WHERE a.inquiry_id = i.id AND " + d.False("a.earlier") + " AND a.assignee " + w.In(f.AssignedTo) + ")")
	}
	for _, k := range slices.Sorted(maps.Keys(f.Metadata)) {
		w.Add("EXISTS (SELECT 1 FROM inquiry_metadata m WHERE m.inquiry_id = i.id AND m.key = " + w.Arg(k) + " AND m.value = " + w.Arg(f.Metadata[k]) + ")")
	}
	if f.Primaries {
		w.Add("i.joined IS NULL")
	}
	if f.JoinedTo != 0 {
		w.Add("i.joined = " + w.Arg(f.JoinedTo))
	}
	if f.CreatedAfter != nil {
		w.Add("i.created_at > " + w.Arg(d.Time(*f.CreatedAfter)))
	}
	if f.CreatedBefore != nil {
		w.Add("i.created_at < " + w.Arg(d.Time(*f.CreatedBefore)))
	}
	w.addVisible(f.Visibility)
	return w
}

// Inquiries reads inquiries by a query of InquiryColumns.
func (d *Dialect) Inquiries(ctx context.Context, db DB, sql string, args ...any) ([]*hitl.Inquiry, error) {
	return Query(ctx, d, db, "inquiries", scanInquiry, sql, args...)
}

// Inquiry reads an inquiry; lock is what follows the query (FOR UPDATE, or "").
func (d *Dialect) Inquiry(ctx context.Context, db DB, id int64, lock string) (*hitl.Inquiry, error) {
	return One(ctx, d, db, "inquiry "+itoa(id), scanInquiry, "SELECT "+InquiryColumns+" FROM inquiries i WHERE i.id = "+d.Placeholder(1)+lock, id)
}

// InquiryPage reads a page of the inquiries of f.
func (d *Dialect) InquiryPage(ctx context.Context, db DB, f hitl.InquiryFilter) ([]*hitl.Inquiry, string, error) {
	cursor, err := f.Page.After()
	if err != nil {
		return nil, "", err
	}
	w := d.InquiryWhere(f)
	order := " ORDER BY " + w.ID() + " DESC"
	switch f.Order {
	case hitl.OrderDeadline:
		// The cursor is the last inquiry listed; the next page starts after its place.
		if cursor > 0 {
			w.Add("(COALESCE(i.timeout_at, " + d.Latest + "), i.id) > (SELECT COALESCE(timeout_at, " + d.Latest + "), id FROM inquiries WHERE id = " + w.Arg(cursor) + ")")
		}
		order = " ORDER BY COALESCE(i.timeout_at, " + d.Latest + "), i.id"
	default:
		if cursor > 0 {
			w.Add(w.ID() + " < " + w.Arg(cursor))
		}
	}
	limit, offset := Limit(f.Page.Limit+1), w.Arg(f.Page.Offset)
	items, err := d.Inquiries(ctx, db, "SELECT "+InquiryColumns+w.From()+w.String()+order+" LIMIT "+limit+" OFFSET "+offset, w.Args...)
	if err != nil {
		return nil, "", err
	}
	items, next := hitl.PageOf(items, f.Page.Limit, func(i *hitl.Inquiry) int64 { return i.ID })
	return items, next, nil
}

// CountInquiries counts the inquiries of f, up to f.CountUpTo when it is set: the newest
// that many, found by the index the list's own order walks, and no further.
func (d *Dialect) CountInquiries(ctx context.Context, db DB, f hitl.InquiryFilter) (int, error) {
	w := d.InquiryWhere(f)
	if f.CountUpTo > 0 {
		return d.count(ctx, db, "inquiries", "SELECT COUNT(*) FROM (SELECT 1"+w.From()+w.String()+" ORDER BY "+w.ID()+" DESC LIMIT "+Limit(f.CountUpTo)+") c", w.Args...)
	}
	return d.count(ctx, db, "inquiries", "SELECT COUNT(*)"+w.From()+w.String(), w.Args...)
}

func (d *Dialect) count(ctx context.Context, db DB, what, sql string, args ...any) (int, error) {
	var n int
	err := db.QueryRow(ctx, sql, args...).Scan(&n)
	return n, d.Err(err, what)
}

// PendingCount counts the pending inquiries.
func (d *Dialect) PendingCount(ctx context.Context, db DB) (int, error) {
	return d.count(ctx, db, "inquiries", "SELECT COUNT(*) FROM inquiries WHERE status = 'pending'")
}

// SessionInquiries reads the inquiries of a session that v allows.
func (d *Dialect) SessionInquiries(ctx context.Context, db DB, key string, v hitl.Visibility) ([]*hitl.Inquiry, error) {
	w := d.Where()
	w.Add("i.session = " + w.Arg(key))
	w.addVisible(v)
	return d.Inquiries(ctx, db, "SELECT "+InquiryColumns+" FROM inquiries i"+w.String()+" ORDER BY i.id", w.Args...)
}

// SessionVersion counts the stored events of a session that change it (hitl.ChangesSession).
func (d *Dialect) SessionVersion(ctx context.Context, db DB, key string) (int64, error) {
	n, err := d.count(ctx, db, "session "+key, "SELECT COUNT(*) FROM events WHERE session = "+d.Placeholder(1)+" AND type <> '"+hitl.EventSessionLogged+"'", key)
	return int64(n), err
}

// Session reads a session; lock is what follows the query (FOR UPDATE, or "").
func (d *Dialect) Session(ctx context.Context, db DB, key, lock string) (*hitl.Session, error) {
	return One(ctx, d, db, "session "+key, d.scanSessionOnly, "SELECT "+d.sessionColumns()+" FROM sessions s WHERE s.key = "+d.Placeholder(1)+lock, key)
}

// SessionsByKey reads the sessions of keys.
func (d *Dialect) SessionsByKey(ctx context.Context, db DB, keys []string) ([]*hitl.Session, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	w := d.Where()
	w.Add("s.key " + w.In(keys))
	return Query(ctx, d, db, "sessions", d.scanSessionOnly, "SELECT "+d.sessionColumns()+" FROM sessions s"+w.String(), w.Args...)
}

// pageWhere is the condition of a page of a list, newest first by the column ord, that
// starts after its cursor.
func (d *Dialect) pageWhere(p hitl.Page, ord string) (*Where, error) {
	cursor, err := p.After()
	w := d.Where()
	if cursor > 0 {
		w.Add(ord + " < " + w.Arg(cursor))
	}
	return w, err
}

// Sessions reads a page of the sessions of f.
func (d *Dialect) Sessions(ctx context.Context, db DB, f hitl.SessionFilter) ([]*hitl.Session, string, error) {
	w, err := d.pageWhere(f.Page, d.SessionOrder)
	if err != nil {
		return nil, "", err
	}
	if f.CreatedBy != "" {
		w.Add("s.created_by = " + w.Arg(f.CreatedBy))
	}
	const pending = "EXISTS (SELECT 1 FROM inquiries i WHERE i.session = s.key AND i.status = 'pending')"
	switch f.Status {
	case "":
	case hitl.SessionAwaitingInput:
		w.Add("s.status = 'running' AND " + pending)
	case hitl.SessionRunning:
		w.Add("s.status = 'running' AND NOT " + pending)
	default:
		w.Add("s.status = " + w.Arg(string(f.Status)))
	}
	type row struct {
		s   *hitl.Session
		ord int64
	}
	items, err := Query(ctx, d, db, "sessions", func(sc Scanner) (row, error) {
		s, ord, err := d.scanSession(sc)
		return row{s, ord}, err
	}, "SELECT "+d.sessionColumns()+" FROM sessions s"+w.String()+" ORDER BY "+d.SessionOrder+" DESC LIMIT "+Limit(f.Page.Limit+1), w.Args...)
	if err != nil {
		return nil, "", err
	}
	items, next := hitl.PageOf(items, f.Page.Limit, func(r row) int64 { return r.ord })
	out := make([]*hitl.Session, len(items))
	for i, r := range items {
		out[i] = r.s
	}
	return out, next, nil
}

// Events reads the events of f.
func (d *Dialect) Events(ctx context.Context, db DB, f hitl.EventFilter) ([]*hitl.Event, error) {
	w := d.Where()
	w.Add("e.seq > " + w.Arg(f.After))
	if len(f.Types) > 0 {
		w.Add("e.type " + w.In(f.Types))
	}
	if f.Session != "" {
		w.Add("e.session = " + w.Arg(f.Session))
	}
	if f.InquiryID != 0 {
		w.Add("e.inquiry_id = " + w.Arg(f.InquiryID))
	}
	from := " FROM events e"
	if !f.Visibility.All {
		// Inquiry events are visible with their inquiry; session events to the session's creator.
		from += " LEFT JOIN inquiries i ON i.id = e.inquiry_id LEFT JOIN sessions s ON e.inquiry_id IS NULL AND s.key = e.session"
		w.Add("((e.inquiry_id IS NOT NULL AND " + w.visible(f.Visibility) + ") OR (e.inquiry_id IS NULL AND s.created_by = " + w.Arg(f.Visibility.CreatedBy) + "))")
	}
	return Query(ctx, d, db, "events", func(sc Scanner) (*hitl.Event, error) { return d.scanEvent(sc) },
		"SELECT e.seq, e.id, e.type, e.time, e.inquiry_id, e.session, e.actor, e.data"+from+w.String()+" ORDER BY e.seq LIMIT "+Limit(f.Limit), w.Args...)
}

// LastEventSeq reads the seq of the newest event, 0 for none.
func (d *Dialect) LastEventSeq(ctx context.Context, db DB) (int64, error) {
	var seq int64
	err := db.QueryRow(ctx, "SELECT COALESCE(MAX(seq), 0) FROM events").Scan(&seq)
	return seq, d.Err(err, "events")
}

// KeyByTokenHash reads the key of a token that is not revoked.
func (d *Dialect) KeyByTokenHash(ctx context.Context, db DB, hash string) (*hitl.Key, error) {
	return One(ctx, d, db, "key", d.ScanKey, "SELECT "+KeyColumns+" FROM api_keys k WHERE token_hash = "+d.Placeholder(1)+" AND revoked_at IS NULL", hash)
}

// Keys reads every key.
func (d *Dialect) Keys(ctx context.Context, db DB) ([]*hitl.Key, error) {
	return Query(ctx, d, db, "keys", d.ScanKey, "SELECT "+KeyColumns+" FROM api_keys k ORDER BY created_at, id")
}

// Webhooks reads every webhook.
func (d *Dialect) Webhooks(ctx context.Context, db DB) ([]*hitl.Webhook, error) {
	return Query(ctx, d, db, "webhooks", d.scanWebhook, "SELECT "+WebhookColumns+" FROM webhooks ORDER BY created_at, id")
}

// Webhook reads a webhook.
func (d *Dialect) Webhook(ctx context.Context, db DB, id string) (*hitl.Webhook, error) {
	return One(ctx, d, db, "webhook "+id, d.scanWebhook, "SELECT "+WebhookColumns+" FROM webhooks WHERE id = "+d.Placeholder(1), id)
}

// Delivery reads a delivery; lock is what follows the query (FOR UPDATE, or "").
func (d *Dialect) Delivery(ctx context.Context, db DB, id, lock string) (*hitl.Delivery, error) {
	r, err := One(ctx, d, db, "delivery "+id, d.ScanDelivery(false), "SELECT "+DeliveryColumns+" FROM deliveries d WHERE d.id = "+d.Placeholder(1)+lock, id)
	return r.D, err
}

// Deliveries reads a page of the deliveries of f.
func (d *Dialect) Deliveries(ctx context.Context, db DB, f hitl.DeliveryFilter) ([]*hitl.Delivery, string, error) {
	w, err := d.pageWhere(f.Page, "d.ord")
	if err != nil {
		return nil, "", err
	}
	if f.Kind != "" {
		w.Add(w.equals("d.kind", string(f.Kind), slices.Contains(deliveryKinds, f.Kind)))
	}
	if f.WebhookID != "" {
		w.Add("d.webhook_id = " + w.Arg(f.WebhookID))
	}
	if f.Status != "" {
		w.Add(w.equals("d.status", string(f.Status), f.Status.Valid()))
	}
	if f.InquiryID != 0 {
		w.Add("d.inquiry_id = " + w.Arg(f.InquiryID))
	}
	if f.Session != "" {
		w.Add("d.session = " + w.Arg(f.Session))
	}
	rows, err := Query(ctx, d, db, "deliveries", d.ScanDelivery(false),
		"SELECT "+DeliveryColumns+" FROM deliveries d"+w.String()+" ORDER BY d.ord DESC LIMIT "+Limit(f.Page.Limit+1), w.Args...)
	if err != nil {
		return nil, "", err
	}
	rows, next := hitl.PageOf(rows, f.Page.Limit, func(r Delivery) int64 { return r.Ord })
	return Deliveries(rows), next, nil
}

// PendingDeliveries counts the pending deliveries of a kind by channel.
func (d *Dialect) PendingDeliveries(ctx context.Context, db DB, kind hitl.DeliveryKind) (map[string]int, error) {
	return mapOf[int](ctx, d, db, "deliveries", "SELECT channel, COUNT(*) FROM deliveries WHERE status = 'pending' AND kind = "+d.Placeholder(1)+" GROUP BY channel", string(kind))
}

// OutboxCursor reads the seq of the last event the outbox has made deliveries of.
func (d *Dialect) OutboxCursor(ctx context.Context, db DB) (int64, error) {
	var seq int64
	err := db.QueryRow(ctx, "SELECT seq FROM outbox_cursor WHERE id = 1").Scan(&seq)
	return seq, d.Err(err, "outbox cursor")
}

// IdentityName reads the name of an identity.
func (d *Dialect) IdentityName(ctx context.Context, db DB, id int64) (string, error) {
	var name string
	err := db.QueryRow(ctx, "SELECT name FROM identities WHERE id = "+d.Placeholder(1), id).Scan(&name)
	return name, d.Err(err, "identity "+itoa(id))
}

// IdentityIDs reads the identities of names.
func (d *Dialect) IdentityIDs(ctx context.Context, db DB, names []string) (map[string]int64, error) {
	if len(names) == 0 {
		return map[string]int64{}, nil
	}
	w := d.Where()
	w.Add("name " + w.In(names))
	return mapOf[int64](ctx, d, db, "identities", "SELECT name, id FROM identities"+w.String(), w.Args...)
}

// Table is a kind of record kept a row each, named by a key column, which the stores read
// one by its key or all in order.
type Table[T any] struct {
	Name, Columns, Key, Order string
	// One names a record (before its key) and All the records, in errors.
	One, All string
	Scan     func(d *Dialect, sc Scanner) (T, error)
}

// The tables of what notifications go to, and of templates.
var (
	People       = Table[*hitl.Person]{"people", PersonColumns, "name", "name", "person", "people", (*Dialect).scanPerson}
	Groups       = Table[*hitl.Group]{"contact_groups", GroupColumns, "name", "name", "group", "groups", (*Dialect).scanGroup}
	ChatWebhooks = Table[*hitl.ChatWebhook]{"chat_webhooks", ChatWebhookColumns, "id", "created_at, id", "chat webhook", "chat webhooks", (*Dialect).scanChatWebhook}
	Templates    = Table[*hitl.Template]{"templates", TemplateColumns, "name", "name", "template", "templates", (*Dialect).scanTemplate}
	Absences     = Table[*hitl.Absence]{"absences", AbsenceColumns, "person", "person", "absence of", "absences", (*Dialect).scanAbsence}
)

func (tb Table[T]) scan(d *Dialect) func(Scanner) (T, error) {
	return func(sc Scanner) (T, error) { return tb.Scan(d, sc) }
}

// Get reads the record of a key.
func (tb Table[T]) Get(ctx context.Context, d *Dialect, db DB, key string) (T, error) {
	return One(ctx, d, db, tb.One+" "+key, tb.scan(d), "SELECT "+tb.Columns+" FROM "+tb.Name+" WHERE "+tb.Key+" = "+d.Placeholder(1), key)
}

// List reads every record: none, when there are none, rather than nil.
func (tb Table[T]) List(ctx context.Context, d *Dialect, db DB) ([]T, error) {
	rows, err := Query(ctx, d, db, tb.All, tb.scan(d), "SELECT "+tb.Columns+" FROM "+tb.Name+" ORDER BY "+tb.Order)
	if rows == nil && err == nil {
		rows = []T{}
	}
	return rows, err
}

// Notified reads the ones an inquiry's notifications went to, newest first. It reads three
// columns rather than a delivery's thirty: the engine asks it at every answer, and the driver
// makes strings of each column's name and type at every query.
func (d *Dialect) Notified(ctx context.Context, db DB, inquiryID int64) ([]hitl.Notified, error) {
	return Query(ctx, d, db, "the notifications of inquiry "+itoa(inquiryID), func(sc Scanner) (hitl.Notified, error) {
		var n hitl.Notified
		return n, sc.Scan(&n.Recipient, &n.Channel, &n.Address)
	}, `SELECT COALESCE(recipient, ''), COALESCE(channel, ''), COALESCE(address, '') FROM deliveries
		WHERE inquiry_id = `+d.Placeholder(1)+` AND kind = '`+string(hitl.DeliveryNotification)+`'
			AND COALESCE(reason, '') <> '`+string(hitl.ReasonResolved)+`' AND COALESCE(channel, '') <> '`+hitl.ChannelChatWebhook+`'
		ORDER BY ord DESC LIMIT 1000`, inquiryID)
}

// NotificationThread reads the thread of an inquiry's notifications by one channel to one
// address, and whether its first notification there is still pending.
func (d *Dialect) NotificationThread(ctx context.Context, db DB, inquiryID int64, channel, address string) (thread string, firstPending bool, err error) {
	w := d.Where()
	// sameAddress selects the inquiry's notifications by the channel to the address.
	sameAddress := func() string {
		return "d.inquiry_id = " + w.Arg(inquiryID) + " AND d.kind = 'notification' AND d.channel = " + w.Arg(channel) + " AND d.address = " + w.Arg(address)
	}
	err = db.QueryRow(ctx, `SELECT COALESCE((SELECT thread FROM deliveries d WHERE `+sameAddress()+` AND status = 'delivered'
			AND thread <> '' ORDER BY ord DESC LIMIT 1), ''),
		EXISTS (SELECT 1 FROM deliveries d WHERE `+sameAddress()+` AND status = 'pending' AND reason = 'created')`,
		w.Args...).Scan(&thread, &firstPending)
	return thread, firstPending, d.Err(err, "notification thread")
}

// SecretUpdate is the statement that replaces a stored secret of a kind (hitl.StoredSecret):
// its arguments the value and the name.
func (d *Dialect) SecretUpdate(kind string) string {
	table, value, name := "settings", "value", "name"
	switch kind {
	case hitl.SecretWebhook:
		table, value, name = "webhooks", "secret", "id"
	case hitl.SecretChatWebhook:
		table, value, name = "chat_webhooks", "url", "id"
	}
	return "UPDATE " + table + " SET " + value + " = " + d.Placeholder(1) + " WHERE " + name + " = " + d.Placeholder(2)
}

// Timers reads the (inquiry id, time) rows of a query.
func (d *Dialect) Timers(ctx context.Context, db DB, what, sql string) ([]hitl.Deadline, error) {
	return Query(ctx, d, db, what, d.scanDeadline, sql)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Limit is a LIMIT's number, written into the query's text rather than bound: SQLite plans
// with a bound LIMIT's value and so compiles the statement again each time it is bound,
// which took a fifth of the inbox page's CPU. A list's limits are few (a page's size), so
// the texts a statement cache holds stay few.
func Limit(n int) string { return strconv.Itoa(n) }

// PushConfigs reads the push configs of the inquiries ids, by inquiry then oldest first.
func (d *Dialect) PushConfigs(ctx context.Context, db DB, ids []int64) ([]*hitl.PushConfig, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	w := d.Where()
	in := make([]string, len(ids))
	for i, id := range ids {
		in[i] = w.Arg(id)
	}
	w.Add("inquiry_id IN (" + strings.Join(in, ", ") + ")")
	return Query(ctx, d, db, "push configs", func(sc Scanner) (*hitl.PushConfig, error) {
		var c hitl.PushConfig
		err := sc.Scan(&c.InquiryID, &c.ID, &c.URL, &c.Token, &c.Version, &c.CreatedBy, d.ScanTime(&c.CreatedAt))
		return &c, err
	}, "SELECT inquiry_id, id, url, token, version, created_by, created_at FROM push_configs"+w.String()+" ORDER BY inquiry_id, created_at, id", w.Args...)
}

const webPushColumns = "SELECT endpoint, person, p256dh, auth, expires_at, created_at FROM web_push_subscriptions"

func (d *Dialect) scanWebPush(sc Scanner) (*hitl.PushSubscription, error) {
	var s hitl.PushSubscription
	err := sc.Scan(&s.Endpoint, &s.Person, &s.P256DH, &s.Auth, d.ScanNullTime(&s.ExpiresAt), d.ScanTime(&s.CreatedAt))
	return &s, err
}

// WebPushSubscriptions reads the devices of those people (nil: of everyone), by person then
// oldest first.
func (d *Dialect) WebPushSubscriptions(ctx context.Context, db DB, people []string) ([]*hitl.PushSubscription, error) {
	w := d.Where()
	if people != nil {
		if len(people) == 0 {
			return nil, nil
		}
		in := make([]string, len(people))
		for i, p := range people {
			in[i] = w.Arg(p)
		}
		w.Add("person IN (" + strings.Join(in, ", ") + ")")
	}
	return Query(ctx, d, db, "web push subscriptions", d.scanWebPush, webPushColumns+w.String()+" ORDER BY person, created_at, endpoint", w.Args...)
}

// WebPushSubscription reads the device of an endpoint (ENotFound).
func (d *Dialect) WebPushSubscription(ctx context.Context, db DB, endpoint string) (*hitl.PushSubscription, error) {
	w := d.Where()
	w.Add("endpoint = " + w.Arg(endpoint))
	return One(ctx, d, db, "web push subscription", d.scanWebPush, webPushColumns+w.String(), w.Args...)
}
