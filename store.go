package hitl

import (
	"context"
	"time"
)

// Store persists what the engine decided. Implementations: store/sqlite, and next store/postgres;
// store/storetest is the conformance suite every implementation passes.
//
// Errors: ENotFound for a missing row, EConflict for a violated uniqueness or a conditional
// update that found the row no longer pending; any other failure is internal.
type Store interface {
	// Update runs fn in one transaction: everything fn writes commits together or not at all.
	// When fn returns an error nothing it did is kept and that error is returned. A store may
	// run fn more than once (to retry after a deadlock), so fn starts from scratch each time.
	Update(ctx context.Context, fn func(Tx) error) error

	// Inquiry returns one inquiry (ENotFound).
	Inquiry(ctx context.Context, id int64) (*Inquiry, error)
	// Inquiries lists in the filter's order (newest first by default), filtered and narrowed to
	// what Visibility allows.
	Inquiries(ctx context.Context, f InquiryFilter) ([]*Inquiry, string, error)
	// CountInquiries counts what Inquiries would list on all its pages.
	CountInquiries(ctx context.Context, f InquiryFilter) (int, error)
	// PendingCount counts the inquiries waiting for an answer.
	PendingCount(ctx context.Context) (int, error)
	// PendingDeadlines lists every pending inquiry that has a deadline, for the timers.
	PendingDeadlines(ctx context.Context) ([]Deadline, error)
	// PendingNudges lists every pending inquiry with a reminder or an escalation to come, at
	// the sooner of the two, for the timers.
	PendingNudges(ctx context.Context) ([]Deadline, error)
	// PendingClaims lists every pending inquiry that someone has claimed, at the claim's
	// expiry, for the timers.
	PendingClaims(ctx context.Context) ([]Deadline, error)
	// Stats reads the inquiries that became final in a window (see StatsQuery): the counts of
	// each day, and the newest answers up to the query's bound.
	Stats(ctx context.Context, q StatsQuery) (*StatsData, error)
	// OldestPending counts the pending inquiries (narrowed to owner's when it is not nil) and
	// returns the one created first, nil when none is pending; its AgeSeconds is left to the caller.
	OldestPending(ctx context.Context, owner *StatsOwner) (int, *PendingAge, error)
	// Decisions reads the answered inquiries of q for decision analytics, with their first views.
	Decisions(ctx context.Context, q DecisionQuery) ([]DecisionFacts, bool, error)
	// AssigneeLoads counts, for each of names that has any, the pending inquiries assigned to
	// it by name and when it was last assigned one: what a pool picks by.
	AssigneeLoads(ctx context.Context, names []string) (map[string]AssigneeLoad, error)

	// Session returns one session with its derived counts and status (ENotFound).
	Session(ctx context.Context, key string) (*Session, error)
	// Sessions lists newest first.
	Sessions(ctx context.Context, f SessionFilter) ([]*Session, string, error)
	// SessionInquiries lists a session's inquiries oldest first, narrowed by Visibility.
	SessionInquiries(ctx context.Context, key string, v Visibility) ([]*Inquiry, error)
	// SessionVersion counts the events of a session that change it (ChangesSession): 0 for a
	// key that has none.
	SessionVersion(ctx context.Context, key string) (int64, error)

	// Events lists events with seq > f.After in seq order.
	Events(ctx context.Context, f EventFilter) ([]*Event, error)
	// LastEventSeq is the seq of the newest event, 0 when there is none.
	LastEventSeq(ctx context.Context) (int64, error)
	// ChainedEvents calls fn with each event after seq after, in seq order, and the hash of the
	// audit chain the store keeps for it (nil when it has none), reading the log a page at a
	// time; an error from fn stops it and is returned. See internal/audit.
	ChainedEvents(ctx context.Context, after int64, fn func(ev *Event, hash []byte) error) error
	// InquiryStates reads inquiries as stored (the document, the columns beside it and the rows
	// of the tables beside it), each with its first and newest events, all in one snapshot of
	// the database, so that no change commits between them: those of q.Only (a few
	// hundred at most), or when it is empty the first q.Limit ids after q.After, in id order,
	// among those that have a row or an event. One that has neither (any more) is there with
	// neither. The audit compares them (internal/audit).
	InquiryStates(ctx context.Context, q StateQuery[int64]) ([]*InquiryState, error)
	// SessionStates is InquiryStates for sessions, by key, among those that have a row or any
	// event; the first and newest events of a session are its first and newest of no
	// inquiry, nil when it has none.
	SessionStates(ctx context.Context, q StateQuery[string]) ([]*SessionState, error)

	// KeyByTokenHash returns the unrevoked key with that token hash (ENotFound).
	KeyByTokenHash(ctx context.Context, hash string) (*Key, error)
	// Keys lists every key, revoked ones included, oldest first.
	Keys(ctx context.Context) ([]*Key, error)
	// InboxSessionKey returns the key of the inbox session with that id hash when the session
	// has not expired at now and its key is not revoked (ENotFound otherwise).
	InboxSessionKey(ctx context.Context, idHash string, now time.Time) (*Key, error)

	// Webhooks lists every webhook, oldest first, without secrets.
	Webhooks(ctx context.Context) ([]*Webhook, error)
	// Webhook returns one webhook without its secret (ENotFound).
	Webhook(ctx context.Context, id string) (*Webhook, error)
	// Deliveries lists deliveries newest first.
	Deliveries(ctx context.Context, f DeliveryFilter) ([]*Delivery, string, error)
	// PendingDeliveries counts the deliveries of a kind not yet delivered nor failed, by
	// channel ("" for kinds without one): the backlog a metric shows.
	PendingDeliveries(ctx context.Context, kind DeliveryKind) (map[string]int, error)
	// OutboxCursor is the seq up to which the event log has been turned into deliveries.
	OutboxCursor(ctx context.Context) (int64, error)
	// SessionsByKey returns the sessions among keys that exist, in no particular order.
	SessionsByKey(ctx context.Context, keys []string) ([]*Session, error)

	// Person returns one person (ENotFound); People lists every person by name.
	Person(ctx context.Context, name string) (*Person, error)
	People(ctx context.Context) ([]*Person, error)
	// Group returns one group's contact points (ENotFound); Groups lists them by name.
	Group(ctx context.Context, name string) (*Group, error)
	Groups(ctx context.Context) ([]*Group, error)
	// Absences lists every stored absence, ended or not, by person.
	Absences(ctx context.Context) ([]*Absence, error)
	// Rules lists every stored rule, revoked and expired ones too, oldest first.
	Rules(ctx context.Context) ([]*Rule, error)
	// ChatWebhook returns one chat webhook (ENotFound); ChatWebhooks lists them oldest first.
	ChatWebhook(ctx context.Context, id string) (*ChatWebhook, error)
	ChatWebhooks(ctx context.Context) ([]*ChatWebhook, error)
	// Notified lists the ones the inquiry's notifications went to, each by its channel and
	// address, newest first (at most 1,000): whom its answer is told of. Rooms (chat webhooks)
	// and the messages of its resolution are not among them.
	Notified(ctx context.Context, inquiryID int64) ([]Notified, error)
	// NotificationThread is the Thread of the newest delivered notification of the inquiry by
	// that channel to that address ("" when there is none), and whether the first message of
	// that thread (reason created) is still pending.
	NotificationThread(ctx context.Context, inquiryID int64, channel, address string) (thread string, firstPending bool, err error)

	// PushConfigs lists the push configs of those inquiries, by inquiry then oldest first.
	PushConfigs(ctx context.Context, inquiryIDs []int64) ([]*PushConfig, error)

	// WebPushSubscriptions lists the devices of those people (nil: of everyone), by person then
	// oldest first.
	WebPushSubscriptions(ctx context.Context, people []string) ([]*PushSubscription, error)
	// WebPushSubscription returns the device of an endpoint (ENotFound).
	WebPushSubscription(ctx context.Context, endpoint string) (*PushSubscription, error)

	// Template returns one template (ENotFound); Templates lists them by name.
	Template(ctx context.Context, name string) (*Template, error)
	Templates(ctx context.Context) ([]*Template, error)

	// IdentityName returns the name that holds an integer identity (ENotFound).
	IdentityName(ctx context.Context, id int64) (string, error)
	// IdentityIDs returns the integer identities of those names that have one.
	IdentityIDs(ctx context.Context, names []string) (map[string]int64, error)

	// RetentionCandidates lists, oldest first, up to limit inquiries outside any session and
	// up to limit finished sessions that Tx.RemoveResolved may remove (see there): read off
	// the writer, so that finding them costs the answers nothing.
	RetentionCandidates(ctx context.Context, r RetentionRule, limit int) (RetentionBatch, error)

	// Ping reports whether the store answers.
	Ping(ctx context.Context) error
	Close() error
}

// Tx is the write side of one transaction.
type Tx interface {
	// Inquiry reads an inquiry inside the transaction, locked against concurrent writers (ENotFound).
	Inquiry(id int64) (*Inquiry, error)
	// InsertInquiry stores a new inquiry and sets its ID. EConflict when the inquiry is exclusive
	// and its session already has a pending exclusive inquiry.
	InsertInquiry(inq *Inquiry) error
	// ResolveInquiry writes the final state of an inquiry that is still pending; EConflict otherwise.
	ResolveInquiry(inq *Inquiry) error
	// LockPending claims, among ids, the inquiries that are pending and that no other
	// transaction holds, and returns them; the others are left out (they are final, or another
	// node is resolving them right now).
	LockPending(ids []int64) ([]*Inquiry, error)
	// NudgeInquiry writes a reminder or an escalation of a pending inquiry: its timers, its
	// assignees and its document, provided its timers still stand where prev had them
	// (EConflict otherwise: the inquiry is final, or another node fired them first).
	NudgeInquiry(inq, prev *Inquiry) error
	// UpdatePendingInquiry writes a pending inquiry read in this transaction whole: its
	// document, assignees, deadline, timers and claim (EConflict when it is no longer pending).
	// Votes, chain steps and claims change it so. Assignees it no longer has stay as earlier
	// ones: they still see it (visibility), but a filter by assignee and AssigneeLoads count
	// only the current ones.
	UpdatePendingInquiry(inq *Inquiry) error
	// MarkInquiryResumed writes the document of a final inquiry that now has its ResumedAt,
	// provided none was written before (EConflict otherwise): an inquiry resumes once.
	MarkInquiryResumed(inq *Inquiry) error
	// PendingDedupPrimary is the pending inquiry people see for a dedup key (DedupKey key,
	// Joined nil), its DedupHash read; ENotFound when there is none. PostgreSQL holds its row
	// until the commit, so that it cannot end while an asker joins it.
	PendingDedupPrimary(key string) (*Inquiry, error)
	// JoinedInquiries lists the pending inquiries that joined primary, oldest first.
	JoinedInquiries(primary int64) ([]*Inquiry, error)
	// SetJoined stores a pending inquiry's Joined (EConflict when it is no longer pending).
	SetJoined(inq *Inquiry) error
	// PendingInquiries lists a session's pending inquiries.
	PendingInquiries(session string) ([]*Inquiry, error)

	// Session reads a session inside the transaction (ENotFound).
	Session(key string) (*Session, error)
	// SessionVersion is Store.SessionVersion inside the transaction, counting the events it
	// has appended so far.
	SessionVersion(key string) (int64, error)
	// InsertSession stores a new session (EConflict if the key exists).
	InsertSession(s *Session) error
	// UpdateSession writes a session's agent, state, metadata, status, result, error and times.
	UpdateSession(s *Session) error

	// Identity returns the integer identity of a name, giving it the next one first when it
	// has none: once given, a name keeps its identity for good.
	Identity(name string) (int64, error)
	// ExecutionInquiry returns the inquiry that an execution's result created (ENotFound).
	ExecutionInquiry(execution string) (int64, error)
	// InsertExecutionInquiry records that an execution's result created the inquiry
	// (EConflict when the execution has one already).
	InsertExecutionInquiry(execution string, inquiryID int64) error

	// IdempotencyKey returns the inquiry and request hash recorded for (principal, key) (ENotFound).
	IdempotencyKey(principal, key string) (inquiryID int64, requestHash string, err error)
	// InsertIdempotencyKey records (principal, key) → inquiry.
	InsertIdempotencyKey(principal, key, requestHash string, inquiryID int64, at time.Time) error
	// DeleteIdempotencyKeys removes at most limit keys recorded before the time, and returns
	// how many it removed.
	DeleteIdempotencyKeys(before time.Time, limit int) (int, error)

	// RemoveResolved removes those of the batch that still meet the rule, with everything kept
	// for them: a session's inquiries, assignees, metadata, idempotency keys, execution links,
	// deliveries and events. It returns what it removed, the events in seq order with their
	// audit hashes (for the checkpoint the caller appends).
	RemoveResolved(b RetentionBatch, r RetentionRule) (*Removal, error)

	// AppendEvent adds an event to the log. Its Seq is set by the time Update returns: seq
	// order is commit order, so a store may assign it only when the transaction commits. The
	// store chains it into the audit chain (internal/audit) at the seq it gets, in seq order.
	AppendEvent(ev *Event) error

	// InsertKey stores a key with its token hash (EConflict if the ID exists).
	InsertKey(k *Key, tokenHash string) error
	// SetKeyToken replaces the token hash of a key and unrevokes it (ENotFound).
	SetKeyToken(id, tokenHash string) error
	// RevokeKey marks a key revoked (ENotFound; revoking twice keeps the first time).
	RevokeKey(id string, at time.Time) error
	// HasAdminKey reports whether any unrevoked key holds the admin role.
	HasAdminKey() (bool, error)

	// InsertInboxSession stores a new inbox session (EConflict if the id hash exists; ENotFound
	// when its key does not exist).
	InsertInboxSession(s *InboxSession) error
	// DeleteInboxSession removes one inbox session (ENotFound when there is none).
	DeleteInboxSession(idHash string) error
	// DeleteKeyInboxSessions removes every inbox session of a key; none is no error.
	DeleteKeyInboxSessions(keyID string) error
	// DeleteExpiredInboxSessions removes the inbox sessions expired at now (ExpiresAt <= now)
	// and returns how many.
	DeleteExpiredInboxSessions(now time.Time) (int, error)

	// InsertWebhook stores a webhook with its secret (EConflict if the ID exists).
	InsertWebhook(w *Webhook) error
	// DeleteWebhook removes a webhook and its deliveries (ENotFound).
	DeleteWebhook(id string) error
	// AdvanceOutboxCursor moves the outbox cursor from one seq to another; EConflict when it
	// no longer stands at from (another node moved it) or another node is moving it now.
	AdvanceOutboxCursor(from, to int64) error
	// InsertDelivery stores a new delivery (EConflict if the ID exists).
	InsertDelivery(d *Delivery) error
	// InsertNotification stores a notification delivery unless one with its ID exists, which
	// is no error: a notification's ID is made of what it says, so that one is the same message.
	InsertNotification(d *Delivery) error
	// ClaimDeliveries leases the deliveries due and returns them with payload and secret.
	ClaimDeliveries(c Claim) ([]*Delivery, error)
	// SaveAttempt writes the outcome of an attempt: status, attempts, the next attempt's time
	// the last_* fields and the thread (ENotFound when the delivery is gone with its webhook).
	SaveAttempt(d *Delivery) error
	// RetryDelivery makes a delivered or failed delivery pending again, due at, with a new
	// round of retries (ENotFound; EConflict when it is pending).
	RetryDelivery(id string, at time.Time) (*Delivery, error)
	// PutPerson stores a person, replacing the one of the same name.
	PutPerson(p *Person) error
	// DeletePerson removes a person (ENotFound).
	DeletePerson(name string) error
	// PutGroup stores a group's contact points, replacing those of the same name.
	PutGroup(g *Group) error
	// DeleteGroup removes a group's contact points (ENotFound).
	DeleteGroup(name string) error
	// PutAbsence stores a person's absence, replacing theirs.
	PutAbsence(a *Absence) error
	// DeleteAbsence removes a person's absence (ENotFound).
	DeleteAbsence(person string) error
	// InsertRule stores a new rule (EConflict if the ID exists).
	InsertRule(r *Rule) error
	// RevokeRule marks a rule revoked at r.RevokedAt by r.RevokedBy, unless it is revoked
	// already (EConflict) or unknown (ENotFound).
	RevokeRule(r *Rule) error
	// InsertChatWebhook stores a chat webhook (EConflict if the ID exists).
	InsertChatWebhook(w *ChatWebhook) error
	// DeleteChatWebhook removes a chat webhook and its pending notifications (ENotFound);
	// those already sent stay in their inquiries' history.
	DeleteChatWebhook(id string) error
	// InquiryPushConfigs lists an inquiry's push configs, oldest first.
	InquiryPushConfigs(inquiryID int64) ([]*PushConfig, error)
	// PutPushConfig stores an inquiry's push config, replacing the one of the same ID.
	PutPushConfig(c *PushConfig) error
	// DeletePushConfig removes an inquiry's push config (ENotFound).
	DeletePushConfig(inquiryID int64, id string) error
	// PutWebPushSubscription stores a device, replacing the one of the same endpoint (whoever
	// it was of: a browser has one subscription per endpoint).
	PutWebPushSubscription(s *PushSubscription) error
	// RecordView records when person first saw the inquiry; a later view changes nothing.
	RecordView(inquiryID int64, person string, at time.Time) error
	// DeleteWebPushSubscription removes the device of an endpoint (ENotFound).
	DeleteWebPushSubscription(endpoint string) error
	// UseWebPushAction records that the single-use action token id, which expires at the
	// time, was used; EConflict when id was used already.
	UseWebPushAction(id string, expires time.Time) error
	// DeleteWebPushActionUses forgets at most limit uses of action tokens that expired before
	// the time, and returns how many it forgot.
	DeleteWebPushActionUses(before time.Time, limit int) (int, error)
	// PutTemplate stores a template, replacing the one of the same name, and reports whether
	// none was there. A replaced template keeps its CreatedAt, which PutTemplate sets in t.
	PutTemplate(t *Template) (created bool, err error)
	// DeleteTemplate removes a template (ENotFound).
	DeleteTemplate(name string) error

	// Setting returns a named setting, storing init first when there is none.
	Setting(name, init string) (string, error)

	// ReceiptInquiry is the inquiry whose receipt has the id jti (ENotFound).
	ReceiptInquiry(jti string) (*Inquiry, error)
	// RedeemReceipt records r unless its receipt was redeemed already: then it records nothing
	// and returns the earlier redemption (redeemed false). One row per receipt, whichever
	// node or transaction comes first.
	RedeemReceipt(r ReceiptRedemption) (first ReceiptRedemption, redeemed bool, err error)
	// StoredSecrets returns the named settings that exist, every webhook's secret and every
	// chat webhook's URL, as stored (plaintext or encrypted: the engine decides, see
	// engine/secrets.go), ordered by kind and name.
	StoredSecrets(settings []string) ([]StoredSecret, error)
	// SetStoredSecret replaces the value of one setting, webhook secret or chat webhook URL
	// (ENotFound).
	SetStoredSecret(s StoredSecret) error

	// Sequences returns where the sequences stand (see Sequences). On a store that several
	// nodes share it holds back the other nodes' events until the transaction ends, so that
	// the newest event it read is still the newest when MoveSequences appends after it.
	Sequences() (Sequences, error)
	// MoveSequences makes next.Inquiry and next.Identity the next inquiry id and integer
	// identity given out, and appends ev at seq next.Event: the numbers between where each
	// sequence stood and next are never given out. The caller moves each only forward, past
	// where Sequences, read in the same transaction, says it stands.
	MoveSequences(next Sequences, ev *Event) error
	// TakeBackupMark removes the mark a backup carries (store/sqlite's Backup writes one into
	// its copy; a database a server runs on never has one) and returns when the backup was
	// taken: the zero time when there is none.
	TakeBackupMark() (time.Time, error)
}

// RetentionRule says what retention may remove: an inquiry outside any session that ended
// (responded, timed out or was cancelled) before Before, and a session that finished
// before Before together with its inquiries, all ended before Before. Neither goes while the
// log or the outbox still needs it: while it has an event after seq Through (the newest
// event of the log is never removed: the next one chains from it, and the outbox reads the
// log up to its cursor) or a delivery not yet made.
type RetentionRule struct {
	Before  time.Time
	Through int64
}

// RetentionBatch is what one round of retention may remove.
type RetentionBatch struct {
	Inquiries []int64
	Sessions  []string
}

// Removal is what one round of retention removed.
type Removal struct {
	Inquiries []int64 // session's inquiries included
	Sessions  []string
	Events    []RemovedEvent // in seq order
}

// RemovedEvent is an event retention removed, with its audit hash.
type RemovedEvent struct {
	Seq  int64
	Hash []byte
}

// StateQuery names the inquiries (by id) or sessions (by key) whose stored state to read:
// those of Only, or when it is empty the first Limit after After, in order.
type StateQuery[K int64 | string] struct {
	Only  []K
	After K
	Limit int
}

// StoredState is an inquiry (K int64, its id; T Inquiry) or a session (K string, its key; T
// Session) as the store keeps it and its first and newest events, read together.
type StoredState[K int64 | string, T Inquiry | Session] struct {
	Key K
	// Stored is what reads return, nil when there is no row; Unreadable says why the row
	// cannot be read, when it cannot (then Stored is nil).
	Stored     *T
	Unreadable error
	// Columns is what an inquiry's row keeps beside its document, nil for a session (all its
	// columns are in Stored) and when Stored is nil.
	Columns *InquiryColumns
	// First and Newest are the oldest and the newest event, nil when the log has none (the
	// same event when it has one).
	First, Newest *Event
}

// AddEvent keeps ev, an event of the state's key, as its first or its newest as its seq says:
// the stores read them in no particular order.
func (st *StoredState[K, T]) AddEvent(ev *Event) {
	if st.First == nil || ev.Seq < st.First.Seq {
		st.First = ev
	}
	if st.Newest == nil || ev.Seq > st.Newest.Seq {
		st.Newest = ev
	}
}

// InquiryState is an inquiry as stored and its first (inquiry.created) and newest events.
type InquiryState = StoredState[int64, Inquiry]

// SessionState is a session as stored and its first and newest events of no inquiry. Its
// Stored has none of what reads derive from the session's inquiries: its counts are 0, and
// its status is running while it runs (never awaiting_input).
type SessionState = StoredState[string, Session]

// InquiryColumns is what an inquiry's row keeps beside its document: the copies of its fields
// that lists, filters, stats, timers, ownership and the conditional writes read instead of
// the document, and its rows in the tables beside it. A nil pointer is NULL; the booleans are
// what the reads take them for (SQLite: the column = 1).
type InquiryColumns struct {
	Status          Status
	Session         *string
	Origin          string
	RequestType     RequestType
	CreatedBy       string
	Unassigned      bool
	Exclusive       bool
	TimeoutAt       *time.Time
	NextReminderAt  *time.Time
	EscalateAt      *time.Time
	ClaimExpiresAt  *time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
	Prompt          string
	Execution       *string
	RespondedBy     *string
	FallbackApplied bool
	// Assignees are its rows in inquiry_assignees, Metadata its rows in inquiry_metadata (key
	// and value), Executions the executions that execution_inquiries says it was created for.
	Assignees  []AssigneeRow
	Metadata   [][2]string
	Executions []string
}

// Columns are what the stores write of inq beside its document: its columns, the rows beside
// it aside. (PostgreSQL's prompt column keeps the prompt without NULs, which its text cannot
// hold.)
func (inq *Inquiry) Columns() InquiryColumns {
	c := InquiryColumns{Status: inq.Status, Session: nonEmpty(inq.Session), Origin: inq.Origin, RequestType: inq.RequestType,
		CreatedBy: inq.CreatedBy, Unassigned: len(inq.AssignedTo) == 0, Exclusive: inq.Exclusive, TimeoutAt: inq.TimeoutAt,
		NextReminderAt: inq.NextReminderAt, EscalateAt: inq.EscalationAt(), CreatedAt: inq.CreatedAt, UpdatedAt: inq.UpdatedAt,
		Prompt: inq.Prompt, Execution: nonEmpty(inq.Execution), RespondedBy: inq.RespondedBy, FallbackApplied: inq.FallbackApplied}
	if inq.Claim != nil {
		c.ClaimExpiresAt = &inq.Claim.ExpiresAt
	}
	return c
}

// nonEmpty is s, nil when empty: a NULL column.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// AssigneeRow is a row of inquiry_assignees: Earlier when the assignee is an earlier step's
// of a chain (the reads of who it is assigned to leave them out).
type AssigneeRow struct {
	Name    string
	Earlier bool
}

// AddRow adds a row of a table beside the inquiries, as the stores read them: table is
// "inquiry_assignees" (a the assignee, b "earlier" or ""), "inquiry_metadata" (a the key, b
// the value) or "execution_inquiries" (a the execution). A nil c (the inquiry has no row)
// takes none.
func (c *InquiryColumns) AddRow(table, a, b string) {
	if c == nil {
		return
	}
	switch table {
	case "inquiry_assignees":
		c.Assignees = append(c.Assignees, AssigneeRow{Name: a, Earlier: b == "earlier"})
	case "inquiry_metadata":
		c.Metadata = append(c.Metadata, [2]string{a, b})
	case "execution_inquiries":
		c.Executions = append(c.Executions, a)
	}
}

// StoredSecret is one secret as the store keeps it: a setting's value, a webhook's secret, or
// a chat webhook's URL (an incoming webhook's URL carries the chat service's token).
type StoredSecret struct {
	Kind  string // SecretSetting, SecretWebhook or SecretChatWebhook
	Name  string // the setting's name, or the (chat) webhook's ID
	Value string
}

// The kinds of StoredSecret.
const (
	SecretSetting = "setting"
	SecretWebhook = "webhook"
	// SecretChatWebhook is a chat webhook's URL.
	SecretChatWebhook = "chat webhook"
)

// Place names where the secret is kept, like "webhook wh_…": for messages, and bound to an
// encrypted value so that it opens nowhere else.
func (s StoredSecret) Place() string { return s.Kind + " " + s.Name }

// AssigneeLoad is how busy one assignee is: see Store.AssigneeLoads.
type AssigneeLoad struct {
	Pending        int
	LastAssignedAt time.Time
}

// Deadline is when a pending inquiry times out.
type Deadline struct {
	InquiryID int64
	At        time.Time
}

// WriterCounter is implemented by stores whose changes go through one writer that commits
// many together (internal/groupcommit): how many changes it has run, in how many transactions.
type WriterCounter interface {
	WriterCounts() (changes, batches int64)
}

// EventWatcher is implemented by stores that several nodes share. WatchEvents calls hint
// whenever another node may have appended events, until ctx ends. Hints may be lost or
// repeated: they only say "read the log now"; the log itself is the truth.
type EventWatcher interface {
	WatchEvents(ctx context.Context, hint func())
}
