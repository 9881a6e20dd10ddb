package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/schema"
)

func TestToolDefinitions(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	d, err := agent.ToolDefinitions(ctx)
	must(t, err)
	fn, _ := d.OpenAI["function"].(map[string]any)
	if d.Name != "request_user_input" || d.OpenAI["type"] != "function" || fn["name"] != "request_user_input" ||
		d.Anthropic["name"] != "request_user_input" || d.Anthropic["input_schema"] == nil || fn["parameters"] == nil {
		t.Fatalf("definitions %+v", d)
	}
	// The published schema is a JSON Schema that accepts a real call and refuses a wrong one.
	s, err := schema.Compile(d.InputSchema)
	must(t, err)
	if errs := s.Validate(json.RawMessage(`{"prompt":"Which venue?","options":["Oslo","Bergen",{"value":"tromso","label":"Tromsø"}],"timeout_seconds":600,"remind_every":"30m","escalate_after":"2h","escalate_to":["bob","group:leads"]}`)); len(errs) != 0 {
		t.Fatalf("a good call refused: %v", errs)
	}
	if errs := s.Validate(json.RawMessage(`{"question":"x"}`)); len(errs) == 0 {
		t.Fatal("a call without prompt accepted")
	}
	if r := e.do("GET", "/v1/tools/launch_missiles", adminToken, ""); r.status != 404 || !strings.Contains(r.text, "request_user_input") {
		t.Fatalf("unknown tool: %d %s", r.status, r.text)
	}
	if r := e.do("GET", "/v1/tools/request_user_input", "", ""); r.status != 401 {
		t.Fatalf("no token: %d", r.status)
	}
}

// toolCall runs HandleToolCall in the background.
func toolCall(agent *client.Client, id, args string) <-chan any {
	out := make(chan any, 1)
	go func() {
		res, err := agent.HandleToolCall(ctx, "request_user_input", id, []byte(args))
		if err != nil {
			out <- err
			return
		}
		out <- res
	}()
	return out
}

func toolResult(t *testing.T, ch <-chan any) hitl.ToolResult {
	t.Helper()
	select {
	case v := <-ch:
		if err, ok := v.(error); ok {
			t.Fatal(err)
		}
		return v.(hitl.ToolResult)
	case <-time.After(20 * time.Second):
		t.Fatal("the tool call did not return")
	}
	return hitl.ToolResult{}
}

// pendingByPrompt waits for the pending inquiry with a prompt.
func pendingByPrompt(t *testing.T, c *client.Client, prompt string) *hitl.Inquiry {
	t.Helper()
	var found *hitl.Inquiry
	eventually(t, "the inquiry "+prompt, func() bool {
		p, err := c.Inquiries(ctx, client.ListOptions{Status: "pending"})
		must(t, err)
		for _, inq := range p.Data {
			if inq.Prompt == prompt {
				found = inq
			}
		}
		return found != nil
	})
	return found
}

func TestHandleToolCall(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	human := e.principal("ann", []string{"responder"})

	answered := toolCall(agent, "call_1", `{"prompt":"Deploy 2.5 to prod?","request_type":"approval","context":"tests are green"}`)
	withFallback := toolCall(agent, "call_2", `{"prompt":"Which venue?","options":["Oslo","Bergen"],"timeout_seconds":1,"fallback_policy":"complete_with_fallback","fallback_value":"Oslo"}`)
	noAnswer := toolCall(agent, "call_3", `{"prompt":"Anything to add?","timeout_seconds":1}`)
	cancelled := toolCall(agent, "call_4", `{"prompt":"Rename the service?"}`)

	inq := pendingByPrompt(t, human, "Deploy 2.5 to prod?")
	if inq.ToolCall == nil || inq.ToolCall.ID != "call_1" || inq.ToolCall.Name != "request_user_input" {
		t.Fatalf("the inquiry's tool_call is %+v", inq.ToolCall)
	}
	_, err := human.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "")
	must(t, err)
	if res := toolResult(t, answered); res.ToolCallID != "call_1" || res.Content != `{"approved":true}` {
		t.Fatalf("answered: %+v", res)
	}
	if res := toolResult(t, withFallback); res.ToolCallID != "call_2" || !strings.Contains(res.Content, "fallback") || !strings.Contains(res.Content, `"Oslo"`) {
		t.Fatalf("timed out with a fallback: %+v", res)
	}
	if res := toolResult(t, noAnswer); res.ToolCallID != "call_3" || !strings.Contains(res.Content, "no answer") {
		t.Fatalf("timed out with no answer: %+v", res)
	}
	rename := pendingByPrompt(t, agent, "Rename the service?")
	_, err = agent.Cancel(ctx, rename.ID, "decided without it")
	must(t, err)
	if res := toolResult(t, cancelled); res.ToolCallID != "call_4" || !strings.Contains(res.Content, "decided without it") {
		t.Fatalf("cancelled: %+v", res)
	}

	// The call id is the idempotency key: a caller retrying call_1 gets its result again, and no
	// second inquiry is made.
	again := toolResult(t, toolCall(agent, "call_1", `{"prompt":"Deploy 2.5 to prod?","request_type":"approval","context":"tests are green"}`))
	if again.ToolCallID != "call_1" || again.Content != `{"approved":true}` {
		t.Fatalf("the call retried: %+v", again)
	}
	p, err := e.Admin.Inquiries(ctx, client.ListOptions{})
	must(t, err)
	if len(p.Data) != 4 {
		t.Fatalf("%d inquiries for 4 tool calls", len(p.Data))
	}
}

func TestHandleToolCallErrors(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	human := e.principal("ann", []string{"responder"})
	for _, c := range []struct {
		name, tool, id, args, code, message string
	}{
		{"another tool", "launch_missiles", "c1", `{}`, hitl.ENotFound, "no tool"},
		{"no call id", "request_user_input", "", `{"prompt":"x"}`, hitl.EInvalid, "id"},
		{"not JSON", "request_user_input", "c2", `{"prompt":`, hitl.EInvalid, "not valid"},
		{"wrong type", "request_user_input", "c3", `{"prompt":5}`, hitl.EInvalid, "prompt"},
		{"unknown argument", "request_user_input", "c4", `{"prompt":"x","urgency":"high"}`, hitl.EInvalid, "urgency"},
		{"no prompt (the server's message)", "request_user_input", "c5", `{}`, hitl.EInvalid, "prompt"},
		{"a schema that does not compile", "request_user_input", "c6", `{"prompt":"x","response_schema":{"type":"nonsense"}}`, hitl.EInvalid, "response_schema"},
	} {
		_, err := agent.HandleToolCall(ctx, c.tool, c.id, []byte(c.args))
		if client.ErrorCode(err) != c.code || !strings.Contains(err.Error()+errorPaths(err), c.message) {
			t.Errorf("%s: %v (code %q), want %s mentioning %q", c.name, err, client.ErrorCode(err), c.code, c.message)
		}
	}
	if _, err := human.HandleToolCall(ctx, "request_user_input", "c7", []byte(`{"prompt":"x"}`)); client.ErrorCode(err) != hitl.EForbidden {
		t.Errorf("a responder asking: %v", err)
	}
	if p, err := e.Admin.Inquiries(ctx, client.ListOptions{}); err != nil || len(p.Data) != 0 {
		t.Errorf("refused calls stored inquiries: %v %v", p, err)
	}
	down := client.New("http://127.0.0.1:1", "token", nil)
	down.GiveUpAfter = 300 * time.Millisecond
	start := time.Now()
	_, err := down.HandleToolCall(ctx, "request_user_input", "c8", []byte(`{"prompt":"x"}`))
	if client.ErrorCode(err) != hitl.EUnavailable || time.Since(start) > 5*time.Second {
		t.Errorf("a server that is down: %v after %s", err, time.Since(start))
	}
}

// errorPaths lists the JSON paths of a server's field errors, for messages that name them.
func errorPaths(err error) string {
	var paths []string
	if ce, ok := err.(*client.Error); ok {
		for _, f := range ce.Errors {
			paths = append(paths, f.Path)
		}
	}
	return strings.Join(paths, " ")
}

func TestAgentHooksAndOutcomes(t *testing.T) {
	e := newEnv(t)
	agentClient := e.principal("bot", []string{"agent"})
	human := e.principal("ann", []string{"responder"})
	var calls []string
	agent := &client.Agent{Client: agentClient, Name: "refund-agent", Session: "refund-42", Hooks: client.Hooks{
		OnEngagementDecision: func(_ context.Context, s client.Signals, d *client.Decision) {
			calls = append(calls, "decision:"+d.Mode)
			if s.Risk > 0.95 {
				d.ShouldAsk = true // this agent always asks about the riskiest actions
			}
		},
		OnInputRequested: func(_ context.Context, inq *hitl.Inquiry) {
			calls = append(calls, "requested:"+inq.Origin+":"+inq.Session)
		},
		OnInputReceived:     func(_ context.Context, inq *hitl.Inquiry) { calls = append(calls, "received:"+*inq.RespondedBy) },
		OnSuspensionExpired: func(_ context.Context, inq *hitl.Inquiry) { calls = append(calls, "expired") },
	}}
	d, err := agent.ShouldRequestInput(ctx, client.Signals{Confidence: 0.9, Risk: 0.99, Reversibility: 0.05})
	must(t, err)
	if d.Mode != "defer" || !d.ShouldAsk {
		t.Fatalf("decision %+v: want defer, overridden by the hook to ask", d)
	}

	go func() {
		inq := pendingByPrompt(t, human, "Refund $499?")
		human.Respond(ctx, inq.ID, json.RawMessage(`{"approved":false,"comment":"fraud"}`), "")
	}()
	answer, err := agent.RequestInput(ctx, hitl.InquiryRequest{Prompt: "Refund $499?", RequestType: hitl.RequestApproval})
	must(t, err)
	if string(answer) != `{"approved":false,"comment":"fraud"}` {
		t.Fatalf("answer %s", answer)
	}
	one := int64(1)
	answer, err = agent.RequestInput(ctx, hitl.InquiryRequest{Prompt: "Refund $20?", RequestType: hitl.RequestApproval, TimeoutSeconds: &one,
		FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`{"approved":false}`)})
	must(t, err)
	if string(answer) != `{"approved":false}` {
		t.Fatalf("fallback answer %s", answer)
	}
	_, err = agent.RequestInput(ctx, hitl.InquiryRequest{Prompt: "Refund $5?", TimeoutSeconds: &one})
	var te *client.TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("no answer under policy fail: %v, want a *TimeoutError", err)
	}
	want := []string{"decision:defer", "requested:refund-agent:refund-42", "received:ann", "requested:refund-agent:refund-42", "expired",
		"requested:refund-agent:refund-42", "expired"}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Fatalf("hooks called %v, want %v", calls, want)
	}
	if _, err := agent.RequestInput(ctx, hitl.InquiryRequest{Prompt: ""}); client.ErrorCode(err) != hitl.EInvalid {
		t.Fatalf("a blank prompt: %v", err)
	}
	down := &client.Agent{Client: client.New("http://127.0.0.1:1", "token", nil)}
	down.Client.GiveUpAfter = 300 * time.Millisecond
	if _, err := down.RequestInput(ctx, hitl.InquiryRequest{Prompt: "x"}); client.ErrorCode(err) != hitl.EUnavailable {
		t.Fatalf("a server that is down: %v", err)
	}
}
