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
	EventSessionUpdated   = "session.updated"
	EventSessionCompleted = "session.completed"
	EventSessionFailed    = "session.failed"
	EventSessionCancelled = "session.cancelled"
	// Key events are the audit trail of API keys, visible to admins only. They also tell every
	// node to forget what it remembers of a key.
	EventKeyCreated = "key.created"
	EventKeyUpdated = "key.updated"
	EventKeyRevoked = "key.revoked"
)

// Event is one entry of the append-only log. Seq is assigned by the store, strictly
// increasing and gap-free as seen by readers.
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
