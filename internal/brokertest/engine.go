package brokertest

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/tracing"
)

// Engine stands in for the engine's action results in the adapters' tests: an __inquiry
// without a prompt is invalid, and each execution makes one inquiry however often it comes.
type Engine struct {
	mu        sync.Mutex
	Created   []string // executions, in the order their inquiries were made
	Calls     int
	Rejection []hitl.IntakeRejection
	// Traceparents are the trace context each inquiry was made in, as the engine keeps it.
	Traceparents []string
}

func (e *Engine) IntakeActionResult(ctx context.Context, _ *hitl.Principal, execution string, result json.RawMessage) (*hitl.Inquiry, bool, error) {
	var r struct {
		Inquiry *struct {
			Prompt string `json:"prompt"`
		} `json:"__inquiry"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return nil, false, hitl.Errorf(hitl.EInvalid, "the result is not a JSON object")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.Calls++
	if r.Inquiry == nil {
		return nil, false, nil
	}
	if r.Inquiry.Prompt == "" {
		return nil, false, &hitl.Error{Code: hitl.EInvalid, Message: "invalid inquiry", Fields: []hitl.FieldError{{Path: "/prompt", Message: "is required"}}}
	}
	for i, x := range e.Created {
		if x == execution {
			return &hitl.Inquiry{ID: int64(i + 1)}, false, nil
		}
	}
	e.Created = append(e.Created, execution)
	traceparent, _ := tracing.Of(ctx)
	e.Traceparents = append(e.Traceparents, traceparent)
	return &hitl.Inquiry{ID: int64(len(e.Created))}, true, nil
}

func (e *Engine) RejectIntake(_ context.Context, r hitl.IntakeRejection) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.Rejection = append(e.Rejection, r)
	return nil
}

func (e *Engine) IdentityIDs(context.Context, []string) (map[string]int64, error) { return nil, nil }

// Traced returns the traceparents of the inquiries made, in order ("" for one made in no trace).
func (e *Engine) Traced() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.Traceparents...)
}

// State returns copies of what the engine was asked.
func (e *Engine) State() (created []string, rejected []hitl.IntakeRejection) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.Created...), append([]hitl.IntakeRejection(nil), e.Rejection...)
}
