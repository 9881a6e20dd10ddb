package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/hitl-dev/hitl"
)

// where collects the conditions and arguments of a query.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

func (w *where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// likePattern matches text anywhere in a LIKE with \ as the escape character.
func likePattern(text string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(text) + "%"
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

func anyArgs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// visible narrows inquiries (alias i) to what v allows.
func (w *where) visible(v hitl.Visibility) {
	if v.All {
		return
	}
	var ors []string
	var args []any
	if v.CreatedBy != "" {
		ors = append(ors, "i.created_by = ?")
		args = append(args, v.CreatedBy)
	}
	if v.Responder {
		cond := "i.unassigned = 1"
		if len(v.AnswerableBy) > 0 {
			cond += " OR EXISTS (SELECT 1 FROM inquiry_assignees a WHERE a.inquiry_id = i.id AND a.assignee IN (" + placeholders(len(v.AnswerableBy)) + "))"
			args = append(args, anyArgs(v.AnswerableBy)...)
		}
		ors = append(ors, cond)
	}
	if len(ors) == 0 {
		w.add("0")
		return
	}
	w.add("("+strings.Join(ors, " OR ")+")", args...)
}

func (s *Store) Inquiry(ctx context.Context, id int64) (*hitl.Inquiry, error) {
	return onReader(s, ctx, func() (*hitl.Inquiry, error) { return getInquiry(ctx, s.read, id) })
}

func (s *Store) Inquiries(ctx context.Context, f hitl.InquiryFilter) ([]*hitl.Inquiry, string, error) {
	type page struct {
		items []*hitl.Inquiry
		next  string
	}
	p, err := onReader(s, ctx, func() (page, error) {
		items, next, err := s.inquiries(ctx, f)
		return page{items, next}, err
	})
	return p.items, p.next, err
}

// noDeadline sorts inquiries without a deadline after every deadline.
const noDeadline = "9223372036854775807"

// inquiryWhere is the condition of a list of inquiries, the page's position aside.
func inquiryWhere(f hitl.InquiryFilter) where {
	var w where
	if f.Status != "" {
		w.add("i.status = ?", f.Status)
	}
	if f.Execution != "" {
		w.add("i.execution = ?", f.Execution)
	}
	if f.Session != "" {
		w.add("i.session = ?", f.Session)
	}
	if f.Origin != "" {
		w.add("i.origin = ?", f.Origin)
	}
	if f.RequestType != "" {
		w.add("i.request_type = ?", f.RequestType)
	}
	if f.CreatedBy != "" {
		w.add("i.created_by = ?", f.CreatedBy)
	}
	if f.Text != "" {
		// The prompt column, not the stored document: JSON functions refuse deep documents.
		w.add(`i.prompt LIKE ? ESCAPE '\'`, likePattern(f.Text))
	}
	if len(f.AssignedTo) > 0 {
		w.add("EXISTS (SELECT 1 FROM inquiry_assignees a WHERE a.inquiry_id = i.id AND a.earlier = 0 AND a.assignee IN ("+placeholders(len(f.AssignedTo))+"))", anyArgs(f.AssignedTo)...)
	}
	for _, k := range slices.Sorted(maps.Keys(f.Metadata)) { // one SQL text per filter
		w.add("EXISTS (SELECT 1 FROM inquiry_metadata m WHERE m.inquiry_id = i.id AND m.key = ? AND m.value = ?)", k, f.Metadata[k])
	}
	if f.CreatedAfter != nil {
		w.add("i.created_at > ?", micros(*f.CreatedAfter))
	}
	if f.CreatedBefore != nil {
		w.add("i.created_at < ?", micros(*f.CreatedBefore))
	}
	w.visible(f.Visibility)
	return w
}

func (s *Store) inquiries(ctx context.Context, f hitl.InquiryFilter) ([]*hitl.Inquiry, string, error) {
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
			w.add("(COALESCE(i.timeout_at, "+noDeadline+"), i.id) > (SELECT COALESCE(timeout_at, "+noDeadline+"), id FROM inquiries WHERE id = ?)", cursor)
		}
		order = " ORDER BY COALESCE(i.timeout_at, " + noDeadline + "), i.id"
	default:
		if cursor > 0 {
			w.add("i.id < ?", cursor)
		}
	}
	items, err := queryInquiries(ctx, s.read, "SELECT "+inquiryColumns+" FROM inquiries i"+w.String()+order+" LIMIT ? OFFSET ?",
		append(w.args, f.Page.Limit+1, f.Page.Offset)...)
	if err != nil {
		return nil, "", err
	}
	items, next := hitl.PageOf(items, f.Page.Limit, func(i *hitl.Inquiry) int64 { return i.ID })
	return items, next, nil
}

func (s *Store) CountInquiries(ctx context.Context, f hitl.InquiryFilter) (int, error) {
	return onReader(s, ctx, func() (int, error) {
		w := inquiryWhere(f)
		var n int
		err := s.read.QueryRowContext(ctx, "SELECT COUNT(*) FROM inquiries i"+w.String(), w.args...).Scan(&n)
		return n, dbError(err, "inquiries")
	})
}

func (s *Store) PendingCount(ctx context.Context) (int, error) {
	return onReader(s, ctx, func() (int, error) { return s.pendingCount(ctx) })
}

func (s *Store) pendingCount(ctx context.Context) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, "SELECT COUNT(*) FROM inquiries WHERE status = 'pending'").Scan(&n)
	return n, dbError(err, "inquiries")
}

// PendingDeadlines, PendingNudges and PendingClaims name their partial indexes: without
// statistics SQLite prefers inquiries_status and reads every pending row (with a million
// pending, 0.4-0.7 s per query at start-up even when none has the timer, and a sort), where
// the partial index holds just the rows that have it, in order.
func (s *Store) PendingDeadlines(ctx context.Context) ([]hitl.Deadline, error) {
	return onReader(s, ctx, func() ([]hitl.Deadline, error) {
		return s.timers(ctx, "deadlines", "SELECT id, timeout_at FROM inquiries INDEXED BY inquiries_deadline WHERE status = 'pending' AND timeout_at IS NOT NULL ORDER BY timeout_at")
	})
}

func (s *Store) PendingNudges(ctx context.Context) ([]hitl.Deadline, error) {
	return onReader(s, ctx, func() ([]hitl.Deadline, error) {
		return s.timers(ctx, "reminders", `SELECT id, MIN(COALESCE(next_reminder_at, escalate_at), COALESCE(escalate_at, next_reminder_at))
			FROM inquiries INDEXED BY inquiries_nudges WHERE status = 'pending' AND (next_reminder_at IS NOT NULL OR escalate_at IS NOT NULL)`)
	})
}

func (s *Store) PendingClaims(ctx context.Context) ([]hitl.Deadline, error) {
	return onReader(s, ctx, func() ([]hitl.Deadline, error) {
		return s.timers(ctx, "claims", "SELECT id, claim_expires_at FROM inquiries INDEXED BY inquiries_claims WHERE status = 'pending' AND claim_expires_at IS NOT NULL")
	})
}

func (s *Store) AssigneeLoads(ctx context.Context, names []string) (map[string]hitl.AssigneeLoad, error) {
	out := map[string]hitl.AssigneeLoad{}
	if len(names) == 0 {
		return out, nil
	}
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = n
	}
	return onReader(s, ctx, func() (map[string]hitl.AssigneeLoad, error) {
		rows, err := s.read.QueryContext(ctx, `SELECT a.assignee, SUM(i.status = 'pending'), MAX(i.created_at)
			FROM inquiry_assignees a JOIN inquiries i ON i.id = a.inquiry_id
			WHERE a.earlier = 0 AND a.assignee IN (`+placeholders(len(names))+`) GROUP BY a.assignee`, args...)
		if err != nil {
			return nil, dbError(err, "assignee loads")
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			var pending, last int64
			if err := rows.Scan(&name, &pending, &last); err != nil {
				return nil, err
			}
			out[name] = hitl.AssigneeLoad{Pending: int(pending), LastAssignedAt: fromMicros(last)}
		}
		return out, dbError(rows.Err(), "assignee loads")
	})
}

// timers reads (inquiry id, time) rows.
func (s *Store) timers(ctx context.Context, what, query string) ([]hitl.Deadline, error) {
	rows, err := s.read.QueryContext(ctx, query)
	if err != nil {
		return nil, dbError(err, what)
	}
	defer rows.Close()
	var out []hitl.Deadline
	for rows.Next() {
		var d hitl.Deadline
		var at int64
		if err := rows.Scan(&d.InquiryID, &at); err != nil {
			return nil, err
		}
		d.At = fromMicros(at)
		out = append(out, d)
	}
	return out, dbError(rows.Err(), what)
}

// sessionStored are the columns of a session (alias s) that scanSession reads before its
// counts, which sessionColumns derive from its inquiries.
const sessionStored = `s.rowid, s.key, s.status, s.agent, s.created_by, s.state, s.result, s.error, s.callback_url, s.callback_format, s.metadata,
	s.created_at, s.updated_at, s.completed_at`

const sessionColumns = sessionStored + `,
	(SELECT COUNT(*) FROM inquiries i WHERE i.session = s.key AND i.status = 'pending'),
	(SELECT COUNT(*) FROM inquiries i WHERE i.session = s.key)`

func scanSession(sc interface{ Scan(...any) error }) (*hitl.Session, int64, error) {
	var (
		s                          hitl.Session
		rowid, created, updated    int64
		state, result, errText, cb sql.NullString
		meta                       string
		completed                  sql.NullInt64
	)
	if err := sc.Scan(&rowid, &s.Key, &s.Status, &s.Agent, &s.CreatedBy, &state, &result, &errText, &cb, &s.CallbackFormat, &meta,
		&created, &updated, &completed, &s.PendingInquiries, &s.InquiriesAsked); err != nil {
		return nil, 0, err
	}
	if state.Valid {
		s.State = json.RawMessage(state.String)
	}
	if result.Valid {
		s.Result = json.RawMessage(result.String)
	}
	if errText.Valid {
		s.Error = &errText.String
	}
	if cb.Valid {
		s.CallbackURL = &cb.String
	}
	if err := json.Unmarshal([]byte(meta), &s.Metadata); err != nil {
		return nil, 0, err
	}
	s.CreatedAt, s.UpdatedAt = fromMicros(created), fromMicros(updated)
	if completed.Valid {
		t := fromMicros(completed.Int64)
		s.CompletedAt = &t
	}
	if s.Status == hitl.SessionRunning && s.PendingInquiries > 0 {
		s.Status = hitl.SessionAwaitingInput
	}
	return &s, rowid, nil
}

func getSession(ctx context.Context, q querier, key string) (*hitl.Session, error) {
	s, _, err := scanSession(q.QueryRowContext(ctx, "SELECT "+sessionColumns+" FROM sessions s WHERE s.key = ?", key))
	return s, dbError(err, "session "+key)
}

func (s *Store) Session(ctx context.Context, key string) (*hitl.Session, error) {
	return onReader(s, ctx, func() (*hitl.Session, error) { return getSession(ctx, s.read, key) })
}

func (s *Store) Sessions(ctx context.Context, f hitl.SessionFilter) ([]*hitl.Session, string, error) {
	type page struct {
		items []*hitl.Session
		next  string
	}
	p, err := onReader(s, ctx, func() (page, error) {
		items, next, err := s.sessions(ctx, f)
		return page{items, next}, err
	})
	return p.items, p.next, err
}

func (s *Store) sessions(ctx context.Context, f hitl.SessionFilter) ([]*hitl.Session, string, error) {
	var w where
	cursor, err := f.Page.After()
	if err != nil {
		return nil, "", err
	}
	if cursor > 0 {
		w.add("s.rowid < ?", cursor)
	}
	if f.CreatedBy != "" {
		w.add("s.created_by = ?", f.CreatedBy)
	}
	const pending = "EXISTS (SELECT 1 FROM inquiries i WHERE i.session = s.key AND i.status = 'pending')"
	switch f.Status {
	case "":
	case hitl.SessionAwaitingInput:
		w.add("s.status = 'running' AND " + pending)
	case hitl.SessionRunning:
		w.add("s.status = 'running' AND NOT " + pending)
	default:
		w.add("s.status = ?", f.Status)
	}
	rows, err := s.read.QueryContext(ctx, "SELECT "+sessionColumns+" FROM sessions s"+w.String()+" ORDER BY s.rowid DESC LIMIT ?", append(w.args, f.Page.Limit+1)...)
	if err != nil {
		return nil, "", dbError(err, "sessions")
	}
	defer rows.Close()
	type row struct {
		s     *hitl.Session
		rowid int64
	}
	var items []row
	for rows.Next() {
		sess, rowid, err := scanSession(rows)
		if err != nil {
			return nil, "", err
		}
		items = append(items, row{sess, rowid})
	}
	if err := rows.Err(); err != nil {
		return nil, "", dbError(err, "sessions")
	}
	items, next := hitl.PageOf(items, f.Page.Limit, func(r row) int64 { return r.rowid })
	out := make([]*hitl.Session, len(items))
	for i, r := range items {
		out[i] = r.s
	}
	return out, next, nil
}

func (s *Store) SessionInquiries(ctx context.Context, key string, v hitl.Visibility) ([]*hitl.Inquiry, error) {
	return onReader(s, ctx, func() ([]*hitl.Inquiry, error) { return s.sessionInquiries(ctx, key, v) })
}

func (s *Store) sessionInquiries(ctx context.Context, key string, v hitl.Visibility) ([]*hitl.Inquiry, error) {
	var w where
	w.add("i.session = ?", key)
	w.visible(v)
	return queryInquiries(ctx, s.read, "SELECT "+inquiryColumns+" FROM inquiries i"+w.String()+" ORDER BY i.id", w.args...)
}

func (s *Store) Events(ctx context.Context, f hitl.EventFilter) ([]*hitl.Event, error) {
	return onReader(s, ctx, func() ([]*hitl.Event, error) { return s.events(ctx, f) })
}

func (s *Store) events(ctx context.Context, f hitl.EventFilter) ([]*hitl.Event, error) {
	var w where
	w.add("e.seq > ?", f.After)
	if len(f.Types) > 0 {
		w.add("e.type IN ("+placeholders(len(f.Types))+")", anyArgs(f.Types)...)
	}
	if f.Session != "" {
		w.add("e.session = ?", f.Session)
	}
	if f.InquiryID != 0 {
		w.add("e.inquiry_id = ?", f.InquiryID)
	}
	from := " FROM events e"
	if !f.Visibility.All {
		// Inquiry events are visible with their inquiry; session events to the session's creator.
		from += " LEFT JOIN inquiries i ON i.id = e.inquiry_id LEFT JOIN sessions s ON e.inquiry_id IS NULL AND s.key = e.session"
		var iv where
		iv.visible(f.Visibility)
		w.add("((e.inquiry_id IS NOT NULL AND "+strings.Join(iv.conds, " AND ")+") OR (e.inquiry_id IS NULL AND s.created_by = ?))",
			append(iv.args, f.Visibility.CreatedBy)...)
	}
	rows, err := s.read.QueryContext(ctx, "SELECT e.seq, e.id, e.type, e.time, e.inquiry_id, e.session, e.actor, e.data"+from+w.String()+" ORDER BY e.seq LIMIT ?",
		append(w.args, f.Limit)...)
	if err != nil {
		return nil, dbError(err, "events")
	}
	defer rows.Close()
	var out []*hitl.Event
	for rows.Next() {
		ev, err := scanEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, dbError(rows.Err(), "events")
}

func (s *Store) LastEventSeq(ctx context.Context) (int64, error) {
	return onReader(s, ctx, func() (int64, error) {
		var seq int64
		err := s.read.QueryRowContext(ctx, "SELECT COALESCE(MAX(seq), 0) FROM events").Scan(&seq)
		return seq, dbError(err, "events")
	})
}

func scanKey(sc interface{ Scan(...any) error }) (*hitl.Key, error) {
	var (
		k             hitl.Key
		roles, groups string
		created       int64
		revoked       sql.NullInt64
	)
	if err := sc.Scan(&k.ID, &k.Name, &k.IdentityID, &roles, &groups, &created, &revoked); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(roles), &k.Roles); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(groups), &k.Groups); err != nil {
		return nil, err
	}
	k.CreatedAt = fromMicros(created)
	if revoked.Valid {
		t := fromMicros(revoked.Int64)
		k.RevokedAt = &t
	}
	return &k, nil
}

// keyColumns read a key (alias k) with its name's identity.
const keyColumns = "k.id, k.name, COALESCE((SELECT id FROM identities WHERE name = k.name), 0), k.roles, k.groups, k.created_at, k.revoked_at"

func (s *Store) KeyByTokenHash(ctx context.Context, hash string) (*hitl.Key, error) {
	return onReader(s, ctx, func() (*hitl.Key, error) { return s.keyByTokenHash(ctx, hash) })
}

func (s *Store) keyByTokenHash(ctx context.Context, hash string) (*hitl.Key, error) {
	k, err := scanKey(s.read.QueryRowContext(ctx, "SELECT "+keyColumns+" FROM api_keys k WHERE token_hash = ? AND revoked_at IS NULL", hash))
	return k, dbError(err, "key")
}

func (s *Store) Keys(ctx context.Context) ([]*hitl.Key, error) {
	return onReader(s, ctx, func() ([]*hitl.Key, error) { return s.keys(ctx) })
}

func (s *Store) keys(ctx context.Context) ([]*hitl.Key, error) {
	rows, err := s.read.QueryContext(ctx, "SELECT "+keyColumns+" FROM api_keys k ORDER BY created_at, id")
	if err != nil {
		return nil, dbError(err, "keys")
	}
	defer rows.Close()
	var out []*hitl.Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, dbError(rows.Err(), "keys")
}
