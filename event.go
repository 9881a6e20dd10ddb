package hitl

import (
	"encoding/json"
	"time"
)

// Event types. Every change is one event, stored in the same transaction as the change.
const (
	EventInquiryCreated   = "inquiry.created"
	EventInquiryResponded = "inquiry.responded"
	EventInquiryTimeout   = "inquiry.timeout"
	EventInquiryCancelled = "inquiry.cancelled"
	// A pending inquiry's timers: a reminder to its recipients (Data: the inquiry and
	// "reminder", its number) and its escalation (Data: the inquiry and "added", the assignees
	// it gained).
	EventInquiryReminded  = "inquiry.reminded"
	EventInquiryEscalated = "inquiry.escalated"
	// EventInquiryResumed: the asking agent has received the final state (its wait returned it,
	// it fetched the tool result, or its resume callback was acknowledged); once per inquiry.
	EventInquiryResumed   = "inquiry.resumed"
	EventSessionUpdated   = "session.updated"
	EventSessionCompleted = "session.completed"
	EventSessionFailed    = "session.failed"
	EventSessionCancelled = "session.cancelled"
	// EventSessionLogged is an entry the agent adds to its session's log, which changes
	// nothing (OpenIntent's log() and POST /intents/{id}/events). Data: the session, and
	// "entry", the SessionLogEntry.
	EventSessionLogged = "session.logged"
	// Key events are the audit trail of API keys, visible to admins only. They also tell every
	// node to forget what it remembers of a key.
	EventKeyCreated = "key.created"
	EventKeyUpdated = "key.updated"
	EventKeyRevoked = "key.revoked"
	// EventIntakeRejected records an action result that came in by a message broker and was
	// refused (Data: IntakeRejection); visible to admins only, and published to the brokers.
	EventIntakeRejected = "intake.rejected"
	// EventAuditCheckpoint records that retention removed ended inquiries and sessions with
	// their events (Data: AuditCheckpoint), so that the audit chain still verifies across the
	// gaps they leave; visible to admins only.
	EventAuditCheckpoint = "audit.checkpoint"
	// EventSigningKeyRotated records a new receipt signing key (Data: "kid", the new key's id,
	// and "previous", the one it replaced); visible to admins only. Every node reloads its
	// keys on it.
	EventSigningKeyRotated = "signing_key.rotated"
)

// LoggedEntry is what a session.logged event logged; nil for another event.
func LoggedEntry(ev *Event) *SessionLogEntry {
	var data struct {
		Entry *SessionLogEntry `json:"entry"`
	}
	if ev.Type != EventSessionLogged || json.Unmarshal(ev.Data, &data) != nil {
		return nil
	}
	return data.Entry
}

// ChangesSession reports whether ev is a change of its session, which its version counts
// (Store.SessionVersion): every event of a session but the entries of its log, which record
// what its agent says and change nothing. OpenIntent's intents carry the count as their
// version, and an agent's change made against an older one is refused.
func ChangesSession(ev *Event) bool {
	return ev.Session != "" && ev.Type != EventSessionLogged
}

// IntakeRejection is the data of an intake.rejected event: where the message came from,
// which one it was, and why it was refused, in words.
type IntakeRejection struct {
	Source      string `json:"source"` // "amqp:QUEUE", "nats:SUBJECT"
	MessageID   string `json:"message_id,omitempty"`
	ExecutionID string `json:"execution_id,omitempty"`
	Reason      string `json:"reason"`
}

// Event is one entry of the append-only log. Seq is assigned by the store, strictly
// increasing and gap-free as seen by readers.
//
// Every event of an inquiry (InquiryID set) carries in Data the whole inquiry after the change,
// with what the change adds beside it; every event of a session and no inquiry the whole
// session after it. Each is written in the transaction that stores the change, so the stored
// inquiry (session) is always what its newest event says: the audit checks it
// (internal/audit).
type Event struct {
	Seq       int64           `json:"seq"`
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Time      time.Time       `json:"time"`
	InquiryID *int64          `json:"inquiry_id"`
	Session   string          `json:"session"`
	Actor     string          `json:"actor"`
	Data      json.RawMessage `json:"data"`

	// Inquiry is the inquiry after the change, for in-process subscribers; not stored apart from Data.
	Inquiry *Inquiry `json:"-"`
	// Then are the events the same transaction wrote because of this one (the inquiries that
	// joined an inquiry, ending with it), for in-process subscribers: published after it.
	Then []*Event `json:"-"`
}

// EventFilter selects events for a page of the log.
type EventFilter struct {
	After      int64
	Types      []string
	Session    string
	InquiryID  int64
	Visibility Visibility
	Limit      int
}

// OpenIntent's names for the life of a suspension (RFC-0025): an inquiry asked in a session
// suspends its intent, and its answer, deadline or cancellation resumes it. They are not
// stored: the streams and webhooks derive them from the inquiry events (IntentAlias), at the
// same seq.
const (
	EventIntentSuspended = "intent.suspended"
	EventIntentResumed   = "intent.resumed"
)

// IntentAliasType is OpenIntent's name for an inquiry event of a session, "" for other events.
func IntentAliasType(ev *Event) string {
	if ev.InquiryID == nil || ev.Session == "" {
		return ""
	}
	switch ev.Type {
	case EventInquiryCreated:
		return EventIntentSuspended
	case EventInquiryResponded, EventInquiryTimeout, EventInquiryCancelled:
		return EventIntentResumed
	}
	return ""
}

// IntentAlias is the event under OpenIntent's name (see IntentAliasType): the same seq,
// inquiry, session, actor and data; nil when the event has none.
func IntentAlias(ev *Event) *Event {
	typ := IntentAliasType(ev)
	if typ == "" {
		return nil
	}
	alias := *ev
	alias.Type = typ
	// The alias's id is made from its event's: stable, and distinct from it, so that a webhook
	// receiver that drops duplicate ids keeps both.
	alias.ID = ev.ID + "/" + typ
	return &alias
}

// IntentAliasSources are the stored event types an alias is derived from; nil for a type that
// is no alias.
func IntentAliasSources(typ string) []string {
	switch typ {
	case EventIntentSuspended:
		return []string{EventInquiryCreated}
	case EventIntentResumed:
		return []string{EventInquiryResponded, EventInquiryTimeout, EventInquiryCancelled}
	}
	return nil
}
