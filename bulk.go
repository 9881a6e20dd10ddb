package hitl

import "encoding/json"

// BulkResponseRequest answers several inquiries with one answer (POST /v1/inquiries/respond):
// those listed by IDs, or those Filter matches; exactly one of the two.
type BulkResponseRequest struct {
	IDs      []int64         `json:"ids,omitempty"`
	Filter   *BulkFilter     `json:"filter,omitempty"`
	Response json.RawMessage `json:"response"`
	Comment  string          `json:"comment,omitempty"`
}

// BulkFilter picks the pending inquiries of one session that the caller may answer.
type BulkFilter struct {
	Session string `json:"session"`
	// Status may only be pending (or left out): nothing else can be answered.
	Status Status `json:"status,omitempty"`
	// AssignedTo "me" keeps the inquiries assigned to the caller or one of its groups; left
	// out, every pending inquiry the caller may answer, unassigned ones included.
	AssignedTo string `json:"assigned_to,omitempty"`
	// RequestType keeps one kind of inquiry (approval, for "approve everything").
	RequestType RequestType `json:"request_type,omitempty"`
}

// BulkStatus is what became of one inquiry of a bulk answer.
type BulkStatus string

const (
	// BulkResponded: the answer was recorded (or had been, by the same person: a retry).
	BulkResponded BulkStatus = "responded"
	// BulkVoted: the answer was recorded as the caller's vote of a quorum or chain, which still
	// waits for other votes.
	BulkVoted BulkStatus = "voted"
	// BulkRefused: nothing was recorded for this inquiry; BulkResult.Error says why.
	BulkRefused BulkStatus = "refused"
)

// BulkResult is the outcome for one inquiry of a bulk answer.
type BulkResult struct {
	ID     int64      `json:"id"`
	Status BulkStatus `json:"status"`
	Error  *BulkError `json:"error,omitempty"`
}

// BulkError is why one inquiry was refused, as a problem's code and detail say it.
type BulkError struct {
	Code    string       `json:"code"`
	Message string       `json:"message"`
	Errors  []FieldError `json:"errors,omitempty"`
}

// BulkResults is the answer to a bulk answer: one result per inquiry, in the order of the ids
// (or, for a filter, newest first).
type BulkResults struct {
	Results []BulkResult `json:"results"`
}
