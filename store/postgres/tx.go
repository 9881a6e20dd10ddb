package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// txn is one change's view of its node's writer transaction, which holds many changes, each
// in its own savepoint (see Store.commit). Inserts that may meet a uniqueness conflict use ON
// CONFLICT DO NOTHING, so a conflict is reported without aborting anything.
//
// Nothing is sent on its own that can wait: BEGIN, the savepoint commands and the deferred
// writes of the changes before this one (the prefix) go in one pipeline with the next
// statement, so a change costs about one round trip per statement it reads the answer of.
//
// An inquiry read here FOR UPDATE while pending cannot change before the change ends, so
// resolving it cannot fail: that UPDATE is deferred into the prefix of what comes next.
type txn struct {
	ctx    context.Context
	conn   *pgx.Conn
	prefix []*pgx.QueuedQuery
	// broken is the first failure of a prefix statement: the transaction cannot commit.
	broken error
	// sent: something of the current change has reached the server.
	sent bool

	// The current change: kept or dropped when it ends.
	events   []*hitl.Event
	locked   map[int64]bool // pending inquiries this change holds the row lock of
	deferred []*pgx.QueuedQuery

	// The events of the changes kept so far, appended when the transaction commits.
	kept []*hitl.Event
	// seqAt holds the seq an event is to have beyond the next one (MoveSequences); an entry
	// of a change rolled back stays, unused: its event is not kept.
	seqAt map[*hitl.Event]int64
}

func newTxn(ctx context.Context, conn *pgx.Conn) *txn {
	t := &txn{ctx: ctx, conn: conn}
	t.queue("BEGIN")
	return t
}

func (t *txn) queue(sql string, args ...any) {
	t.prefix = append(t.prefix, &pgx.QueuedQuery{SQL: sql, Arguments: args})
}

// beginChange starts a change in its own savepoint.
func (t *txn) beginChange() {
	t.queue("SAVEPOINT change")
	t.events, t.locked, t.deferred, t.sent = nil, nil, nil, false
}

// endChange keeps the change (its deferred writes run first thing next) or rolls it back.
func (t *txn) endChange(keep bool) {
	switch {
	case keep:
		t.prefix = append(t.prefix, t.deferred...)
		t.queue("RELEASE SAVEPOINT change")
		t.kept = append(t.kept, t.events...)
	case !t.sent:
		t.prefix = t.prefix[:len(t.prefix)-1] // nothing of it reached the server: drop its SAVEPOINT
	default:
		// A failed statement leaves the transaction aborted until it is rolled back to the
		// savepoint, and pgx prepares new statements before it sends a pipeline: roll back now,
		// in the simple protocol, which prepares nothing.
		if err := t.conn.PgConn().Exec(t.ctx, "ROLLBACK TO SAVEPOINT change; RELEASE SAVEPOINT change").Close(); err != nil && t.broken == nil {
			t.broken = err
		}
	}
	t.events, t.locked, t.deferred = nil, nil, nil
}

func (t *txn) lockPending(inqs ...*hitl.Inquiry) {
	for _, inq := range inqs {
		if inq.Status == hitl.StatusPending {
			if t.locked == nil {
				t.locked = make(map[int64]bool)
			}
			t.locked[inq.ID] = true
		}
	}
}

// send sends the prefix and then b's queries in one pipeline, and returns the results of b's
// queries (the prefix's are read here).
func (t *txn) send(b *pgx.Batch) pgx.BatchResults {
	n := len(t.prefix)
	all := &pgx.Batch{QueuedQueries: append(t.prefix, b.QueuedQueries...)}
	t.prefix, t.sent = nil, true
	br := t.conn.SendBatch(t.ctx, all)
	for range n {
		if _, err := br.Exec(); err != nil && t.broken == nil {
			t.broken = err
		}
	}
	return br
}

func (t *txn) one(sql string, args ...any) pgx.BatchResults {
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	return t.send(b)
}

func (t *txn) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	br := t.one(sql, args...)
	return batchRow{br.QueryRow(), br}
}

func (t *txn) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	br := t.one(sql, args...)
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return batchRows{rows, br}, nil
}

func (t *txn) Exec(sql string, args ...any) (pgconn.CommandTag, error) {
	br := t.one(sql, args...)
	tag, err := br.Exec()
	if closeErr := br.Close(); err == nil {
		err = closeErr
	}
	return tag, err
}

// SendBatch runs b's queries.
func (t *txn) SendBatch(b *pgx.Batch) error { return t.send(b).Close() }

// batchRow and batchRows close their batch once read.
type batchRow struct {
	row pgx.Row
	br  pgx.BatchResults
}

func (r batchRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if closeErr := r.br.Close(); err == nil {
		err = closeErr
	}
	return err
}

type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r batchRows) Close() {
	r.Rows.Close()
	r.br.Close()
}

// querier is what reads need, from the pool or inside a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func nullJSON(m json.RawMessage) *string {
	if hitl.IsNull(m) {
		return nil
	}
	s := string(m)
	return &s
}

func (t *txn) Inquiry(id int64) (*hitl.Inquiry, error) {
	inq, err := dialect.Inquiry(t.ctx, pgDB{q: t}, id, " FOR UPDATE")
	if err != nil {
		return nil, err
	}
	t.lockPending(inq)
	return inq, nil
}

func (t *txn) InsertInquiry(inq *hitl.Inquiry) error {
	doc, err := json.Marshal(inq)
	if err != nil {
		return err
	}
	c := inq.Columns()
	err = t.QueryRow(t.ctx, `INSERT INTO inquiries
		(status, session, origin, request_type, created_by, unassigned, exclusive, timeout_at, next_reminder_at, escalate_at,
		created_at, updated_at, prompt, execution, doc, dedup_key, dedup_hash, joined)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) ON CONFLICT DO NOTHING RETURNING id`,
		c.Status, c.Session, c.Origin, c.RequestType, c.CreatedBy, c.Unassigned,
		c.Exclusive, c.TimeoutAt, c.NextReminderAt, c.EscalateAt, c.CreatedAt, c.UpdatedAt,
		searchable(c.Prompt), c.Execution, string(doc), optional(inq.DedupKey), optional(inq.DedupHash), inq.Joined).Scan(&inq.ID)
	if errors.Is(err, pgx.ErrNoRows) && inq.DedupKey != "" && inq.Joined == nil {
		if inq.Session == "" {
			return hitl.Errorf(hitl.EConflict, "another node asked with dedup key %q a moment ago", inq.DedupKey)
		}
		return hitl.Errorf(hitl.EConflict, "session %s already has a pending exclusive inquiry, or another node asked with dedup key %q a moment ago", inq.Session, inq.DedupKey)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return hitl.Errorf(hitl.EConflict, "session %s already has a pending exclusive inquiry", inq.Session)
	}
	if err != nil {
		return dbError(err, "inquiry")
	}
	b := &pgx.Batch{}
	queueAssignees(b, inq.ID, inq.AssignedTo)
	for k, v := range inq.Metadata {
		b.Queue("INSERT INTO inquiry_metadata (key, value, inquiry_id) VALUES ($1, $2, $3)", k, v, inq.ID)
	}
	if b.Len() == 0 {
		return nil
	}
	return dbError(t.SendBatch(b), "inquiry assignees and metadata")
}

func (t *txn) ResolveInquiry(inq *hitl.Inquiry) error {
	doc, err := json.Marshal(inq)
	if err != nil {
		return err
	}
	const resolve = `UPDATE inquiries SET status = $1, updated_at = $2, responded_by = $3, fallback_applied = $4, doc = $5,
		receipt = $7, receipt_jti = $8 WHERE id = $6 AND status = 'pending'`
	args := []any{inq.Status, inq.UpdatedAt, inq.RespondedBy, inq.FallbackApplied, string(doc), inq.ID, nonEmpty(inq.Receipt), nonEmpty(inq.ReceiptID())}
	if t.locked[inq.ID] {
		delete(t.locked, inq.ID) // resolving it again in this change is a conflict
		t.deferred = append(t.deferred, &pgx.QueuedQuery{SQL: resolve, Arguments: args})
		return nil
	}
	tag, err := t.Exec(resolve, args...)
	return oneRow(tag, err, "inquiry", hitl.Errorf(hitl.EConflict, "inquiry %d is no longer pending", inq.ID))
}

func (t *txn) NudgeInquiry(inq, prev *hitl.Inquiry) error {
	doc, err := json.Marshal(inq)
	if err != nil {
		return err
	}
	c, was := inq.Columns(), prev.Columns()
	tag, err := t.Exec(`UPDATE inquiries SET next_reminder_at = $1, escalate_at = $2, unassigned = $3, updated_at = $4, doc = $5
		WHERE id = $6 AND status = 'pending' AND next_reminder_at IS NOT DISTINCT FROM $7 AND escalate_at IS NOT DISTINCT FROM $8`,
		c.NextReminderAt, c.EscalateAt, c.Unassigned, c.UpdatedAt, string(doc),
		inq.ID, was.NextReminderAt, was.EscalateAt)
	if err := oneRow(tag, err, "inquiry", hitl.Errorf(hitl.EConflict, "inquiry %d is no longer pending, or its timers fired already", inq.ID)); err != nil {
		return err
	}
	b := &pgx.Batch{}
	queueAssignees(b, inq.ID, inq.AssignedTo)
	if b.Len() == 0 {
		return nil
	}
	return dbError(t.SendBatch(b), "inquiry assignees")
}

func (t *txn) UpdatePendingInquiry(inq *hitl.Inquiry) error {
	doc, err := json.Marshal(inq)
	if err != nil {
		return err
	}
	c := inq.Columns()
	b := &pgx.Batch{}
	b.Queue(`UPDATE inquiries SET timeout_at = $1, next_reminder_at = $2, escalate_at = $3, claim_expires_at = $4,
		unassigned = $5, updated_at = $6, doc = $7 WHERE id = $8 AND status = 'pending'`,
		c.TimeoutAt, c.NextReminderAt, c.EscalateAt, c.ClaimExpiresAt, c.Unassigned, c.UpdatedAt, string(doc), inq.ID)
	// Those no longer assigned stay, as earlier assignees; the current ones are (again) assigned.
	b.Queue("UPDATE inquiry_assignees SET earlier = true WHERE inquiry_id = $1", inq.ID)
	for _, a := range inq.AssignedTo {
		b.Queue(`INSERT INTO inquiry_assignees (assignee, inquiry_id) VALUES ($1, $2)
			ON CONFLICT (assignee, inquiry_id) DO UPDATE SET earlier = false`, a, inq.ID)
	}
	br := t.send(b)
	tag, err := br.Exec()
	if err := oneRow(tag, err, "inquiry", hitl.Errorf(hitl.EConflict, "inquiry %d is no longer pending", inq.ID)); err != nil {
		br.Close()
		return err
	}
	return dbError(br.Close(), "inquiry assignees")
}

func (t *txn) MarkInquiryResumed(inq *hitl.Inquiry) error {
	doc, err := json.Marshal(inq)
	if err != nil {
		return err
	}
	tag, err := t.Exec(`UPDATE inquiries SET doc = $1
		WHERE id = $2 AND status <> 'pending' AND (doc::jsonb ->> 'resumed_at') IS NULL`, string(doc), inq.ID)
	return oneRow(tag, err, "inquiry", hitl.Errorf(hitl.EConflict, "inquiry %d is pending or has resumed already", inq.ID))
}

func queueAssignees(b *pgx.Batch, id int64, assignees []string) {
	for _, a := range assignees {
		b.Queue("INSERT INTO inquiry_assignees (assignee, inquiry_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", a, id)
	}
}

// LockPending skips rows another transaction holds: a node timing out an inquiry never waits
// for (or deadlocks with) another node doing the same.
func (t *txn) LockPending(ids []int64) ([]*hitl.Inquiry, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	inqs, err := dialect.Inquiries(t.ctx, pgDB{q: t}, "SELECT "+sqlstore.InquiryColumns+" FROM inquiries i WHERE i.id = ANY ($1) AND i.status = 'pending' ORDER BY i.id FOR UPDATE SKIP LOCKED", ids)
	t.lockPending(inqs...)
	return inqs, err
}

// optional is s, NULL when empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (t *txn) PendingDedupPrimary(key string) (*hitl.Inquiry, error) {
	var id int64
	var hash *string
	err := t.QueryRow(t.ctx, "SELECT id, dedup_hash FROM inquiries WHERE dedup_key = $1 AND joined IS NULL AND status = 'pending' FOR UPDATE", key).Scan(&id, &hash)
	if err != nil {
		return nil, dbError(err, "pending inquiry with dedup key "+key)
	}
	inq, err := t.Inquiry(id)
	if err != nil {
		return nil, err
	}
	if hash != nil {
		inq.DedupHash = *hash
	}
	return inq, nil
}

func (t *txn) JoinedInquiries(primary int64) ([]*hitl.Inquiry, error) {
	inqs, err := dialect.Inquiries(t.ctx, pgDB{q: t}, "SELECT "+sqlstore.InquiryColumns+" FROM inquiries i WHERE i.joined = $1 AND i.status = 'pending' ORDER BY i.id FOR UPDATE", primary)
	t.lockPending(inqs...)
	return inqs, err
}

// SetJoined of a row this change holds runs with the change's deferred writes, after them:
// the inquiry it joined, resolved in the same change, must leave the pending inquiries with
// its dedup key first (their unique index) before another takes its place.
func (t *txn) SetJoined(inq *hitl.Inquiry) error {
	doc, err := json.Marshal(inq)
	if err != nil {
		return err
	}
	const set = "UPDATE inquiries SET joined = $1, updated_at = $2, doc = $3 WHERE id = $4 AND status = 'pending'"
	args := []any{inq.Joined, inq.UpdatedAt, string(doc), inq.ID}
	if t.locked[inq.ID] {
		t.deferred = append(t.deferred, &pgx.QueuedQuery{SQL: set, Arguments: args})
		return nil
	}
	tag, err := t.Exec(set, args...)
	return oneRow(tag, err, "inquiry", hitl.Errorf(hitl.EConflict, "inquiry %d is no longer pending", inq.ID))
}

func (t *txn) PendingInquiries(session string) ([]*hitl.Inquiry, error) {
	inqs, err := dialect.Inquiries(t.ctx, pgDB{q: t}, "SELECT "+sqlstore.InquiryColumns+" FROM inquiries i WHERE i.session = $1 AND i.status = 'pending' ORDER BY i.id FOR UPDATE", session)
	t.lockPending(inqs...)
	return inqs, err
}

// storedStatus is the status kept: awaiting_input is derived from pending inquiries when read.
func storedStatus(s hitl.SessionStatus) hitl.SessionStatus {
	if s == hitl.SessionAwaitingInput {
		return hitl.SessionRunning
	}
	return s
}

func (t *txn) Session(key string) (*hitl.Session, error) {
	return dialect.Session(t.ctx, pgDB{q: t}, key, " FOR UPDATE OF s")
}

// SessionVersion adds to the stored count the events of the changes this transaction has
// kept and of the current one, which are appended when it commits.
func (t *txn) SessionVersion(key string) (int64, error) {
	n, err := dialect.SessionVersion(t.ctx, pgDB{q: t}, key)
	for _, evs := range [][]*hitl.Event{t.kept, t.events} {
		for _, ev := range evs {
			if ev.Session == key && hitl.ChangesSession(ev) {
				n++
			}
		}
	}
	return n, err
}

func (t *txn) InsertSession(s *hitl.Session) error {
	meta, _ := json.Marshal(s.Metadata)
	tag, err := t.Exec(`INSERT INTO sessions
		(key, status, agent, created_by, state, result, error, callback_url, callback_format, metadata, created_at, updated_at, completed_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING`,
		s.Key, storedStatus(s.Status), s.Agent, s.CreatedBy, nullJSON(s.State), nullJSON(s.Result), s.Error,
		s.CallbackURL, s.CallbackFormat, string(meta), s.CreatedAt, s.UpdatedAt, s.CompletedAt)
	return oneRow(tag, err, "session "+s.Key, hitl.Errorf(hitl.EConflict, "session %s already exists", s.Key))
}

func (t *txn) UpdateSession(s *hitl.Session) error {
	meta, _ := json.Marshal(s.Metadata)
	tag, err := t.Exec(`UPDATE sessions SET status = $1, agent = $2, state = $3, result = $4, error = $5,
		callback_url = $6, callback_format = $11, metadata = $7, updated_at = $8, completed_at = $9 WHERE key = $10`,
		storedStatus(s.Status), s.Agent, nullJSON(s.State), nullJSON(s.Result), s.Error,
		s.CallbackURL, string(meta), s.UpdatedAt, s.CompletedAt, s.Key, s.CallbackFormat)
	return oneRow(tag, err, "session", notFound("session "+s.Key))
}

func (t *txn) IdempotencyKey(principal, key string) (int64, string, error) {
	var (
		id   int64
		hash string
	)
	err := t.QueryRow(t.ctx, "SELECT inquiry_id, request_hash FROM idempotency_keys WHERE principal = $1 AND key = $2", principal, key).Scan(&id, &hash)
	return id, hash, dbError(err, "idempotency key")
}

func (t *txn) InsertIdempotencyKey(principal, key, requestHash string, inquiryID int64, at time.Time) error {
	tag, err := t.Exec(`INSERT INTO idempotency_keys (principal, key, request_hash, inquiry_id, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, principal, key, requestHash, inquiryID, at)
	return oneRow(tag, err, "idempotency key", hitl.Errorf(hitl.EConflict, "idempotency key %q already exists", key))
}

func (t *txn) DeleteIdempotencyKeys(before time.Time, limit int) (int, error) {
	tag, err := t.Exec(`DELETE FROM idempotency_keys WHERE (principal, key) IN
		(SELECT principal, key FROM idempotency_keys WHERE created_at < $1 LIMIT $2)`, before, limit)
	if err != nil {
		return 0, dbError(err, "idempotency keys")
	}
	return int(tag.RowsAffected()), nil
}

// AppendEvent keeps the event for the end of the transaction, when it gets its seq (if the
// change is kept).
func (t *txn) AppendEvent(ev *hitl.Event) error {
	t.events = append(t.events, ev)
	return nil
}

func (t *txn) InsertKey(k *hitl.Key, tokenHash string) error {
	tag, err := t.Exec(`INSERT INTO api_keys (id, name, roles, groups, token_hash, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, k.ID, k.Name, k.Roles, nonNil(k.Groups), tokenHash, k.CreatedAt)
	return oneRow(tag, err, "key", hitl.Errorf(hitl.EConflict, "key %s already exists", k.ID))
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

func (t *txn) SetKeyToken(id, tokenHash string) error {
	tag, err := t.Exec("UPDATE api_keys SET token_hash = $1, revoked_at = NULL WHERE id = $2", tokenHash, id)
	return oneRow(tag, err, "key", notFound("key "+id))
}

func (t *txn) RevokeKey(id string, at time.Time) error {
	tag, err := t.Exec("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2", at, id)
	return oneRow(tag, err, "key", notFound("key "+id))
}

func (t *txn) HasAdminKey() (bool, error) {
	var has bool
	err := t.QueryRow(t.ctx, "SELECT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL AND 'admin' = ANY (roles))").Scan(&has)
	return has, dbError(err, "keys")
}

// oneRow reports a statement that touched no row as none (an insert that met a conflict, an
// update of a row that is not there); what names the row in any other error.
func oneRow(tag pgconn.CommandTag, err error, what string, none error) error {
	if err != nil {
		return dbError(err, what)
	}
	if tag.RowsAffected() == 0 {
		return none
	}
	return nil
}

func notFound(what string) error { return hitl.Errorf(hitl.ENotFound, "%s not found", what) }
