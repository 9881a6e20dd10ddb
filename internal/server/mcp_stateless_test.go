package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl/internal/testserver"
)

// TestMCPAnswerInClientStatelessSaysWhy: the go-sdk's client speaks the 2026 draft by default,
// statelessly, in which the server cannot ask the client during a call: answer_in_client then
// says in the result that it was not asked there, and why.
func TestMCPAnswerInClientStatelessSaysWhy(t *testing.T) {
	e := newEnv(t, testserver.MCPWaitBound(time.Second))
	c := sdk.NewClient(&sdk.Implementation{Name: "hitl-test", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			t.Error("a stateless call asked the client")
			return &sdk.ElicitResult{Action: "cancel"}, nil
		}})
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: e.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer(e.token("ann", "agent", "responder"))}}, nil)
	must(t, err)
	defer s.Close()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "request_user_input", Arguments: map[string]any{"prompt": "Here?", "answer_in_client": true}})
	must(t, err)
	if text := res.Content[0].(*sdk.TextContent).Text; res.IsError || !strings.Contains(text, "answer_in_client: it was not asked in this client: on protocol version 2026-07-28 a server may not ask the client during a call") {
		t.Fatalf("answer_in_client, stateless: %q", text)
	}
}

// TestMCPAnswerInClientWithoutSessionSaysWhy: a tools/call POSTed without a session is served
// statelessly: answer_in_client says that it was not asked in the client, and why.
func TestMCPAnswerInClientWithoutSessionSaysWhy(t *testing.T) {
	e := newEnv(t, testserver.MCPWaitBound(time.Second))
	r := e.do("POST", "/mcp", e.token("ann", "agent", "responder"),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"request_user_input","arguments":{"prompt":"Here?","answer_in_client":true}}}`,
		"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", "2025-11-25")
	if !strings.Contains(r.text, "answer_in_client: it was not asked in this client: the call came without a session") {
		t.Fatalf("answer_in_client without a session: %d %s", r.status, r.text)
	}
}
