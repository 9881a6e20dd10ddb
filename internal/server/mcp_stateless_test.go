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
