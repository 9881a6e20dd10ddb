package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// txn is one change's view of the writer's transaction.
type txn struct {
	ctx context.Context
	tx  *batchTx
}

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func nullMicros(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: micros(*t), Valid: true}
}

func nullString(s *string) sql.NullString {
	if s == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: *s, Valid: true}
}

// optional is s, NULL when empty.
func optional(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

func nullJSON(m json.RawMessage) sql.NullString {
	if hitl.IsNull(m) {
		return sql.NullString{}
	}
	return sql.NullString{String: string(m), Valid: true}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// querier is what reads need, from the read pool or inside the writer's transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func getInquiry(ctx context.Context, q querier, id int64) (*hitl.Inquiry, error) {
	return dialect.Inquiry(ctx, sqlstore.SQL{Q: q}, id, "")
}

func (t *txn) Inquiry(id int64) (*hitl.Inquiry, error) { return getInquiry(t.ctx, t.tx, id) }

func (t *txn) InsertInquiry(inq *hitl.Inquiry) error {
	doc, err := json.Marshal(inq)
	if err != nil {
		return err
	}
	c := inq.Columns()
	err = t.tx.QueryRowContext(t.ctx, `INSERT INTO inquiries
		(status, session, origin, request_type, created_by, unassigned, exclusive, timeout_at, next_reminder_at, escalate_at,
		created_at, updated_at, prompt, execution, doc, dedup_key, dedup_hash, joined)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		c.Status, nullString(c.Session), c.Origin, c.RequestType, c.CreatedBy, boolInt(c.Unassigned),
		boolInt(c.Exclusive), nullMicros(c.TimeoutAt), nullMicros(c.NextReminderAt), nullMicros(c.EscalateAt),
		micros(c.CreatedAt), micros(c.UpdatedAt), c.Prompt, nullString(c.Execution), doc,
		optional(inq.DedupKey), optional(inq.DedupHash), inq.Joined).Scan(&inq.ID)
	if err != nil && inq.DedupKey != "" && inq.Joined == nil {
		return dbError(err, "pending exclusive inquiry in session "+inq.Session+", or pending inquiry with dedup key "+inq.DedupKey+",")
	}
	if err != nil {
		return dbError(err, "pending exclusive inquiry in session "+inq.Session)
	}
	if err := t.insertAssignees(inq.ID, inq.AssignedTo); err != nil {
		return err
	}
	for k, v := range inq.Metadata {
		if _, err := t.tx.ExecContext(t.ctx, "INSERT INTO inquiry_metadata (key, value, inquiry_id) VALUES (?, ?, ?)", k, v, inq.ID); err != nil {
			return dbError(err, "metadata")
		}
	}
	return nil
}

func (t *txn) ResolveInquiry(inq *hitl.Inquiry) error {
	doc, err := json.Marshal(inq)
	if err != nil {
		return err
	}
	res, err := t.tx.ExecContext(t.ctx, `UPDATE inquiries SET status = ?, updated_at = ?, responded_by = ?, fallback_applied = ?, doc = ?,
		receipt = ?, receipt_jti = ? WHERE id = ? AND status = 'pending'`,
		inq.Status, micros(inq.UpdatedAt), nullString(inq.RespondedBy), boolInt(inq.FallbackApplied), doc,
		emptyNull(inq.Receipt), emptyNull(inq.ReceiptID()), inq.ID)
	return oneRow(res, err, "inquiry", hitl.Errorf(hitl.EConflict, "inquiry %d is no longer pending", inq.ID))
}

func (t *txn) insertAssignees(id int64, assignees []string) error {
	for _, a := range assignees {
		if _, err := t.tx.ExecContext(t.ctx, "INSERT OR IGNORE INTO inquiry_assignees (assignee, inquiry_id) VALUES (?, ?)", a, id); err != nil {
			return dbError(err, "assignee")
		}
	}
	return nil
}

func (t *txn) NudgeInquiry(inq, prev *hitl.Inquiry) error {
	doc, err := json.Marshal(inq)
	if err != nil {
		return err
	}
	c, was := inq.Columns(), prev.Columns()
	res, err := t.tx.ExecContext(t.ctx, `UPDATE inquiries SET next_reminder_at = ?, escalate_at = ?, unassigned = ?, updated_at = ?, doc = ?
		WHERE id = ? AND status = 'pending' AND next_reminder_at IS ? AND escalate_at IS ?`,
		nullMicros(c.NextReminderAt), nullMicros(c.EscalateAt), boolInt(c.Unassigned), micros(c.UpdatedAt), doc,
		inq.ID, nullMicros(was.NextReminderAt), nullMicros(was.EscalateAt))
	if err := oneRow(res, err, "inquiry", hitl.Errorf(hitl.EConflict, "inquiry %d is no longer pending, or its timers fired already", inq.ID)); err != nil {
		return err
	}
	return t.insertAssignees(inq.ID, inq.AssignedTo)
}

func (t *txn) UpdatePendingInquiry(inq *hitl.Inquiry) error {
	doc, err := json.Marshal(inq)
	if err != nil {
		return err
	}
	c := inq.Columns()
	res, err := t.tx.ExecContext(t.ctx, `UPDATE inquiries SET timeout_at = ?, next_reminder_at = ?, escalate_at = ?, claim_expires_at = ?,
		unassigned = ?, updated_at = ?, doc = ? WHERE id = ? AND status = 'pending'`,
		nullMicros(c.TimeoutAt), nullMicros(c.NextReminderAt), nullMicros(c.EscalateAt), nullMicros(c.ClaimExpiresAt),
		boolInt(c.Unassigned), micros(c.UpdatedAt), doc, inq.ID)
	if err := oneRow(res, err, "inquiry", hitl.Errorf(hitl.EConflict, "inquiry %d is no longer pending", inq.ID)); err != nil {
		return err
	}
	// Those no longer assigned stay, as earlier assignees; the current ones are (again) assigned.
	if _, err := t.tx.ExecContext(t.ctx, "UPDATE inquiry_assignees SET earlier = 1 WHERE inquiry_id = ?", inq.ID); err != nil {
		return dbError(err, "assignee")
	}
	for _, a := range inq.AssignedTo {
		if _, err := t.tx.ExecContext(t.ctx, `INSERT INTO inquiry_assignees (assignee, inquiry_id) VALUES (?, ?)
			ON CONFLICT (assignee, inquiry_id) DO UPDATE SET earlier = 0`, a, inq.ID); err != nil {
			return dbError(err, "assignee")
		}
	}
	return nil
}

func (t *txn) MarkInquiryResumed(inq *hitl.Inquiry) error {
	doc, err := json.Marshal(inq)
	if err != nil {
		return err
	}
	res, err := t.tx.ExecContext(t.ctx, `UPDATE inquiries SET doc = ?
		WHERE id = ? AND status != 'pending' AND json_extract(doc, '$.resumed_at') IS NULL`, doc, inq.ID)
	return oneRow(res, err, "inquiry", hitl.Errorf(hitl.EConflict, "inquiry %d is pending or has resumed already", inq.ID))
}

// LockPending: the single writer holds every row already, so it only filters by status.
func (t *txn) LockPending(ids []int64) ([]*hitl.Inquiry, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return dialect.Inquiries(t.ctx, sqlstore.SQL{Q: t.tx}, "SELECT "+sqlstore.InquiryColumns+" FROM inquiries i WHERE i.status = 'pending' AND i.id IN ("+sqlstore.Placeholders(len(ids))+") ORDER BY i.id", sqlstore.Args(ids)...)
}

func (t *txn) PendingDedupPrimary(key string) (*hitl.Inquiry, error) {
	var id int64
	var hash sql.NullString
	err := t.tx.QueryRowContext(t.ctx, "SELECT id, dedup_hash FROM inquiries WHERE dedup_key = ? AND joined IS NULL AND status = 'pending'", key).Scan(&id, &hash)
	if err != nil {
		return nil, dbError(err, "pending inquiry with dedup key "+key)
	}
	inq, err := t.Inquiry(id)
	if err != nil {
		return nil, err
	}
	inq.DedupHash = hash.String
	return inq, nil
}

func (t *txn) JoinedInquiries(primary int64) ([]*hitl.Inquiry, error) {
	return dialect.Inquiries(t.ctx, sqlstore.SQL{Q: t.tx}, "SELECT "+sqlstore.InquiryColumns+" FROM inquiries i WHERE i.joined = ? AND i.status = 'pending' ORDER BY i.id", primary)
}

func (t *txn) SetJoined(inq *hitl.Inquiry) error {
	doc, err := json.Marshal(inq)
	if err != nil {
		return err
	}
	res, err := t.tx.ExecContext(t.ctx, "UPDATE inquiries SET joined = ?, updated_at = ?, doc = ? WHERE id = ? AND status = 'pending'",
		inq.Joined, micros(inq.UpdatedAt), doc, inq.ID)
	return oneRow(res, err, "inquiry", hitl.Errorf(hitl.EConflict, "inquiry %d is no longer pending", inq.ID))
}

func (t *txn) PendingInquiries(session string) ([]*hitl.Inquiry, error) {
	return dialect.Inquiries(t.ctx, sqlstore.SQL{Q: t.tx}, "SELECT "+sqlstore.InquiryColumns+" FROM inquiries i WHERE i.session = ? AND i.status = 'pending' ORDER BY i.id", session)
}

// storedStatus is the status kept: awaiting_input is derived from pending inquiries when read.
func storedStatus(s hitl.SessionStatus) hitl.SessionStatus {
	if s == hitl.SessionAwaitingInput {
		return hitl.SessionRunning
	}
	return s
}

func (t *txn) Session(key string) (*hitl.Session, error) { return getSession(t.ctx, t.tx, key) }

// SessionVersion: the events this transaction appended are in the table already.
func (t *txn) SessionVersion(key string) (int64, error) {
	return dialect.SessionVersion(t.ctx, sqlstore.SQL{Q: t.tx}, key)
}

func (t *txn) InsertSession(s *hitl.Session) error {
	meta, _ := json.Marshal(s.Metadata)
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO sessions
		(key, status, agent, created_by, state, result, error, callback_url, callback_format, metadata, created_at, updated_at, completed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.Key, storedStatus(s.Status), s.Agent, s.CreatedBy, nullJSON(s.State), nullJSON(s.Result), nullString(s.Error),
		nullString(s.CallbackURL), s.CallbackFormat, meta, micros(s.CreatedAt), micros(s.UpdatedAt), nullMicros(s.CompletedAt))
	return dbError(err, "session "+s.Key)
}

func (t *txn) UpdateSession(s *hitl.Session) error {
	meta, _ := json.Marshal(s.Metadata)
	res, err := t.tx.ExecContext(t.ctx, `UPDATE sessions SET status = ?, agent = ?, state = ?, result = ?, error = ?,
		callback_url = ?, callback_format = ?, metadata = ?, updated_at = ?, completed_at = ? WHERE key = ?`,
		storedStatus(s.Status), s.Agent, nullJSON(s.State), nullJSON(s.Result), nullString(s.Error),
		nullString(s.CallbackURL), s.CallbackFormat, meta, micros(s.UpdatedAt), nullMicros(s.CompletedAt), s.Key)
	return oneRow(res, err, "session", notFound("session "+s.Key))
}

func (t *txn) IdempotencyKey(principal, key string) (int64, string, error) {
	var (
		id   int64
		hash string
	)
	err := t.tx.QueryRowContext(t.ctx, "SELECT inquiry_id, request_hash FROM idempotency_keys WHERE principal = ? AND key = ?", principal, key).Scan(&id, &hash)
	return id, hash, dbError(err, "idempotency key")
}

func (t *txn) InsertIdempotencyKey(principal, key, requestHash string, inquiryID int64, at time.Time) error {
	_, err := t.tx.ExecContext(t.ctx, "INSERT INTO idempotency_keys (principal, key, request_hash, inquiry_id, created_at) VALUES (?, ?, ?, ?, ?)",
		principal, key, requestHash, inquiryID, micros(at))
	return dbError(err, "idempotency key")
}

func (t *txn) DeleteIdempotencyKeys(before time.Time, limit int) (int, error) {
	res, err := t.tx.ExecContext(t.ctx, `DELETE FROM idempotency_keys WHERE (principal, key) IN
		(SELECT principal, key FROM idempotency_keys WHERE created_at < ? LIMIT ?)`, micros(before), limit)
	if err != nil {
		return 0, dbError(err, "idempotency keys")
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func (t *txn) InsertKey(k *hitl.Key, tokenHash string) error {
	roles, _ := json.Marshal(k.Roles)
	groups, _ := json.Marshal(k.Groups)
	_, err := t.tx.ExecContext(t.ctx, "INSERT INTO api_keys (id, name, roles, groups, token_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)",
		k.ID, k.Name, roles, groups, tokenHash, micros(k.CreatedAt))
	return dbError(err, "key")
}

func (t *txn) SetKeyToken(id, tokenHash string) error {
	res, err := t.tx.ExecContext(t.ctx, "UPDATE api_keys SET token_hash = ?, revoked_at = NULL WHERE id = ?", tokenHash, id)
	return oneRow(res, err, "key", notFound("key "+id))
}

func (t *txn) RevokeKey(id string, at time.Time) error {
	res, err := t.tx.ExecContext(t.ctx, "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?", micros(at), id)
	return oneRow(res, err, "key", notFound("key "+id))
}

func (t *txn) HasAdminKey() (bool, error) {
	var n int
	err := t.tx.QueryRowContext(t.ctx, `SELECT COUNT(*) FROM api_keys, json_each(api_keys.roles) r
		WHERE api_keys.revoked_at IS NULL AND r.value = 'admin'`).Scan(&n)
	return n > 0, dbError(err, "keys")
}

// oneRow reports a statement that touched no row as none (an update of a row that is not
// there, a conditional update whose condition no longer holds); what names the row in any
// other error.
func oneRow(res sql.Result, err error, what string, none error) error {
	if err != nil {
		return dbError(err, what)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return none
	}
	return nil
}

func notFound(what string) error { return hitl.Errorf(hitl.ENotFound, "%s not found", what) }
