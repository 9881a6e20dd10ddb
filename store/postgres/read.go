package postgres

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hitl-dev/hitl"
)

// where collects the conditions of a query and numbers its arguments.
type where struct {
	conds []string
	args  []any
}

// arg adds an argument and returns its placeholder.
func (w *where) arg(v any) string {
	w.args = append(w.args, v)
	return "$" + strconv.Itoa(len(w.args))
}

func (w *where) add(cond string) { w.conds = append(w.conds, cond) }

func (w *where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// visibleCond is the condition on inquiries (alias i) that v allows.
func (w *where) visibleCond(v hitl.Visibility) string {
	var ors []string
	if v.CreatedBy != "" {
		ors = append(ors, "i.created_by = "+w.arg(v.CreatedBy))
	}
	if v.Responder {
		ors = append(ors, "i.unassigned OR EXISTS (SELECT 1 FROM inquiry_assignees a WHERE a.inquiry_id = i.id AND a.assignee = ANY ("+w.arg(v.AnswerableBy)+"))")
	}
	if len(ors) == 0 {
		return "FALSE"
	}
	return "(" + strings.Join(ors, " OR ") + ")"
}

// likePattern matches text anywhere in an ILIKE with \ as the escape character. PostgreSQL
// text holds no NUL, so none is searched for (the prompt column is stored without them).
func likePattern(text string) string {
	return "%" + strings.NewReplacer("\x00", "", `\`, `\\`, "%", `\%`, "_", `\_`).Replace(text) + "%"
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func (s *Store) Inquiry(ctx context.Context, id int64) (*hitl.Inquiry, error) {
	inq, err := scanInquiry(s.pool.QueryRow(ctx, "SELECT i.id, i.doc FROM inquiries i WHERE i.id = $1", id))
	return inq, dbError(err, "inquiry "+itoa64(id))
}

// inquiryWhere is the condition of a list of inquiries, the page's position aside.
func inquiryWhere(f hitl.InquiryFilter) *where {
	w := &where{}
	// In a fixed order: the same filter is the same SQL text, which pgx's statement cache reuses.
	for _, c := range []struct{ col, v string }{{"i.status", string(f.Status)}, {"i.execution", f.Execution}, {"i.session", f.Session},
		{"i.origin", f.Origin}, {"i.request_type", string(f.RequestType)}, {"i.created_by", f.CreatedBy}} {
		if c.v != "" {
			w.add(c.col + " = " + w.arg(c.v))
		}
	}
	if f.Text != "" {
		// The prompt column, not the stored document, which would have to be parsed for each row.
		w.add(`i.prompt ILIKE ` + w.arg(likePattern(f.Text)) + ` ESCAPE '\'`)
	}
	if len(f.AssignedTo) > 0 {
		w.add("EXISTS (SELECT 1 FROM inquiry_assignees a WHERE a.inquiry_id = i.id AND NOT a.earlier AND a.assignee = ANY (" + w.arg(f.AssignedTo) + "))")
	}
	for _, k := range slices.Sorted(maps.Keys(f.Metadata)) {
		w.add("EXISTS (SELECT 1 FROM inquiry_metadata m WHERE m.inquiry_id = i.id AND m.key = " + w.arg(k) + " AND m.value = " + w.arg(f.Metadata[k]) + ")")
	}
	if f.CreatedAfter != nil {
		w.add("i.created_at > " + w.arg(*f.CreatedAfter))
	}
	if f.CreatedBefore != nil {
		w.add("i.created_at < " + w.arg(*f.CreatedBefore))
	}
	if !f.Visibility.All {
		w.add(w.visibleCond(f.Visibility))
	}
	return w
}

func (s *Store) Inquiries(ctx context.Context, f hitl.InquiryFilter) ([]*hitl.Inquiry, string, error) {
	cursor, err := f.Page.After()
	if err != nil {
		return nil, "", err
	}
	w := inquiryWhere(f)
	order := " ORDER BY i.id DESC"
	switch f.Order {
	case hitl.OrderDeadline:
		// The cursor is the last inquiry listed; the next page starts after its place.
		if cursor > 0 {
			w.add("(COALESCE(i.timeout_at, 'infinity'), i.id) > (SELECT COALESCE(timeout_at, 'infinity'), id FROM inquiries WHERE id = " + w.arg(cursor) + ")")
		}
		order = " ORDER BY COALESCE(i.timeout_at, 'infinity'), i.id"
	default:
		if cursor > 0 {
			w.add("i.id < " + w.arg(cursor))
		}
	}
	limit, offset := w.arg(f.Page.Limit+1), w.arg(f.Page.Offset)
	items, err := queryInquiries(ctx, s.pool, "SELECT i.id, i.doc FROM inquiries i"+w.String()+order+" LIMIT "+limit+" OFFSET "+offset, w.args...)
	if err != nil {
		return nil, "", err
	}
	items, next := hitl.PageOf(items, f.Page.Limit, func(i *hitl.Inquiry) int64 { return i.ID })
	return items, next, nil
}

func (s *Store) CountInquiries(ctx context.Context, f hitl.InquiryFilter) (int, error) {
	w := inquiryWhere(f)
	var n int
	err := s.pool.QueryRow(ctx, "SELECT COUNT(*) FROM inquiries i"+w.String(), w.args...).Scan(&n)
	return n, dbError(err, "inquiries")
}

func (s *Store) PendingCount(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, "SELECT COUNT(*) FROM inquiries WHERE status = 'pending'").Scan(&n)
	return n, dbError(err, "inquiries")
}

func (s *Store) PendingDeadlines(ctx context.Context) ([]hitl.Deadline, error) {
	return s.timers(ctx, "deadlines", "SELECT id, timeout_at FROM inquiries WHERE status = 'pending' AND timeout_at IS NOT NULL ORDER BY timeout_at")
}

func (s *Store) PendingNudges(ctx context.Context) ([]hitl.Deadline, error) {
	return s.timers(ctx, "reminders", `SELECT id, LEAST(next_reminder_at, escalate_at) FROM inquiries
		WHERE status = 'pending' AND (next_reminder_at IS NOT NULL OR escalate_at IS NOT NULL)`)
}

func (s *Store) PendingClaims(ctx context.Context) ([]hitl.Deadline, error) {
	return s.timers(ctx, "claims", "SELECT id, claim_expires_at FROM inquiries WHERE status = 'pending' AND claim_expires_at IS NOT NULL")
}

func (s *Store) AssigneeLoads(ctx context.Context, names []string) (map[string]hitl.AssigneeLoad, error) {
	out := map[string]hitl.AssigneeLoad{}
	if len(names) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT a.assignee, COUNT(*) FILTER (WHERE i.status = 'pending'), MAX(i.created_at)
		FROM inquiry_assignees a JOIN inquiries i ON i.id = a.inquiry_id
		WHERE NOT a.earlier AND a.assignee = ANY($1) GROUP BY a.assignee`, names)
	if err != nil {
		return nil, dbError(err, "assignee loads")
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var load hitl.AssigneeLoad
		if err := rows.Scan(&name, &load.Pending, &load.LastAssignedAt); err != nil {
			return nil, err
		}
		load.LastAssignedAt = load.LastAssignedAt.UTC()
		out[name] = load
	}
	return out, dbError(rows.Err(), "assignee loads")
}

// timers reads (inquiry id, time) rows.
func (s *Store) timers(ctx context.Context, what, query string) ([]hitl.Deadline, error) {
	rows, err := s.pool.Query(ctx, query)
	if err != nil {
		return nil, dbError(err, what)
	}
	defer rows.Close()
	var out []hitl.Deadline
	for rows.Next() {
		var d hitl.Deadline
		if err := rows.Scan(&d.InquiryID, &d.At); err != nil {
			return nil, dbError(err, what)
		}
		d.At = d.At.UTC()
		out = append(out, d)
	}
	return out, dbError(rows.Err(), what)
}

// sessionStored are the columns of a session (alias s) that scanSession reads before its
// counts, which sessionColumns derive from its inquiries.
const sessionStored = `s.ord, s.key, s.status, s.agent, s.created_by, s.state, s.result, s.error, s.callback_url, s.callback_format, s.metadata,
	s.created_at, s.updated_at, s.completed_at`

const sessionColumns = sessionStored + `,
	(SELECT COUNT(*) FROM inquiries i WHERE i.session = s.key AND i.status = 'pending'),
	(SELECT COUNT(*) FROM inquiries i WHERE i.session = s.key)`

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func scanSession(row pgx.Row) (*hitl.Session, int64, error) {
	var (
		s             hitl.Session
		ord           int64
		state, result *string
		meta          string
	)
	if err := row.Scan(&ord, &s.Key, &s.Status, &s.Agent, &s.CreatedBy, &state, &result, &s.Error, &s.CallbackURL, &s.CallbackFormat, &meta,
		&s.CreatedAt, &s.UpdatedAt, &s.CompletedAt, &s.PendingInquiries, &s.InquiriesAsked); err != nil {
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
	s.CreatedAt, s.UpdatedAt, s.CompletedAt = s.CreatedAt.UTC(), s.UpdatedAt.UTC(), utcPtr(s.CompletedAt)
	if s.Status == hitl.SessionRunning && s.PendingInquiries > 0 {
		s.Status = hitl.SessionAwaitingInput
	}
	return &s, ord, nil
}

func (s *Store) Session(ctx context.Context, key string) (*hitl.Session, error) {
	sess, _, err := scanSession(s.pool.QueryRow(ctx, "SELECT "+sessionColumns+" FROM sessions s WHERE s.key = $1", key))
	return sess, dbError(err, "session "+key)
}

func (s *Store) Sessions(ctx context.Context, f hitl.SessionFilter) ([]*hitl.Session, string, error) {
	var w where
	cursor, err := f.Page.After()
	if err != nil {
		return nil, "", err
	}
	if cursor > 0 {
		w.add("s.ord < " + w.arg(cursor))
	}
	if f.CreatedBy != "" {
		w.add("s.created_by = " + w.arg(f.CreatedBy))
	}
	const pending = "EXISTS (SELECT 1 FROM inquiries i WHERE i.session = s.key AND i.status = 'pending')"
	switch f.Status {
	case "":
	case hitl.SessionAwaitingInput:
		w.add("s.status = 'running' AND " + pending)
	case hitl.SessionRunning:
		w.add("s.status = 'running' AND NOT " + pending)
	default:
		w.add("s.status = " + w.arg(string(f.Status)))
	}
	limit := w.arg(f.Page.Limit + 1)
	rows, err := s.pool.Query(ctx, "SELECT "+sessionColumns+" FROM sessions s"+w.String()+" ORDER BY s.ord DESC LIMIT "+limit, w.args...)
	if err != nil {
		return nil, "", dbError(err, "sessions")
	}
	defer rows.Close()
	type row struct {
		s   *hitl.Session
		ord int64
	}
	var items []row
	for rows.Next() {
		sess, ord, err := scanSession(rows)
		if err != nil {
			return nil, "", dbError(err, "sessions")
		}
		items = append(items, row{sess, ord})
	}
	if err := rows.Err(); err != nil {
		return nil, "", dbError(err, "sessions")
	}
	items, next := hitl.PageOf(items, f.Page.Limit, func(r row) int64 { return r.ord })
	out := make([]*hitl.Session, len(items))
	for i, r := range items {
		out[i] = r.s
	}
	return out, next, nil
}

func (s *Store) SessionInquiries(ctx context.Context, key string, v hitl.Visibility) ([]*hitl.Inquiry, error) {
	var w where
	w.add("i.session = " + w.arg(key))
	if !v.All {
		w.add(w.visibleCond(v))
	}
	return queryInquiries(ctx, s.pool, "SELECT i.id, i.doc FROM inquiries i"+w.String()+" ORDER BY i.id", w.args...)
}

func (s *Store) Events(ctx context.Context, f hitl.EventFilter) ([]*hitl.Event, error) {
	var w where
	w.add("e.seq > " + w.arg(f.After))
	if len(f.Types) > 0 {
		w.add("e.type = ANY (" + w.arg(f.Types) + ")")
	}
	if f.Session != "" {
		w.add("e.session = " + w.arg(f.Session))
	}
	if f.InquiryID != 0 {
		w.add("e.inquiry_id = " + w.arg(f.InquiryID))
	}
	from := " FROM events e"
	if !f.Visibility.All {
		// Inquiry events are visible with their inquiry; session events to the session's creator.
		from += " LEFT JOIN inquiries i ON i.id = e.inquiry_id LEFT JOIN sessions s ON e.inquiry_id IS NULL AND s.key = e.session"
		w.add("((e.inquiry_id IS NOT NULL AND " + w.visibleCond(f.Visibility) + ") OR (e.inquiry_id IS NULL AND s.created_by = " + w.arg(f.Visibility.CreatedBy) + "))")
	}
	limit := w.arg(f.Limit)
	rows, err := s.pool.Query(ctx, "SELECT e.seq, e.id, e.type, e.time, e.inquiry_id, e.session, e.actor, e.data"+from+w.String()+" ORDER BY e.seq LIMIT "+limit, w.args...)
	if err != nil {
		return nil, dbError(err, "events")
	}
	defer rows.Close()
	var out []*hitl.Event
	for rows.Next() {
		var (
			ev      hitl.Event
			session *string
			data    string
		)
		if err := rows.Scan(&ev.Seq, &ev.ID, &ev.Type, &ev.Time, &ev.InquiryID, &session, &ev.Actor, &data); err != nil {
			return nil, dbError(err, "events")
		}
		ev.Time = ev.Time.UTC()
		if session != nil {
			ev.Session = *session
		}
		ev.Data = json.RawMessage(data)
		out = append(out, &ev)
	}
	return out, dbError(rows.Err(), "events")
}

func (s *Store) LastEventSeq(ctx context.Context) (int64, error) {
	var seq int64
	err := s.pool.QueryRow(ctx, "SELECT COALESCE(MAX(seq), 0) FROM events").Scan(&seq)
	return seq, dbError(err, "events")
}

// keyColumns read a key (alias k) with its name's identity.
const keyColumns = "k.id, k.name, COALESCE((SELECT id FROM identities WHERE name = k.name), 0), k.roles, k.groups, k.created_at, k.revoked_at"

func scanKey(row pgx.Row) (*hitl.Key, error) {
	var k hitl.Key
	if err := row.Scan(&k.ID, &k.Name, &k.IdentityID, &k.Roles, &k.Groups, &k.CreatedAt, &k.RevokedAt); err != nil {
		return nil, err
	}
	k.CreatedAt, k.RevokedAt = k.CreatedAt.UTC(), utcPtr(k.RevokedAt)
	return &k, nil
}

func (s *Store) KeyByTokenHash(ctx context.Context, hash string) (*hitl.Key, error) {
	k, err := scanKey(s.pool.QueryRow(ctx, "SELECT "+keyColumns+" FROM api_keys k WHERE token_hash = $1 AND revoked_at IS NULL", hash))
	return k, dbError(err, "key")
}

func (s *Store) Keys(ctx context.Context) ([]*hitl.Key, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+keyColumns+" FROM api_keys k ORDER BY created_at, id")
	if err != nil {
		return nil, dbError(err, "keys")
	}
	defer rows.Close()
	var out []*hitl.Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, dbError(err, "keys")
		}
		out = append(out, k)
	}
	return out, dbError(rows.Err(), "keys")
}
