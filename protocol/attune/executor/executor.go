// Package executor holds the payloads Attune's executor publishes for each inquiry event
// (inquiry_id, execution_id, ...), which the message brokers' attune format sends
// (broker.Render). It needs the domain alone, so that the brokers do not depend on the engine.
package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hitl-dev/hitl"
)

// Identities looks up the integer identities of principals by name (the engine's IdentityIDs).
type Identities interface {
	IdentityIDs(ctx context.Context, names []string) (map[string]int64, error)
}

// ErrUnreadable marks an event that Payload cannot read: no attempt can publish it.
var ErrUnreadable = errors.New("the event cannot be read")

// Payload is the payload Attune's executor publishes for an event of type typ whose
// CloudEvents data is data, under the same routing key; events Attune has no payload for keep
// their data as it is. ids gives the payloads their integer assignee (nil: none). An error that
// is not ErrUnreadable (looking up the assignee) may pass.
func Payload(ctx context.Context, typ string, data json.RawMessage, ids Identities) ([]byte, error) {
	if !isInquiryEvent(typ) {
		return data, nil
	}
	var inq eventInquiry
	if err := json.Unmarshal(data, &inq); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	assignee, err := identityOf(ctx, ids, inq.AssignedTo)
	if err != nil {
		return nil, fmt.Errorf("looking up the assignee's identity: %w", err)
	}
	body, err := payload(typ, &inq, assignee)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	return body, nil
}

// eventInquiry is what Attune's payloads take from an inquiry event's data. Execution and the
// integer identities are read when present (the inquiry's execution field, responded_by_id).
type eventInquiry struct {
	ID             int64           `json:"id"`
	Execution      json.RawMessage `json:"execution"`
	Prompt         string          `json:"prompt"`
	ResponseSchema json.RawMessage `json:"response_schema"`
	AssignedTo     []string        `json:"assigned_to"`
	TimeoutAt      *time.Time      `json:"timeout_at"`
	Response       json.RawMessage `json:"response"`
	RespondedBy    json.RawMessage `json:"responded_by"`
	RespondedByID  json.RawMessage `json:"responded_by_id"`
	RespondedAt    *time.Time      `json:"responded_at"`
	CancelReason   *string         `json:"cancel_reason"`
	UpdatedAt      time.Time       `json:"updated_at"`
}

func isInquiryEvent(typ string) bool {
	switch typ {
	case hitl.EventInquiryCreated, hitl.EventInquiryResponded, hitl.EventInquiryTimeout, hitl.EventInquiryCancelled:
		return true
	}
	return false
}

// identityOf is the integer identity of the person among assignees (see Person), as
// /api/v1/inquiries shows it; nil when there is none.
func identityOf(ctx context.Context, ids Identities, assignees []string) (*int64, error) {
	name := Person(assignees)
	if name == "" || ids == nil {
		return nil, nil
	}
	found, err := ids.IdentityIDs(ctx, []string{name})
	if err != nil {
		return nil, err
	}
	if id, ok := found[name]; ok {
		return &id, nil
	}
	return nil, nil
}

// payload maps an inquiry event to its payload; assignee is the person's integer identity.
func payload(typ string, inq *eventInquiry, assignee *int64) ([]byte, error) {
	execution := integerIfDigits(inq.Execution)
	switch typ {
	case hitl.EventInquiryCreated:
		return json.Marshal(struct {
			InquiryID      int64           `json:"inquiry_id"`
			ExecutionID    json.RawMessage `json:"execution_id"`
			Prompt         string          `json:"prompt"`
			ResponseSchema json.RawMessage `json:"response_schema"`
			AssignedTo     *int64          `json:"assigned_to"`
			TimeoutAt      *time.Time      `json:"timeout_at"`
		}{inq.ID, execution, inq.Prompt, hitl.OrNull(inq.ResponseSchema), assignee, inq.TimeoutAt})
	case hitl.EventInquiryResponded:
		by := inq.RespondedByID
		if hitl.IsNull(by) {
			by = inq.RespondedBy
		}
		return json.Marshal(struct {
			InquiryID   int64           `json:"inquiry_id"`
			ExecutionID json.RawMessage `json:"execution_id"`
			Response    json.RawMessage `json:"response"`
			RespondedBy json.RawMessage `json:"responded_by"`
			RespondedAt *time.Time      `json:"responded_at"`
		}{inq.ID, execution, hitl.OrNull(inq.Response), hitl.OrNull(by), inq.RespondedAt})
	case hitl.EventInquiryTimeout:
		return json.Marshal(struct {
			InquiryID   int64           `json:"inquiry_id"`
			ExecutionID json.RawMessage `json:"execution_id"`
			Response    json.RawMessage `json:"response"` // the fallback applied, if any
			TimeoutAt   *time.Time      `json:"timeout_at"`
		}{inq.ID, execution, hitl.OrNull(inq.Response), inq.TimeoutAt})
	default: // cancelled
		return json.Marshal(struct {
			InquiryID   int64           `json:"inquiry_id"`
			ExecutionID json.RawMessage `json:"execution_id"`
			Reason      *string         `json:"reason"`
			CancelledAt time.Time       `json:"cancelled_at"`
		}{inq.ID, execution, inq.CancelReason, inq.UpdatedAt})
	}
}

// integerIfDigits turns a string of digits ("123") into the number Attune's IDs are.
func integerIfDigits(v json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(v, &s) == nil {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.RawMessage(s)
		}
	}
	return hitl.OrNull(v)
}

// Person is the first assignee that names a principal rather than a group (Attune assigns one
// person; groups have no identity).
func Person(assignees []string) string {
	for _, a := range assignees {
		if _, group := hitl.GroupOf(a); !group {
			return a
		}
	}
	return ""
}
