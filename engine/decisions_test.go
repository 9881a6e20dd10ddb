package engine_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/clock"
)

// TestDecisionsWithoutADecision: a deadline, a fallback decision and a cancellation each give a
// tool result that says whether to run the tool, never leaving the model to guess.
func TestDecisionsWithoutADecision(t *testing.T) {
	c := clock.NewManual(time.Now())
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	call := &hitl.ToolCall{ID: "call_1", Name: "drop_table", Arguments: json.RawMessage(`{"table":"users"}`)}
	ask := func(fallback string) *hitl.Inquiry {
		t.Helper()
		req := &hitl.InquiryRequest{Prompt: "Drop it?", RequestType: hitl.RequestApproval, ToolCall: call,
			AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionReject}, TimeoutSeconds: seconds(60)}
		if fallback != "" {
			req.FallbackPolicy, req.FallbackValue = hitl.FallbackCompleteWithFallback, json.RawMessage(fallback)
		}
		inq, _, err := e.CreateInquiry(ctx, agent, req, "")
		if err != nil {
			t.Fatal(err)
		}
		return inq
	}
	plain, withFallback, cancelled := ask(""), ask(`{"decision":"reject","message":"nobody was around"}`), ask("")
	if _, err := e.Cancel(ctx, agent, cancelled.ID, "the plan changed"); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Minute + time.Millisecond)
	// A late answer makes the engine time the inquiries out now, without waiting for the timer.
	for _, inq := range []*hitl.Inquiry{plain, withFallback} {
		_, err := e.Respond(ctx, human, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"decision":"approve"}`)})
		if hitl.ErrorCode(err) != hitl.EConflict {
			t.Fatalf("late answer: %v", err)
		}
	}
	for _, w := range []struct {
		inq      *hitl.Inquiry
		decision hitl.Decision
		says     []string
	}{
		{plain, "", []string{"Nobody decided about your call of drop_table before the deadline", "Do not run drop_table"}},
		{withFallback, hitl.DecisionReject, []string{"the decision set in advance applies", "rejected your call of drop_table", "Their reason: nobody was around"}},
		{cancelled, "", []string{"was cancelled before the human decided: the plan changed", "Do not run drop_table"}},
	} {
		got, err := e.Inquiry(ctx, agent, w.inq.ID)
		if err != nil {
			t.Fatal(err)
		}
		tr := got.ToolResult
		if tr == nil || tr.ToolCallID != "call_1" || tr.Run == nil || *tr.Run || tr.Decision != w.decision || tr.Arguments != nil {
			t.Fatalf("inquiry %d (%s): tool result %+v", got.ID, got.Status, tr)
		}
		for _, s := range w.says {
			if !strings.Contains(tr.Content, s) {
				t.Fatalf("inquiry %d: %q does not say %q", got.ID, tr.Content, s)
			}
		}
	}
}
