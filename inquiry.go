package hitl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Inquiry is one question from an agent (or workflow step) to a human.
type Inquiry struct {
	ID             int64           `json:"id"`
	Status         Status          `json:"status"`
	Prompt         string          `json:"prompt"`
	RequestType    RequestType     `json:"request_type"`
	ResponseSchema json.RawMessage `json:"response_schema"`
	Options        []Option        `json:"options"`
	Multiple       bool            `json:"multiple"`
	// OptionsFrom is where in Context a selection asked without options found them: the JSON
	// Pointer of its list of choices ("/venues"), one option per entry in the list's order.
	// "" when the options were given.
	OptionsFrom string          `json:"options_from,omitempty"`
	Context     json.RawMessage `json:"context"`
	Session     string          `json:"session"`
	// Execution is the workflow execution (for example Attune's) that asked, "" for none.
	Execution   string   `json:"execution,omitempty"`
	Origin      string   `json:"origin"`
	CreatedBy   string   `json:"created_by"`
	AssignedTo  []string `json:"assigned_to"`
	ChannelHint string   `json:"channel_hint"`
	// Notify narrows the channels that notifications about the inquiry go by (email, slack,
	// webpush);
	// empty: every channel its recipients have.
	Notify         []string        `json:"notify,omitempty"`
	Confidence     *float64        `json:"confidence"`
	TimeoutAt      *time.Time      `json:"timeout_at"`
	FallbackPolicy FallbackPolicy  `json:"fallback_policy"`
	FallbackValue  json.RawMessage `json:"fallback_value"`
	Exclusive      bool            `json:"exclusive"`
	// CancellableByResponder lets a person who may answer decline instead: the inquiry is
	// cancelled and its session fails with their reason (Nova's Cancel button). Inquiries are
	// declinable unless the agent said otherwise (InquiryRequest.CancellableByResponder).
	CancellableByResponder bool `json:"cancellable_by_responder"`
	// RemindEvery re-notifies the recipients at this interval while the inquiry is pending;
	// NextReminderAt is the next time (nil when none is due before the deadline).
	RemindEvery    *Duration  `json:"remind_every"`
	NextReminderAt *time.Time `json:"next_reminder_at"`
	RemindersSent  int        `json:"reminders_sent"`
	// EscalateAfter (from creation) adds EscalateTo to the assignees, once, at EscalatedAt.
	// With a ladder (Escalation) they are its first step's: when it comes, whom it adds, and
	// when it was reached.
	EscalateAfter *Duration  `json:"escalate_after"`
	EscalateTo    []string   `json:"escalate_to"`
	EscalatedAt   *time.Time `json:"escalated_at"`
	// Escalation is the inquiry's escalation ladder and where it stands on it; nil for an
	// inquiry that does not escalate (and for those stored before ladders, which escalate by
	// EscalateAfter alone).
	Escalation *Escalation `json:"escalation,omitempty"`
	// Priority: PriorityUrgent reminds and escalates at any hour; PriorityNormal waits for
	// the working hours of the people reached (see Person.WorkingHours).
	Priority Priority `json:"priority"`
	// Quorum, or Steps (a chain), make the answers votes (see approval.go): Votes are those
	// cast so far, CurrentStep the chain's step that votes now (1, 2, ...). ChainTimeoutAt is a
	// chain's own deadline; TimeoutAt is the sooner of it and the current step's.
	Quorum         *Quorum        `json:"quorum,omitempty"`
	Steps          []ApprovalStep `json:"steps,omitempty"`
	CurrentStep    int            `json:"current_step,omitempty"`
	Votes          []Vote         `json:"votes,omitempty"`
	ChainTimeoutAt *time.Time     `json:"chain_timeout_at,omitempty"`
	// ExcludeRequester keeps the principal that asked from answering or voting;
	// ExcludeSessionOwner the owner of the inquiry's session too (separation of duties).
	ExcludeRequester    bool `json:"exclude_requester,omitempty"`
	ExcludeSessionOwner bool `json:"exclude_session_owner,omitempty"`
	// Claim: who is answering it now (nil when nobody has claimed it).
	Claim *InquiryClaim `json:"claim,omitempty"`
	// Pool is the group a pool:NAME assignment picked the assignee from.
	Pool     string    `json:"pool,omitempty"`
	ToolCall *ToolCall `json:"tool_call"`
	// AllowedDecisions: what a person may decide about ToolCall (see Decision); empty for
	// every other inquiry, whose answers are what ResponseSchema says.
	AllowedDecisions []Decision  `json:"allowed_decisions,omitempty"`
	ToolResult       *ToolResult `json:"tool_result"`
	// CallbackURL receives this inquiry's events (the resume callback); omitted when unset.
	CallbackURL string          `json:"callback_url,omitempty"`
	Response    json.RawMessage `json:"response"`
	// Chosen is, for options read from the context (OptionsFrom), the entry of the context's
	// list that the answer picked, as the agent gave it: the object an option's label stands
	// for ({"name": "Venue B", "capacity": 80} for "Venue B"), or a list of them when the
	// selection is multiple. Absent otherwise.
	Chosen          json.RawMessage `json:"chosen,omitempty"`
	FallbackApplied bool            `json:"fallback_applied"`
	RespondedBy     *string         `json:"responded_by"`
	// RespondedByID is the integer identity of RespondedBy (see Principal.IdentityID).
	RespondedByID *int64 `json:"responded_by_id,omitempty"`
	// RelayedBy is the principal that carried RespondedBy's answer (a relay), nil when the
	// person answered themselves.
	RelayedBy *string `json:"relayed_by,omitempty"`
	// OnBehalfOf is the absent person RespondedBy answered for, as their delegate (see
	// Absence), nil when RespondedBy answered as themself.
	OnBehalfOf *string `json:"on_behalf_of,omitempty"`
	// Rule is the standing approval that answered the inquiry when it was created (then
	// RespondedBy is "rule:<id>"), nil otherwise.
	Rule         *RuleRef   `json:"rule,omitempty"`
	RespondedAt  *time.Time `json:"responded_at"`
	Comment      *string    `json:"comment"`
	CancelReason *string    `json:"cancel_reason"`
	// DeclinedBy is the person who declined to answer (see CancellableByResponder), nil when
	// the inquiry was not declined: a declined inquiry's session failed with it.
	DeclinedBy *string `json:"declined_by,omitempty"`
	// ResumedAt is when the asking agent first received the final state (inquiry.resumed).
	ResumedAt *time.Time        `json:"resumed_at,omitempty"`
	Metadata  map[string]string `json:"metadata"`
	CreatedAt time.Time         `json:"created_at"`
	UpdatedAt time.Time         `json:"updated_at"`
	// Template is the template the inquiry was made from, "" for none.
	Template string `json:"template,omitempty"`
	// Traceparent and Tracestate are the W3C Trace Context of the request that created the
	// inquiry ("" when it had none): its webhooks, callbacks and broker messages carry that
	// trace on, so that an agent's trace goes on through the human's answer.
	Traceparent string `json:"traceparent,omitempty"`
	Tracestate  string `json:"tracestate,omitempty"`
	// ReceiptValidFor is how long the receipt of the inquiry's decision holds, nil for the
	// server's default (--receipt-validity).
	ReceiptValidFor *Duration `json:"receipt_valid_for,omitempty"`
	// Receipt is the signed receipt of the decision that ended the inquiry (a compact JWS,
	// docs/receipts.md): set when an answer, a verdict, a rule or a fallback value decided,
	// "" otherwise.
	Receipt string `json:"receipt,omitempty"`
	// DedupKey names the question so that askers of an equal one join it (docs/dedup.md): the
	// key the agent gave, or one hitl made from the template and its vars, or the tool call's
	// name and arguments; "" when the inquiry joins nothing.
	DedupKey string `json:"dedup_key,omitempty"`
	// Joined is the inquiry people see and answer when this one joined it, nil otherwise: a
	// joined inquiry is nobody's to answer; it ends with the answer to the one it joined.
	Joined *int64 `json:"joined,omitempty"`
	// DedupHash is the fingerprint of the question asked (prompt, type, schema, options,
	// assignees, tool call), which a later asker's must equal to join; kept in its own column.
	DedupHash string `json:"-"`
}

// Option is one choice of a selection. On input it may be given as a bare string,
// which is both its value and its label.
type Option struct {
	Value       string `json:"value"`
	Label       string `json:"label,omitempty"`
	Description string `json:"description,omitempty"`
}

// UnmarshalJSON accepts "value" or {"value","label","description"} and nothing else.
func (o *Option) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*o = Option{Value: s}
		return nil
	}
	if len(b) == 0 || b[0] != '{' {
		return errors.New("an option is a string or an object with value, label and description")
	}
	// encoding/json matches member names in any case: {"Value":"a"} must not pass for
	// {"value":"a"}, nor {"value":"a","VALUE":"b"} be read as "b".
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	for name := range members {
		if name != "value" && name != "label" && name != "description" {
			return fmt.Errorf("unknown field %q: an option has value, label and description", name)
		}
	}
	type plain Option
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*o = Option(p)
	return nil
}

// ToolCall is the LLM tool call that asked the question; it is echoed in the result.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// ParametersSchema is the JSON Schema of the tool's arguments, as given to the model:
	// arguments a person edits must fit it.
	ParametersSchema json.RawMessage `json:"parameters_schema,omitempty"`
}

// ToolResult is ready to append to the LLM conversation as the tool's result.
type ToolResult struct {
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
	// The rest is set for an approval of a tool call with decisions (Inquiry.AllowedDecisions),
	// for programs that act on it: Run says whether to run the tool, with Arguments (the
	// proposed ones, or those the person edited); Message is what the person said instead.
	// Decision is empty when nobody decided (a deadline, a cancellation): Run is false then.
	Decision  Decision        `json:"decision,omitempty"`
	Run       *bool           `json:"run,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Message   string          `json:"message,omitempty"`
}

// Decision is what a person decides about a tool call a model wants to make.
type Decision string

const (
	// DecisionApprove: run the tool with the proposed arguments.
	DecisionApprove Decision = "approve"
	// DecisionEdit: run the tool with the arguments the person edited (DecisionAnswer.Args).
	DecisionEdit Decision = "edit"
	// DecisionReject: do not run the tool; the message says why.
	DecisionReject Decision = "reject"
	// DecisionRespond: do not run the tool; the message is the answer the model gets instead.
	DecisionRespond Decision = "respond"
)

// Decisions lists every decision, in the order forms offer them.
var Decisions = []Decision{DecisionApprove, DecisionEdit, DecisionReject, DecisionRespond}

// DefaultDecisions are those of an approval of a tool call that names none.
var DefaultDecisions = []Decision{DecisionApprove, DecisionReject}

// Valid reports whether d is a known decision.
func (d Decision) Valid() bool {
	return d == DecisionApprove || d == DecisionEdit || d == DecisionReject || d == DecisionRespond
}

// DecisionAnswer is the answer to an approval of a tool call with decisions:
// {"decision":"approve"}, {"decision":"edit","args":{…}}, {"decision":"reject","message":"…"}
// or {"decision":"respond","message":"…"}.
type DecisionAnswer struct {
	Decision Decision        `json:"decision"`
	Args     json.RawMessage `json:"args,omitempty"`
	Message  string          `json:"message,omitempty"`
}

// HasDecisions tells whether the inquiry is answered with a Decision about its tool call.
func (inq *Inquiry) HasDecisions() bool { return len(inq.AllowedDecisions) > 0 }

// Allows tells whether the inquiry lets a person decide d.
func (inq *Inquiry) Allows(d Decision) bool {
	for _, a := range inq.AllowedDecisions {
		if a == d {
			return true
		}
	}
	return false
}

// InquiryRequest is what an agent sends to ask a question (POST /v1/inquiries).
type InquiryRequest struct {
	Prompt         string            `json:"prompt"`
	RequestType    RequestType       `json:"request_type,omitempty"`
	ResponseSchema json.RawMessage   `json:"response_schema,omitempty"`
	Options        []Option          `json:"options,omitempty"`
	Multiple       bool              `json:"multiple,omitempty"`
	Context        json.RawMessage   `json:"context,omitempty"`
	Metadata       map[string]string `json:"metadata,omitempty"`
	Session        string            `json:"session,omitempty"`
	Execution      string            `json:"execution,omitempty"`
	Origin         string            `json:"origin,omitempty"`
	AssignedTo     Assignees         `json:"assigned_to,omitempty"`
	ChannelHint    string            `json:"channel_hint,omitempty"`
	Notify         []string          `json:"notify,omitempty"`
	Confidence     *float64          `json:"confidence,omitempty"`
	TimeoutSeconds *int64            `json:"timeout_seconds,omitempty"`
	TimeoutAt      *time.Time        `json:"timeout_at,omitempty"`
	FallbackPolicy FallbackPolicy    `json:"fallback_policy,omitempty"`
	FallbackValue  json.RawMessage   `json:"fallback_value,omitempty"`
	ToolCall       *ToolCall         `json:"tool_call,omitempty"`
	// AllowedDecisions: see Inquiry. An approval with a tool_call that gives decisions, or
	// the tool's parameters schema, is answered with a DecisionAnswer; without either, with
	// {"approved": bool} as every approval.
	AllowedDecisions []Decision `json:"allowed_decisions,omitempty"`
	CallbackURL      string     `json:"callback_url,omitempty"`
	Exclusive        bool       `json:"exclusive,omitempty"`
	// CancellableByResponder: see Inquiry. Left out, it is true: the person asked may decline,
	// as Nova's Cancel button lets them; false keeps the inquiry to answers.
	CancellableByResponder *bool `json:"cancellable_by_responder,omitempty"`
	// RemindEvery and EscalateAfter are durations like "30m" or "2h" (see ParseDuration).
	RemindEvery string `json:"remind_every,omitempty"`
	// ReceiptValidFor is how long the receipt of the decision holds ("30m"), at most the
	// server's --receipt-max-validity; "": the server's --receipt-validity.
	ReceiptValidFor string    `json:"receipt_valid_for,omitempty"`
	EscalateAfter   string    `json:"escalate_after,omitempty"`
	EscalateTo      Assignees `json:"escalate_to,omitempty"`
	// Escalate is an escalation ladder, in the place of EscalateAfter and EscalateTo.
	Escalate []EscalationStepRequest `json:"escalate,omitempty"`
	// Priority is PriorityNormal ("", the default) or PriorityUrgent.
	Priority Priority `json:"priority,omitempty"`
	// Quorum and Steps: see Inquiry. Both exclusions default to true for them, false otherwise.
	Quorum              *Quorum        `json:"quorum,omitempty"`
	Steps               []ApprovalStep `json:"steps,omitempty"`
	ExcludeRequester    *bool          `json:"exclude_requester,omitempty"`
	ExcludeSessionOwner *bool          `json:"exclude_session_owner,omitempty"`
	// Template names a stored template (see Template) that the inquiry is made from: its
	// fields, with those this request gives in their place, and its prompt rendered with Vars,
	// a JSON object of the values its {{.var}} placeholders take.
	Template string          `json:"template,omitempty"`
	Vars     json.RawMessage `json:"vars,omitempty"`
	// DedupKey: while a pending inquiry with this key asks the same question, the new one
	// joins it instead of asking people again (docs/dedup.md). Dedup asks the same without a
	// key for an inquiry made from a template (the same template and vars) or for a tool call
	// (the same tool and arguments).
	DedupKey string `json:"dedup_key,omitempty"`
	Dedup    bool   `json:"dedup,omitempty"`
	// IfSessionVersion, when set, asks only if the session is at that version
	// (Store.SessionVersion), as OpenIntent's If-Match asks; not part of hitl's API.
	IfSessionVersion *int64 `json:"-"`
}

// ResponseRequest is a human's answer (POST /v1/inquiries/{id}/respond). Response is any
// JSON value, null included; a nil Response is no answer, and is left out when sent.
type ResponseRequest struct {
	Response json.RawMessage `json:"response,omitempty"`
	Comment  string          `json:"comment,omitempty"`
	// OnBehalfOf names the absent person the answerer answers for as their delegate; "": as
	// themself, or, when the answerer is not assigned the inquiry but delegate of someone who
	// is, for that person.
	OnBehalfOf string `json:"on_behalf_of,omitempty"`
	// AllowFor, on an approval, makes a standing approval rule for that long ("8h"): see
	// docs/rules.md. AllowArgs says what arguments it approves: "exact" (the default) or "any".
	AllowFor  string `json:"allow_for,omitempty"`
	AllowArgs string `json:"allow_args,omitempty"`
	// RespondedBy names the person whose answer the caller carries, for adapters whose
	// protocol says who answered (OpenIntent's responded_by); "" or the caller's own name:
	// the caller answers. Naming another person needs the relay or admin role.
	RespondedBy string `json:"-"`
	// Session, when set, is the session the inquiry must be in, for protocols whose answers
	// name it (the engine's RespondInSession sets it): an inquiry of another session is not found.
	Session string `json:"-"`
}

// InquiryFilter selects inquiries for a list. Zero fields do not filter.
type InquiryFilter struct {
	Status        Status
	Session       string
	Execution     string
	Origin        string
	RequestType   RequestType
	AssignedTo    []string // matches an inquiry assigned to any of these entries
	CreatedBy     string
	Metadata      map[string]string
	CreatedAfter  *time.Time
	CreatedBefore *time.Time
	// Text keeps inquiries whose prompt contains it, ignoring case.
	Text string
	// Primaries leaves out the inquiries that joined another (Inquiry.Joined): people's lists
	// show each question once.
	Primaries bool
	// JoinedTo keeps the inquiries that joined this one.
	JoinedTo   int64
	Order      InquiryOrder
	Visibility Visibility
	Page       Page
	// CountUpTo stops CountInquiries at this many (0: it counts them all): a list that shows
	// "1000+" need not count a year of history on each view.
	CountUpTo int
}

// InquiryOrder is the order of a list of inquiries.
type InquiryOrder string

const (
	// OrderNewest lists the newest first; it is the default ("").
	OrderNewest InquiryOrder = "newest"
	// OrderDeadline lists the soonest deadline first, then those without one; ties oldest first.
	OrderDeadline InquiryOrder = "deadline"
)

// Valid reports whether o is a known order, or none (the default).
func (o InquiryOrder) Valid() bool { return o == "" || o == OrderNewest || o == OrderDeadline }

// Page is a cursor page request: items after Cursor (exclusive), at most Limit.
type Page struct {
	Cursor string
	Limit  int
	// Offset skips that many items after the cursor, for lists numbered by page.
	Offset int
}

// After is the position the cursor stands for (0 for the first page). Cursors are positive
// integers that a store gives out; anything else is EInvalid.
func (p Page) After() (int64, error) {
	if p.Cursor == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(p.Cursor, 10, 64)
	if err != nil || n <= 0 {
		return 0, Errorf(EInvalid, "cursor is not one this server gave out")
	}
	return n, nil
}

// PageOf trims items, queried with one more than the limit (which tells whether a next page
// exists), and returns the cursor of the next page ("" for the last page).
func PageOf[T any](items []T, limit int, position func(T) int64) ([]T, string) {
	if len(items) <= limit {
		return items, ""
	}
	items = items[:limit]
	return items, strconv.FormatInt(position(items[len(items)-1]), 10)
}

// Visibility narrows what a principal may see: nothing narrows an admin's view.
type Visibility struct {
	All bool
	// CreatedBy: the principal sees what it created (agents).
	CreatedBy string
	// Responder: the principal sees what is unassigned or assigned to one of these entries.
	Responder    bool
	AnswerableBy []string
}

// AnswerLinkRequest asks for a link that lets one person answer one inquiry without an API key
// (POST /v1/inquiries/{id}/links), for email and chat.
type AnswerLinkRequest struct {
	// For is who answers through the link: the name recorded as responded_by.
	For string `json:"for"`
	// Groups, when given, must be groups the person holds by hitl's records: a link always
	// carries the groups of its person's keys, never those a request asserts.
	Groups []string `json:"groups,omitempty"`
	// TTLSeconds is how long the link works (default 7 days, at most 30).
	TTLSeconds int64 `json:"ttl_seconds,omitempty"`
}

// AnswerLink is a signed link token; the page is /a/{token}.
type AnswerLink struct {
	Token     string `json:"token"`
	URL       string `json:"url,omitempty"`
	InquiryID int64  `json:"inquiry_id"`
	For       string `json:"for"`
	// RelayedBy is who made the link for someone else, recorded as relayed_by on the answer.
	RelayedBy string    `json:"relayed_by,omitempty"`
	ExpiresAt time.Time `json:"expires_at"`
}

// DefaultApprovalSchema is the response schema of an approval whose agent gives none.
const DefaultApprovalSchema = `{"type":"object","properties":{"approved":{"type":"boolean"},"comment":{"type":"string"}},"required":["approved"],"additionalProperties":false}`

// IsPlainApproval tells whether the inquiry asks for approved (and a comment) only, as
// approvals do by default: forms answer it with Approve / Reject.
func (inq *Inquiry) IsPlainApproval() bool {
	if inq.RequestType != RequestApproval || len(inq.Options) > 0 {
		return false
	}
	if string(inq.ResponseSchema) == DefaultApprovalSchema {
		return true // most are; the answer of each asks, and decoding the schema is not free
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(inq.ResponseSchema, &s) != nil || s.Type != "object" {
		return false
	}
	var approved struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(s.Properties["approved"], &approved) != nil || approved.Type != "boolean" {
		return false
	}
	for k := range s.Properties {
		if k != "approved" && k != "comment" {
			return false
		}
	}
	for _, k := range s.Required {
		if k != "approved" && k != "comment" {
			return false
		}
	}
	return true
}

// EscalationAt is when a pending inquiry escalates next: nil when it has no escalation or has
// reached its last step.
func (inq *Inquiry) EscalationAt() *time.Time {
	if inq.Escalation != nil {
		return inq.Escalation.NextAt
	}
	if inq.EscalateAfter == nil || inq.EscalatedAt != nil {
		return nil
	}
	at := inq.CreatedAt.Add(inq.EscalateAfter.Duration())
	return &at
}

// NextNudge is the sooner of the next reminder and the escalation: nil when neither is due.
func (inq *Inquiry) NextNudge() *time.Time {
	r, e := inq.NextReminderAt, inq.EscalationAt()
	if r == nil || (e != nil && e.Before(*r)) {
		return e
	}
	return r
}
