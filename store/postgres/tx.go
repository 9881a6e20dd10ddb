package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hitl-dev/hitl"
)

// txn is the write side of one transaction. Inserts that may meet a uniqueness conflict use
// ON CONFLICT DO NOTHING, so a conflict is reported without aborting the transaction.
//
// BEGIN is not sent on its own: it goes in one pipeline with the transaction's first
// statement (see first), which saves a round trip per change.
//
// An inquiry read here FOR UPDATE while pending cannot change before the commit, so resolving
// it cannot fail: that UPDATE waits and goes in the commit's pipeline (deferred).
type txn struct {
	ctx      context.Context
	conn     *pgx.Conn
	begun    bool
	events   []*hitl.Event
	locked   map[int64]bool // pending inquiries this transaction holds the row lock of
	deferred pgx.Batch
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

// first returns a batch that starts with BEGIN when the transaction has not begun yet.
func (t *txn) first() *pgx.Batch {
	b := &pgx.Batch{}
	if !t.begun {
		b.Queue("BEGIN")
		t.begun = true
	}
	return b
}

// results sends b and skips the BEGIN's result, if b has one.
func (t *txn) results(b *pgx.Batch) pgx.BatchResults {
	br := t.conn.SendBatch(t.ctx, b)
	if b.Len() > 0 && b.QueuedQueries[0].SQL == "BEGIN" {
		br.Exec()
	}
	return br
}

func (t *txn) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	b := t.first()
	b.Queue(sql, args...)
	br := t.results(b)
	return batchRow{br.QueryRow(), br}
}

func (t *txn) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	b := t.first()
	b.Queue(sql, args...)
	br := t.results(b)
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return batchRows{rows, br}, nil
}

func (t *txn) Exec(sql string, args ...any) (pgconn.CommandTag, error) {
	b := t.first()
	b.Queue(sql, args...)
	br := t.results(b)
	tag, err := br.Exec()
	if closeErr := br.Close(); err == nil {
		err = closeErr
	}
	return tag, err
}

// SendBatch runs b after the BEGIN, if the transaction has not begun.
func (t *txn) SendBatch(b *pgx.Batch) error {
	all := t.first()
	all.QueuedQueries = append(all.QueuedQueries, b.QueuedQueries...)
	return t.results(all).Close()
}

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

func scanInquiry(row pgx.Row) (*hitl.Inquiry, error) {
	var (
		id  int64
		doc string
	)
	if err := row.Scan(&id, &doc); err != nil {
		return nil, err
	}
	inq := new(hitl.Inquiry)
	if err := json.Unmarshal([]byte(doc), inq); err != nil {
		return nil, err
	}
	inq.ID = id
	return inq, nil
}

func queryInquiries(ctx context.Context, q querier, sql string, args ...any) ([]*hitl.Inquiry, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, dbError(err, "inquiries")
	}
	defer rows.Close()
	var out []*hitl.Inquiry
	for rows.Next() {
		inq, err := scanInquiry(rows)
		if err != nil {
			return nil, dbError(err, "inquiries")
		}
		out = append(out, inq)
	}
	return out, dbError(rows.Err(), "inquiries")
}

func (t *txn) Inquiry(id int64) (*hitl.Inquiry, error) {
	inq, err := scanInquiry(t.QueryRow(t.ctx, "SELECT i.id, i.doc FROM inquiries i WHERE i.id = $1 FOR UPDATE", id))
	if err != nil {
		return nil, dbError(err, "inquiry "+itoa64(id))
	}
	t.lockPending(inq)
	return inq, nil
}

func (t *txn) InsertInquiry(inq *hitl.Inquiry) error {
	doc, err := json.Marshal(inq)
	if err != nil {
		return err
	}
	err = t.QueryRow(t.ctx, `INSERT INTO inquiries
		(status, session, origin, request_type, created_by, unassigned, exclusive, timeout_at, created_at, updated_at, doc)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING RETURNING id`,
		inq.Status, nullText(inq.Session), inq.Origin, inq.RequestType, inq.CreatedBy, len(inq.AssignedTo) == 0,
		inq.Exclusive, inq.TimeoutAt, inq.CreatedAt, inq.UpdatedAt, string(doc)).Scan(&inq.ID)
	if errors.Is(err, pgx.ErrNoRows) {
		return hitl.Errorf(hitl.EConflict, "session %s already has a pending exclusive inquiry", inq.Session)
	}
	if err != nil {
		return dbError(err, "inquiry")
	}
	b := &pgx.Batch{}
	for _, a := range inq.AssignedTo {
		b.Queue("INSERT INTO inquiry_assignees (assignee, inquiry_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", a, inq.ID)
	}
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
	const resolve = "UPDATE inquiries SET status = $1, updated_at = $2, doc = $3 WHERE id = $4 AND status = 'pending'"
	if t.locked[inq.ID] {
		delete(t.locked, inq.ID) // resolving it again in this transaction is a conflict
		t.deferred.Queue(resolve, inq.Status, inq.UpdatedAt, string(doc), inq.ID)
		return nil
	}
	tag, err := t.Exec(resolve, inq.Status, inq.UpdatedAt, string(doc), inq.ID)
	if err != nil {
		return dbError(err, "inquiry")
	}
	if tag.RowsAffected() == 0 {
		return hitl.Errorf(hitl.EConflict, "inquiry %d is no longer pending", inq.ID)
	}
	return nil
}

func (t *txn) PendingInquiries(session string) ([]*hitl.Inquiry, error) {
	inqs, err := queryInquiries(t.ctx, t, "SELECT i.id, i.doc FROM inquiries i WHERE i.session = $1 AND i.status = 'pending' ORDER BY i.id FOR UPDATE", session)
	t.lockPending(inqs...)
	return inqs, err
}

func (t *txn) Session(key string) (*hitl.Session, error) {
	s, _, err := scanSession(t.QueryRow(t.ctx, "SELECT "+sessionColumns+" FROM sessions s WHERE s.key = $1 FOR UPDATE OF s", key))
	return s, dbError(err, "session "+key)
}

// storedSessionStatus keeps awaiting_input out of the table: it is derived from pending inquiries.
func storedSessionStatus(s hitl.SessionStatus) hitl.SessionStatus {
	if s == hitl.SessionAwaitingInput {
		return hitl.SessionRunning
	}
	return s
}

func (t *txn) InsertSession(s *hitl.Session) error {
	meta, _ := json.Marshal(s.Metadata)
	tag, err := t.Exec(`INSERT INTO sessions
		(key, status, agent, created_by, state, result, error, callback_url, metadata, created_at, updated_at, completed_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING`,
		s.Key, storedSessionStatus(s.Status), s.Agent, s.CreatedBy, nullJSON(s.State), nullJSON(s.Result), s.Error,
		s.CallbackURL, string(meta), s.CreatedAt, s.UpdatedAt, s.CompletedAt)
	if err != nil {
		return dbError(err, "session "+s.Key)
	}
	if tag.RowsAffected() == 0 {
		return hitl.Errorf(hitl.EConflict, "session %s already exists", s.Key)
	}
	return nil
}

func (t *txn) UpdateSession(s *hitl.Session) error {
	meta, _ := json.Marshal(s.Metadata)
	tag, err := t.Exec(`UPDATE sessions SET status = $1, agent = $2, state = $3, result = $4, error = $5,
		callback_url = $6, metadata = $7, updated_at = $8, completed_at = $9 WHERE key = $10`,
		storedSessionStatus(s.Status), s.Agent, nullJSON(s.State), nullJSON(s.Result), s.Error,
		s.CallbackURL, string(meta), s.UpdatedAt, s.CompletedAt, s.Key)
	if err != nil {
		return dbError(err, "session")
	}
	if tag.RowsAffected() == 0 {
		return hitl.Errorf(hitl.ENotFound, "session %s not found", s.Key)
	}
	return nil
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
	if err != nil {
		return dbError(err, "idempotency key")
	}
	if tag.RowsAffected() == 0 {
		return hitl.Errorf(hitl.EConflict, "idempotency key %q already exists", key)
	}
	return nil
}

// AppendEvent keeps the event for the end of the transaction, when it gets its seq.
func (t *txn) AppendEvent(ev *hitl.Event) error {
	t.events = append(t.events, ev)
	return nil
}

func (t *txn) InsertKey(k *hitl.Key, tokenHash string) error {
	tag, err := t.Exec(`INSERT INTO api_keys (id, name, roles, groups, token_hash, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, k.ID, k.Name, k.Roles, nonNil(k.Groups), tokenHash, k.CreatedAt)
	if err != nil {
		return dbError(err, "key")
	}
	if tag.RowsAffected() == 0 {
		return hitl.Errorf(hitl.EConflict, "key %s already exists", k.ID)
	}
	return nil
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

func (t *txn) SetKeyToken(id, tokenHash string) error {
	tag, err := t.Exec("UPDATE api_keys SET token_hash = $1, revoked_at = NULL WHERE id = $2", tokenHash, id)
	if err != nil {
		return dbError(err, "key")
	}
	if tag.RowsAffected() == 0 {
		return hitl.Errorf(hitl.ENotFound, "key %s not found", id)
	}
	return nil
}

func (t *txn) RevokeKey(id string, at time.Time) error {
	tag, err := t.Exec("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2", at, id)
	if err != nil {
		return dbError(err, "key")
	}
	if tag.RowsAffected() == 0 {
		return hitl.Errorf(hitl.ENotFound, "key %s not found", id)
	}
	return nil
}

func (t *txn) HasAdminKey() (bool, error) {
	var has bool
	err := t.QueryRow(t.ctx, "SELECT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL AND 'admin' = ANY (roles))").Scan(&has)
	return has, dbError(err, "keys")
}
