package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hitl-dev/hitl"
)

// The columns of each record as the scanners below read them, with the alias each names.
const (
	// InquiryColumns (alias i): an inquiry is its stored document.
	InquiryColumns = "i.id, i.doc"
	// KeyColumns (alias k) read a key with its name's identity.
	KeyColumns         = "k.id, k.name, COALESCE((SELECT id FROM identities WHERE name = k.name), 0), k.roles, k.groups, k.created_at, k.revoked_at"
	WebhookColumns     = "id, url, events, description, created_by, created_at"
	PersonColumns      = "name, display_name, email, slack_user_id, channels, time_zone, working_hours, updated_at"
	GroupColumns       = "name, email, slack_channel, updated_at"
	ChatWebhookColumns = "id, kind, url, events, created_by, created_at"
	TemplateColumns    = "name, doc, created_at, updated_at, updated_by"
	AbsenceColumns     = "person, starts_at, ends_at, delegate, set_by, set_at"
	EventColumns       = "seq, id, type, time, inquiry_id, session, actor, data"
	// DeliveryColumns (alias d).
	DeliveryColumns = `d.ord, d.id, d.kind, d.webhook_id, d.url, d.target, d.event_seq, d.event_id, d.event_type,
	d.inquiry_id, d.session, d.payload, d.status, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status,
	d.last_error, d.last_response, d.created_at, d.retry_from, d.delivered_at, d.channel, d.recipient, d.address,
	d.reason, d.thread, d.traceparent, d.tracestate`
)

// SessionStored are the columns of a session (alias s) that scanSession reads before its
// counts, which sessionColumns derive from its inquiries.
func (d *Dialect) SessionStored() string {
	return d.SessionOrder + `, s.key, s.status, s.agent, s.created_by, s.state, s.result, s.error, s.callback_url, s.callback_format, s.metadata,
	s.created_at, s.updated_at, s.completed_at`
}

// sessionColumns (alias s) are what scanSession reads.
func (d *Dialect) sessionColumns() string {
	return d.SessionStored() + `,
	(SELECT COUNT(*) FROM inquiries i WHERE i.session = s.key AND i.status = 'pending'),
	(SELECT COUNT(*) FROM inquiries i WHERE i.session = s.key)`
}

// inquiryOf decodes the stored document of inquiry id.
func inquiryOf(id int64, doc string) (*hitl.Inquiry, error) {
	inq := new(hitl.Inquiry)
	if err := json.Unmarshal([]byte(doc), inq); err != nil {
		return nil, fmt.Errorf("inquiry %d: stored document: %w", id, err)
	}
	inq.ID = id
	return inq, nil
}

// scanInquiry reads InquiryColumns.
func scanInquiry(sc Scanner) (*hitl.Inquiry, error) {
	var (
		id  int64
		doc string
	)
	if err := sc.Scan(&id, &doc); err != nil {
		return nil, err
	}
	return inquiryOf(id, doc)
}

// ScanInquiryState reads the row of an inquiry's stored state: its id, its document and its
// columns, in the order of hitl.InquiryColumns (the booleans as the reads take them).
func (d *Dialect) ScanInquiryState(sc Scanner) (*hitl.Inquiry, *hitl.InquiryColumns, error) {
	var (
		id  int64
		doc string
		c   hitl.InquiryColumns
	)
	if err := sc.Scan(&id, &doc, &c.Status, &c.Session, &c.Origin, &c.RequestType, &c.CreatedBy, &c.Unassigned, &c.Exclusive,
		d.ScanNullTime(&c.TimeoutAt), d.ScanNullTime(&c.NextReminderAt), d.ScanNullTime(&c.EscalateAt), d.ScanNullTime(&c.ClaimExpiresAt),
		d.ScanTime(&c.CreatedAt), d.ScanTime(&c.UpdatedAt), &c.Prompt, &c.Execution, &c.RespondedBy, &c.FallbackApplied); err != nil {
		return nil, nil, err
	}
	inq, err := inquiryOf(id, doc)
	if err != nil {
		return nil, nil, err
	}
	return inq, &c, nil
}

// scanSession reads sessionColumns: the session and the order it was created in.
func (d *Dialect) scanSession(sc Scanner) (*hitl.Session, int64, error) {
	var (
		s             hitl.Session
		ord           int64
		state, result *string
		meta          string
	)
	if err := sc.Scan(&ord, &s.Key, &s.Status, &s.Agent, &s.CreatedBy, &state, &result, &s.Error, &s.CallbackURL, &s.CallbackFormat, &meta,
		d.ScanTime(&s.CreatedAt), d.ScanTime(&s.UpdatedAt), d.ScanNullTime(&s.CompletedAt), &s.PendingInquiries, &s.InquiriesAsked); err != nil {
		return nil, 0, err
	}
	if state != nil {
		s.State = json.RawMessage(*state)
	}
	if result != nil {
		s.Result = json.RawMessage(*result)
	}
	if err := json.Unmarshal([]byte(meta), &s.Metadata); err != nil {
		return nil, 0, err
	}
	if s.Status == hitl.SessionRunning && s.PendingInquiries > 0 {
		s.Status = hitl.SessionAwaitingInput
	}
	return &s, ord, nil
}

// scanSessionOnly is scanSession without the order.
func (d *Dialect) scanSessionOnly(sc Scanner) (*hitl.Session, error) {
	s, _, err := d.scanSession(sc)
	return s, err
}

// ScanKey reads KeyColumns.
func (d *Dialect) ScanKey(sc Scanner) (*hitl.Key, error) {
	var k hitl.Key
	if err := sc.Scan(&k.ID, &k.Name, &k.IdentityID, d.ScanList(&k.Roles), d.ScanList(&k.Groups), d.ScanTime(&k.CreatedAt), d.ScanNullTime(&k.RevokedAt)); err != nil {
		return nil, err
	}
	return &k, nil
}

// scanWebhook reads WebhookColumns.
func (d *Dialect) scanWebhook(sc Scanner) (*hitl.Webhook, error) {
	var w hitl.Webhook
	if err := sc.Scan(&w.ID, &w.URL, d.ScanList(&w.Events), &w.Description, &w.CreatedBy, d.ScanTime(&w.CreatedAt)); err != nil {
		return nil, err
	}
	return &w, nil
}

// scanPerson reads PersonColumns.
func (d *Dialect) scanPerson(sc Scanner) (*hitl.Person, error) {
	var (
		p     hitl.Person
		hours string
	)
	if err := sc.Scan(&p.Name, &p.DisplayName, &p.Email, &p.SlackUserID, d.ScanList(&p.Channels), &p.TimeZone, &hours, d.ScanTime(&p.UpdatedAt)); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(hours), &p.WorkingHours); err != nil {
		return nil, fmt.Errorf("person %s: working_hours: %w", p.Name, err)
	}
	if len(p.WorkingHours) == 0 {
		p.WorkingHours = nil
	}
	return &p, nil
}

// scanAbsence reads AbsenceColumns.
func (d *Dialect) scanAbsence(sc Scanner) (*hitl.Absence, error) {
	var a hitl.Absence
	if err := sc.Scan(&a.Person, d.ScanTime(&a.From), d.ScanTime(&a.Until), &a.Delegate, &a.SetBy, d.ScanTime(&a.SetAt)); err != nil {
		return nil, err
	}
	return &a, nil
}

// scanGroup reads GroupColumns.
func (d *Dialect) scanGroup(sc Scanner) (*hitl.Group, error) {
	var g hitl.Group
	if err := sc.Scan(&g.Name, &g.Email, &g.SlackChannel, d.ScanTime(&g.UpdatedAt)); err != nil {
		return nil, err
	}
	return &g, nil
}

// scanChatWebhook reads ChatWebhookColumns.
func (d *Dialect) scanChatWebhook(sc Scanner) (*hitl.ChatWebhook, error) {
	var w hitl.ChatWebhook
	if err := sc.Scan(&w.ID, &w.Kind, &w.URL, d.ScanList(&w.Events), &w.CreatedBy, d.ScanTime(&w.CreatedAt)); err != nil {
		return nil, err
	}
	return &w, nil
}

// scanTemplate reads TemplateColumns.
func (d *Dialect) scanTemplate(sc Scanner) (*hitl.Template, error) {
	var (
		tpl hitl.Template
		doc string
	)
	if err := sc.Scan(&tpl.Name, &doc, d.ScanTime(&tpl.CreatedAt), d.ScanTime(&tpl.UpdatedAt), &tpl.UpdatedBy); err != nil {
		return nil, err
	}
	return &tpl, json.Unmarshal([]byte(doc), &tpl.TemplateRequest)
}

// scanEvent reads EventColumns, and then the columns of more.
func (d *Dialect) scanEvent(sc Scanner, more ...any) (*hitl.Event, error) {
	var (
		ev      hitl.Event
		session *string
		data    string
	)
	if err := sc.Scan(append([]any{&ev.Seq, &ev.ID, &ev.Type, d.ScanTime(&ev.Time), &ev.InquiryID, &session, &ev.Actor, &data}, more...)...); err != nil {
		return nil, err
	}
	if session != nil {
		ev.Session = *session
	}
	ev.Data = json.RawMessage(data)
	return &ev, nil
}

// Chained is an event with its link of the audit chain.
type Chained struct {
	Event *hitl.Event
	Hash  []byte
}

// chainedQuery reads a page of the log with its hashes: arguments after, limit.
func (d *Dialect) chainedQuery() string {
	return "SELECT " + EventColumns + ", hash FROM events WHERE seq > " + d.Placeholder(1) + " ORDER BY seq LIMIT " + d.Placeholder(2)
}

// scanChained reads EventColumns and the hash.
func (d *Dialect) scanChained(sc Scanner) (Chained, error) {
	var hash []byte
	ev, err := d.scanEvent(sc, &hash)
	return Chained{ev, hash}, err
}

// Delivery is a delivery and the order it was created in.
type Delivery struct {
	D   *hitl.Delivery
	Ord int64
}

// ScanDelivery reads DeliveryColumns, and the secret after them when withSecret.
func (d *Dialect) ScanDelivery(withSecret bool) func(Scanner) (Delivery, error) {
	return func(sc Scanner) (Delivery, error) {
		var (
			dl                 hitl.Delivery
			ord                int64
			webhookID, session *string
			payload            string
		)
		dest := []any{&ord, &dl.ID, &dl.Kind, &webhookID, &dl.URL, &dl.Target, &dl.EventSeq, &dl.EventID, &dl.EventType,
			&dl.InquiryID, &session, &payload, &dl.Status, &dl.Attempts, d.ScanNullTime(&dl.NextAttemptAt), d.ScanNullTime(&dl.LastAttemptAt), &dl.LastStatus,
			&dl.LastError, &dl.LastResponse, d.ScanTime(&dl.CreatedAt), d.ScanTime(&dl.RetryFrom), d.ScanNullTime(&dl.DeliveredAt), &dl.Channel, &dl.Recipient, &dl.Address,
			&dl.Reason, &dl.Thread, &dl.Traceparent, &dl.Tracestate}
		if withSecret {
			dest = append(dest, &dl.Secret)
		}
		if err := sc.Scan(dest...); err != nil {
			return Delivery{}, err
		}
		if webhookID != nil {
			dl.WebhookID = *webhookID
		}
		if session != nil {
			dl.Session = *session
		}
		dl.Payload = json.RawMessage(payload)
		return Delivery{&dl, ord}, nil
	}
}

// Deliveries are the deliveries of rows.
func Deliveries(rows []Delivery) []*hitl.Delivery {
	out := make([]*hitl.Delivery, len(rows))
	for i, r := range rows {
		out[i] = r.D
	}
	return out
}

// scanDeadline reads an (inquiry id, time) row.
func (d *Dialect) scanDeadline(sc Scanner) (hitl.Deadline, error) {
	var dl hitl.Deadline
	err := sc.Scan(&dl.InquiryID, d.ScanTime(&dl.At))
	return dl, err
}

// chainPage is how many events ChainedEvents reads at a time.
const chainPage = 500

// ChainedPage reads a page of the log with its hashes: the events after a seq.
func (d *Dialect) ChainedPage(ctx context.Context, db DB, after int64) ([]Chained, error) {
	return Query(ctx, d, db, "events", d.scanChained, d.chainedQuery(), after, chainPage)
}

// ChainedEvents calls fn with each event after a seq and its hash, in order, reading them a
// page at a time by page (ChainedPage, where the store reads).
func ChainedEvents(after int64, page func(after int64) ([]Chained, error), fn func(ev *hitl.Event, hash []byte) error) error {
	for {
		p, err := page(after)
		if err != nil {
			return err
		}
		for _, c := range p {
			if err := fn(c.Event, c.Hash); err != nil {
				return err
			}
		}
		if len(p) < chainPage {
			return nil
		}
		after = p[len(p)-1].Event.Seq
	}
}

// Events are the events of a page.
func Events(page []Chained) []*hitl.Event {
	evs := make([]*hitl.Event, len(page))
	for i, c := range page {
		evs[i] = c.Event
	}
	return evs
}

// WorkingHoursText is a person's working hours as their column keeps them: a JSON object,
// "{}" for none.
func WorkingHoursText(h hitl.WorkingHours) (string, error) {
	if len(h) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(h)
	return string(b), err
}
