package hitl

import "time"

// Priority says whether an inquiry's reminders and escalations wait for working hours.
type Priority string

const (
	// PriorityNormal reminders and escalations that fall outside the working hours of every
	// person they would reach wait for the next working hour among them.
	PriorityNormal Priority = "normal"
	// PriorityUrgent reminders and escalations come when they are due, at any hour.
	PriorityUrgent Priority = "urgent"
)

// Escalation is an inquiry's escalation ladder: steps that each, at their time after the
// inquiry's creation, add assignees and notify them; the deadline's fallback ends it.
type Escalation struct {
	Steps []EscalationStep `json:"steps"`
	// Reached is the number of steps that have fired (0: none yet).
	Reached int `json:"reached"`
	// NextAt is when the next step fires: its time after creation, or the next working hour
	// of its people when that falls outside their hours (see Priority). Nil once every step
	// has fired.
	NextAt *time.Time `json:"next_at"`
}

// EscalationStep is one rung of a ladder.
type EscalationStep struct {
	// After is the step's time after the inquiry's creation.
	After Duration `json:"after"`
	// AssignedTo are added to the inquiry's assignees (an inquiry open to everyone stays so:
	// they are only notified).
	AssignedTo []string `json:"assigned_to"`
	// Channels are those the step's notifications go by (email, slack, chat_webhook); empty:
	// the people's usual channels.
	Channels []string `json:"channels"`
	// ReachedAt is when the step fired, nil before.
	ReachedAt *time.Time `json:"reached_at,omitempty"`
}

// EscalationStepRequest is one step of InquiryRequest.Escalate: after is a duration like
// "1h" (see ParseDuration).
type EscalationStepRequest struct {
	After      string    `json:"after"`
	AssignedTo Assignees `json:"assigned_to"`
	Channels   []string  `json:"channels,omitempty"`
}
