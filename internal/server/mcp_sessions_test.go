package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl/internal/testserver"
)

// TestMCPSessionsAreBoundToTheirKey: an initialize at /mcp starts a session, which only the key
// that started it may use; another key naming it is told it does not exist, as after DELETE.
// Requests without a session id are still served statelessly.
func TestMCPSessionsAreBoundToTheirKey(t *testing.T) {
	e := newEnv(t)
	ann, bob := e.token("ann", "agent", "responder"), e.token("bob", "agent")
	mcpHeaders := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}
	with := func(id string) []string { return append(mcpHeaders, "Mcp-Session-Id", id) }
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

	r := e.do("POST", "/mcp", ann, initialize, mcpHeaders...)
	id := r.header.Get("Mcp-Session-Id")
	if r.status != 200 || id == "" {
		t.Fatalf("initialize: %d %q, session %q", r.status, r.text, id)
	}
	if r := e.do("POST", "/mcp", ann, initialized, with(id)...); r.status != 202 {
		t.Fatalf("initialized: %d %s", r.status, r.text)
	}
	if r := e.do("POST", "/mcp", ann, list, with(id)...); r.status != 200 || !strings.Contains(r.text, "request_user_input") {
		t.Fatalf("tools/list in the session: %d %s", r.status, r.text)
	}

	refused := func(what string, r reply) {
		t.Helper()
		if r.status != 404 || r.header.Get("Content-Type") != "application/json" || !strings.Contains(r.text, `"error"`) || !strings.Contains(r.text, "session not found") {
			t.Fatalf("%s: %d %s %q, want a JSON-RPC error with 404", what, r.status, r.header.Get("Content-Type"), r.text)
		}
	}
	refused("another key's POST", e.do("POST", "/mcp", bob, list, with(id)...))
	refused("another key's GET", e.do("GET", "/mcp", bob, "", "Accept", "text/event-stream", "Mcp-Session-Id", id))
	refused("another key's DELETE", e.do("DELETE", "/mcp", bob, "", "Mcp-Session-Id", id))
	refused("an unknown session", e.do("POST", "/mcp", ann, list, with("no-such-session")...))
	if r := e.do("POST", "/mcp", "", list, with(id)...); r.status != 401 {
		t.Fatalf("no key: %d %s", r.status, r.text)
	}
	if r := e.do("GET", "/mcp", ann, "", "Accept", "text/event-stream"); r.status != 405 || !strings.Contains(r.text, "Mcp-Session-Id") {
		t.Fatalf("GET without a session: %d %s", r.status, r.text)
	}
	if r := e.do("POST", "/mcp", ann, list, "Content-Type", "text/plain", "Accept", "application/json, text/event-stream", "Mcp-Session-Id", id); r.status != 415 || !strings.Contains(r.text, `"error"`) {
		t.Fatalf("text/plain: %d %s", r.status, r.text)
	}

	// The session still serves its key after the refusals; DELETE ends it.
	if r := e.do("POST", "/mcp", ann, list, with(id)...); r.status != 200 {
		t.Fatalf("tools/list after the refusals: %d %s", r.status, r.text)
	}
	if r := e.do("DELETE", "/mcp", ann, "", "Mcp-Session-Id", id); r.status != 204 {
		t.Fatalf("DELETE: %d %s", r.status, r.text)
	}
	refused("an ended session", e.do("POST", "/mcp", ann, list, with(id)...))

	// Stateless: no session id, no initialize.
	if r := e.do("POST", "/mcp", bob, list, mcpHeaders...); r.status != 200 || !strings.Contains(r.text, "request_user_input") || r.header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("stateless tools/list: %d %s", r.status, r.text)
	}
}

// elicitingSession connects the go-sdk's client to /mcp with an elicitation handler, on the
// protocol of 2025-11-25: by default the client speaks the 2026-07-28 draft, statelessly, in
// which a server may not send requests to the client while it serves one.
func elicitingSession(t *testing.T, e *env, token string, handle func(*sdk.ElicitRequest) (*sdk.ElicitResult, error)) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "hitl-test", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) { return handle(r) }})
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: e.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer(token)}}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// TestMCPAnswerInClient: with answer_in_client, a client that takes elicitations is asked the
// question as a form, and its answer is the key's person's; a decline declines the inquiry; an
// agent's key may not answer its own question this way.
func TestMCPAnswerInClient(t *testing.T) {
	e := newEnv(t, testserver.MCPWaitBound(2*time.Second))
	ann := e.token("ann", "agent", "responder")
	var asked atomic.Value
	s := elicitingSession(t, e, ann, func(r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked.Store(r.Params.Message)
		if strings.Contains(r.Params.Message, "Decline me") {
			return &sdk.ElicitResult{Action: "decline"}, nil
		}
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approved": true, "comment": "from the client"}}, nil
	})
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "request_user_input", Arguments: map[string]any{
		"prompt": "Ship 2.6?", "request_type": "approval", "context": "all green", "answer_in_client": true}})
	must(t, err)
	got := structuredOf(t, res)
	if got["status"] != "responded" || got["responded_by"] != "ann" || got["answer"].(map[string]any)["comment"] != "from the client" {
		t.Fatalf("answered in the client: %v", got)
	}
	if msg, _ := asked.Load().(string); !strings.Contains(msg, "Ship 2.6?") || !strings.Contains(msg, "all green") {
		t.Fatalf("the client was asked %q", msg)
	}

	res, err = s.CallTool(ctx, &sdk.CallToolParams{Name: "request_user_input", Arguments: map[string]any{
		"prompt": "Decline me", "answer_in_client": true}})
	must(t, err)
	if got := structuredOf(t, res); got["status"] != "cancelled" || !strings.Contains(got["message"].(string), "declined") {
		t.Fatalf("declined in the client: %v", got)
	}

	bot := elicitingSession(t, e, e.token("bot", "agent"), func(*sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		t.Error("an agent's key was asked its own question")
		return &sdk.ElicitResult{Action: "cancel"}, nil
	})
	res, err = bot.CallTool(ctx, &sdk.CallToolParams{Name: "request_user_input", Arguments: map[string]any{"prompt": "Mine?", "answer_in_client": true}})
	if text := toolErrorText(t, res, err); !strings.Contains(text, "responder role") {
		t.Fatalf("an agent's key: %q", text)
	}
	// Assigned to another: asked, then withdrawn, with the reason.
	res, err = s.CallTool(ctx, &sdk.CallToolParams{Name: "request_user_input", Arguments: map[string]any{"prompt": "Theirs?", "assigned_to": []string{"zoe"}, "answer_in_client": true}})
	if text := toolErrorText(t, res, err); !strings.Contains(text, "assigned to zoe") || !strings.Contains(text, "withdrawn") {
		t.Fatalf("assigned to another: %q", text)
	}
}

// TestAnswerLinkForTheAskingKeyItself: the key that asked may make an answer link for itself
// (answer_in_client's URL mode) when it may answer the inquiry; no other key may without the
// relay role, and an agent's key may not answer its own question through one.
func TestAnswerLinkForTheAskingKeyItself(t *testing.T) {
	e := newEnv(t)
	ann, bot, pat := e.token("ann", "agent", "responder"), e.token("bot", "agent"), e.token("pat", "responder")
	ask := func(token, body string) string {
		r := e.do("POST", "/v1/inquiries", token, body, "Content-Type", "application/json")
		if r.status != 201 {
			t.Fatalf("ask: %d %s", r.status, r.text)
		}
		return fmt.Sprintf("/v1/inquiries/%v/links", r.body["id"])
	}
	mine := ask(ann, `{"prompt":"Mine?"}`)
	if r := e.do("POST", mine, ann, `{"for":"ann"}`, "Content-Type", "application/json"); r.status != 201 || !strings.Contains(r.text, "/a/v2.") {
		t.Fatalf("the asking key, for itself: %d %s", r.status, r.text)
	}
	if r := e.do("POST", mine, ann, `{"for":"pat"}`, "Content-Type", "application/json"); r.status != 403 {
		t.Fatalf("the asking key, for another: %d %s", r.status, r.text)
	}
	if r := e.do("POST", mine, pat, `{"for":"pat"}`, "Content-Type", "application/json"); r.status != 403 {
		t.Fatalf("a responder that did not ask, for itself: %d %s", r.status, r.text)
	}
	if r := e.do("POST", ask(ann, `{"prompt":"Kept apart?","exclude_requester":true}`), ann, `{"for":"ann"}`, "Content-Type", "application/json"); r.status != 403 || !strings.Contains(r.text, "separation of duties") {
		t.Fatalf("separation of duties: %d %s", r.status, r.text)
	}
	if r := e.do("POST", ask(bot, `{"prompt":"An agent's?"}`), bot, `{"for":"bot"}`, "Content-Type", "application/json"); r.status != 403 || !strings.Contains(r.text, "when it may answer") {
		t.Fatalf("an agent's key, for itself: %d %s", r.status, r.text)
	}
}

// TestMCPSessionStreamsEndAtShutdown: a session's open stream (GET /mcp) ends when the server
// shuts down, so that it does not hold the shutdown until its timeout.
func TestMCPSessionStreamsEndAtShutdown(t *testing.T) {
	e := newEnv(t)
	ann := e.token("ann", "agent")
	r := e.do("POST", "/mcp", ann, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		"Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	id := r.header.Get("Mcp-Session-Id")
	req, err := http.NewRequest("GET", e.URL+"/mcp", nil)
	must(t, err)
	req.Header.Set("Authorization", "Bearer "+ann)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /mcp: %d", resp.StatusCode)
	}
	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, resp.Body); ended <- err }()
	start := time.Now()
	e.stop()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the session's stream outlived the server")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the shutdown took %s: the stream held it", took)
	}
}
