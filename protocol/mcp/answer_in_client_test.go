package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/protocol/mcp"
)

// plainSession connects the go-sdk's client, which declares no elicitation, to hitl's MCP
// server as the key of roles.
func plainSession(t *testing.T, srv *testserver.Server, name string, roles ...string) *sdk.ClientSession {
	t.Helper()
	return session(t, srv, nil, name, roles...)
}

// session is plainSession, with opts for the client.
func session(t *testing.T, srv *testserver.Server, opts *sdk.ClientOptions, name string, roles ...string) *sdk.ClientSession {
	t.Helper()
	_, token := srv.Key(hitl.KeyRequest{Name: name, Roles: roles})
	b := agent{srv: srv, token: token}.backend(t)
	clientSide, serverSide := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(b, mcp.Options{WaitBound: time.Second, Responder: len(roles) > 1}).Connect(ctx, mcp.WithTasks(serverSide, b), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "go", Version: "1"}, opts).Connect(ctx, clientSide, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callText calls a tool and returns its text, and whether it is a tool error.
func callText(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: a protocol error %v, want a tool result", name, err)
	}
	return res.Content[0].(*sdk.TextContent).Text, res.IsError
}

// TestAnswerInClientNotAskedSaysWhy: answer_in_client that cannot ask the client (one that
// declared no elicitation, or a task) says so in the result; an agent's key without the
// responder role is refused it always, as a call and as a task.
func TestAnswerInClientNotAskedSaysWhy(t *testing.T) {
	srv := testserver.Start(t)
	pat := plainSession(t, srv, "pat", "agent", "responder")
	text, isErr := callText(t, pat, "request_user_input", map[string]any{"prompt": "Here?", "answer_in_client": true})
	if isErr || !strings.Contains(text, `"status":"pending"`) || !strings.Contains(text, "answer_in_client: it was not asked in this client, which declared no elicitation capability") {
		t.Fatalf("answer_in_client in a client without elicitation: %q", text)
	}
	bot := plainSession(t, srv, "bot", "agent")
	if text, isErr := callText(t, bot, "request_user_input", map[string]any{"prompt": "Mine?", "answer_in_client": true}); !isErr || !strings.Contains(text, "responder role") {
		t.Fatalf("an agent's key, in a client without elicitation: %q", text)
	}

	patTasks, _ := agent{srv: srv, token: func() string {
		_, tok := srv.Key(hitl.KeyRequest{Name: "pat2", Roles: []string{"agent", "responder"}})
		return tok
	}()}.connect(t)
	var created struct {
		Task task           `json:"task"`
		Meta map[string]any `json:"_meta"`
	}
	patTasks.ok("tools/call", map[string]any{"name": "request_user_input", "arguments": map[string]any{"prompt": "As a task?", "answer_in_client": true}, "task": map[string]any{}}, &created)
	const taskNote = "a task is not asked in the client"
	if said, _ := created.Meta["io.modelcontextprotocol/model-immediate-response"].(string); !strings.Contains(said, taskNote) {
		t.Fatalf("the task's immediate response: %q", said)
	}
	var cancelled task
	patTasks.ok("tasks/cancel", map[string]any{"taskId": created.Task.TaskID}, &cancelled)
	if r := patTasks.result(created.Task.TaskID); !strings.Contains(r.Structured.Message, taskNote) || !strings.Contains(cancelled.StatusMessage, taskNote) {
		t.Fatalf("the task's result %q and status %q", r.Structured.Message, cancelled.StatusMessage)
	}
	botTasks, _ := newAgent(t, srv, "bot2").connect(t)
	botTasks.fails("tools/call", map[string]any{"name": "request_user_input", "arguments": map[string]any{"prompt": "Mine?", "answer_in_client": true}, "task": map[string]any{}},
		jsonrpc.CodeInvalidRequest, "responder role")
}

// TestResponderToolsRefusedAsToolErrors: an agent's key is not offered the responder's
// tools, and calling one anyway is a tool error that names the role, not an unknown tool.
func TestResponderToolsRefusedAsToolErrors(t *testing.T) {
	srv := testserver.Start(t)
	bot := plainSession(t, srv, "bot", "agent")
	for _, name := range []string{"respond_to_inquiry", "list_pending_inquiries"} {
		if text, isErr := callText(t, bot, name, map[string]any{"inquiry_id": 1, "response": "x"}); !isErr || !strings.Contains(text, name+" needs the responder role") {
			t.Fatalf("%s by an agent's key: %q", name, text)
		}
	}
	if tools, err := bot.ListTools(ctx, nil); err != nil || len(tools.Tools) != 3 {
		t.Fatalf("an agent's tools: %v %v", tools, err)
	}
}

// TestTaskParamsSayWhatIsWrongInWords: a task field that is no object is refused in words,
// without the Go decoder's account of its own types.
func TestTaskParamsSayWhatIsWrongInWords(t *testing.T) {
	srv := testserver.Start(t)
	c, _ := newAgent(t, srv, "bot").connect(t)
	for _, bad := range []string{`"yes"`, `[]`, `{"ttl":"soon"}`} {
		resp := c.call("tools/call", json.RawMessage(`{"name":"request_user_input","arguments":{"prompt":"x"},"task":`+bad+`}`))
		we, _ := resp.Error.(*jsonrpc.Error)
		if we == nil || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "params.task") || strings.Contains(we.Message, "Go") || strings.Contains(we.Message, "unmarshal") {
			t.Fatalf("task %s: %v", bad, resp.Error)
		}
	}
}

// TestAnswerInClientOutsideTheOptions: a form's answer that is none of the choices is
// refused in hitl's words, naming the choices, not the schema validator's.
func TestAnswerInClientOutsideTheOptions(t *testing.T) {
	srv := testserver.Start(t)
	pat := session(t, srv, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "green"}}, nil
	}}, "pat", "agent", "responder")
	text, isErr := callText(t, pat, "request_user_input", map[string]any{"prompt": "Which?", "options": []string{"red", "blue"}, "answer_in_client": true})
	if isErr || !strings.Contains(text, `the answer given in this client was refused: the answer must be one of \"red\", \"blue\"`) || strings.Contains(text, "oneOf") {
		t.Fatalf("an answer outside the options: %q", text)
	}
}
