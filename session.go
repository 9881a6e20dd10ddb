package hitl

import (
	"encoding/json"
	"time"
)

// SessionStatus is where an agent run is. AwaitingInput is derived: a running session
// with at least one pending inquiry.
type SessionStatus string

const (
	SessionRunning       SessionStatus = "running"
	SessionAwaitingInput SessionStatus = "awaiting_input"
	SessionCompleted     SessionStatus = "completed"
	SessionFailed        SessionStatus = "failed"
	SessionCancelled     SessionStatus = "cancelled"
)

// Finished reports whether the session has ended and can no longer change.
func (s SessionStatus) Finished() bool {
	return s == SessionCompleted || s == SessionFailed || s == SessionCancelled
}

// Valid reports whether s is a known session status.
func (s SessionStatus) Valid() bool {
	switch s {
	case SessionRunning, SessionAwaitingInput, SessionCompleted, SessionFailed, SessionCancelled:
		return true
	}
	return false
}

// Session is one agent run: an execution, task, intent or webhook-triggered run.
type Session struct {
	Key              string            `json:"key"`
	Status           SessionStatus     `json:"status"`
	Agent            string            `json:"agent"`
	CreatedBy        string            `json:"created_by"`
	State            json.RawMessage   `json:"state"`
	Result           json.RawMessage   `json:"result"`
	Error            *string           `json:"error"`
	CallbackURL      *string           `json:"callback_url"`
	Metadata         map[string]string `json:"metadata"`
	PendingInquiries int               `json:"pending_inquiries"`
	InquiriesAsked   int               `json:"inquiries_asked"`
	CreatedAt        time.Time         `json:"created_at"`
	UpdatedAt        time.Time         `json:"updated_at"`
	CompletedAt      *time.Time        `json:"completed_at"`
	// CallbackFormat is the shape of what the callback receives: "" for CloudEvents,
	// CallbackAgentQuestions for the async agent questions protocol's bodies.
	CallbackFormat string `json:"callback_format,omitempty"`
}

// SessionRequest creates or updates a session (PUT /v1/sessions/{key}).
type SessionRequest struct {
	Agent       string            `json:"agent,omitempty"`
	State       json.RawMessage   `json:"state,omitempty"`
	CallbackURL string            `json:"callback_url,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	// CallbackFormat: "cloudevents" (the default) or "agent-questions".
	CallbackFormat string `json:"callback_format,omitempty"`
	// IfVersion, when set, makes the change only if the session is at that version
	// (Store.SessionVersion), as OpenIntent's If-Match asks; not part of hitl's API.
	IfVersion *int64 `json:"-"`
}

// SessionLogEntry is what an agent records in its session's log (EventSessionLogged): what it
// did or saw, in OpenIntent's shape, since OpenIntent's agents write it.
type SessionLogEntry struct {
	// EventType is the agent's name for it: one of OpenIntent's event types, "comment" for
	// its log(intent_id, message).
	EventType string `json:"event_type"`
	// Payload is a JSON object: for a comment, {"message": ...} and whatever else was logged.
	Payload json.RawMessage `json:"payload"`
	// TraceID and ParentEventID place the entry in a distributed trace (OpenIntent's RFC-0020):
	// the trace's id and the id of the event that caused it.
	TraceID       string `json:"trace_id,omitempty"`
	ParentEventID string `json:"parent_event_id,omitempty"`
}

// The shapes of a session's callbacks.
const (
	// CallbackCloudEvents: every event of the session as a CloudEvent with the resume data.
	CallbackCloudEvents = "cloudevents"
	// CallbackAgentQuestions: the async agent questions protocol; each new question as
	// {"event": "question_pending", ...} and its answer as {"event": "question_answered", ...},
	// with an X-Agent-Session header, and nothing else.
	CallbackAgentQuestions = "agent-questions"
)

// SessionFilter selects sessions for a list.
type SessionFilter struct {
	Status    SessionStatus
	CreatedBy string // empty: all
	Page      Page
}
