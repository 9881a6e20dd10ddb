package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/buildinfo"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// bearer adds a token to every request of the MCP client.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// mcpSession connects the go-sdk's client to /mcp with a token; progress counts the
// progress notifications it receives.
func mcpSession(t *testing.T, e *env, token string, progress *atomic.Int64) (*sdk.ClientSession, error) {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "hitl-test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, _ *sdk.ProgressNotificationClientRequest) {
			if progress != nil {
				progress.Add(1)
			}
		}})
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: e.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer(token)}}, nil)
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

func toolNames(t *testing.T, s *sdk.ClientSession) []string {
	t.Helper()
	res, err := s.ListTools(ctx, nil)
	must(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// structuredOf decodes a tool result's structured content.
func structuredOf(t *testing.T, res *sdk.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", res.Content[0].(*sdk.TextContent).Text)
	}
	b, err := json.Marshal(res.StructuredContent)
	must(t, err)
	var m map[string]any
	must(t, json.Unmarshal(b, &m))
	return m
}

func toolErrorText(t *testing.T, res *sdk.CallToolResult, err error) string {
	t.Helper()
	must(t, err)
	if !res.IsError {
		t.Fatalf("want a tool error, got %+v", res.StructuredContent)
	}
	return res.Content[0].(*sdk.TextContent).Text
}

func TestMCPOverStreamableHTTP(t *testing.T) {
	e := newEnv(t, testserver.MCPWaitBound(time.Second))
	human := e.principal("ann", []string{"responder"})
	var progress atomic.Int64
	agent, err := mcpSession(t, e, e.token("bot", "agent"), &progress)
	must(t, err)
	if names := toolNames(t, agent); strings.Join(names, ",") != "approval_prompt,get_user_input,request_user_input" {
		t.Fatalf("an agent's tools: %v", names)
	}
	// The server tells its version: the binary's version and VCS revision ("(devel), revision
	// unknown" in a test binary), not a placeholder.
	if info := agent.InitializeResult().ServerInfo; info.Name != "hitl" || info.Version != buildinfo.Get().Short() || !strings.Contains(info.Version, "revision") {
		t.Fatalf("serverInfo %+v, want version %q", info, buildinfo.Get().Short())
	}
	tools, err := agent.ListTools(ctx, nil)
	must(t, err)
	for _, tool := range tools.Tools {
		// approval_prompt answers in text alone, as Claude Code reads it, so it has none.
		if (tool.OutputSchema == nil && tool.Name != "approval_prompt") || tool.InputSchema == nil {
			t.Fatalf("tool %s publishes no output or input schema", tool.Name)
		}
	}

	// Answered within the bound.
	go func() {
		inq := pendingByPrompt(t, human, "Ship 2.5?")
		human.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "")
	}()
	res, err := agent.CallTool(ctx, &sdk.CallToolParams{Name: "request_user_input",
		Arguments: map[string]any{"prompt": "Ship 2.5?", "request_type": "approval", "context": "all green"}})
	must(t, err)
	got := structuredOf(t, res)
	if got["status"] != "responded" || got["answer"].(map[string]any)["approved"] != true || got["responded_by"] != "ann" {
		t.Fatalf("answered: %v", got)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(text, `{"approved":true}`) {
		t.Fatalf("text content %q", text)
	}

	// Not answered within the bound: pending, with progress reported; get_user_input later.
	params := &sdk.CallToolParams{Name: "request_user_input", Arguments: map[string]any{"prompt": "Which venue?", "options": []string{"hall", "roof"}}}
	params.SetProgressToken("venue-1")
	res, err = agent.CallTool(ctx, params)
	must(t, err)
	pending := structuredOf(t, res)
	id := int64(pending["inquiry_id"].(float64))
	if pending["status"] != "pending" || !strings.Contains(pending["message"].(string), "get_user_input") {
		t.Fatalf("past the bound: %v", pending)
	}
	// The client may handle the notification after the result it preceded.
	eventually(t, "a progress notification", func() bool { return progress.Load() > 0 })
	_, err = human.Respond(ctx, id, json.RawMessage(`"roof"`), "")
	must(t, err)
	res, err = agent.CallTool(ctx, &sdk.CallToolParams{Name: "get_user_input", Arguments: map[string]any{"inquiry_id": id, "wait_seconds": 1}})
	must(t, err)
	if got := structuredOf(t, res); got["status"] != "responded" || got["answer"] != "roof" {
		t.Fatalf("get_user_input: %v", got)
	}

	// Bad calls come back as tool errors with the server's message.
	for _, c := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"request_user_input", map[string]any{"prompt": 5}, "prompt"},
		{"request_user_input", map[string]any{"prompt": "x", "response_schema": map[string]any{"type": "nonsense"}}, "/response_schema"},
		{"request_user_input", map[string]any{"prompt": "x", "urgency": "high"}, "urgency"},
		{"request_user_input", map[string]any{"Prompt": "x"}, `unknown field "Prompt"`},
		{"request_user_input", map[string]any{"prompt": "x", "Context": map[string]any{"a": 1}}, `unknown field "Context"`},
		{"get_user_input", map[string]any{"Inquiry_ID": id}, `unknown field "Inquiry_ID"`},
		{"get_user_input", map[string]any{"inquiry_id": 999999}, "not found"},
		{"get_user_input", map[string]any{"inquiry_id": id, "wait_seconds": 600}, "wait_seconds"},
	} {
		res, err := agent.CallTool(ctx, &sdk.CallToolParams{Name: c.name, Arguments: c.args})
		if text := toolErrorText(t, res, err); !strings.Contains(text, c.want) {
			t.Errorf("%s %v: %q, want it to mention %q", c.name, c.args, text, c.want)
		}
	}

	// Every problem once: the message names the first, the lines after it the others.
	res, err = agent.CallTool(ctx, &sdk.CallToolParams{Name: "request_user_input", Arguments: map[string]any{"prompt": " ", "timeout_seconds": -1}})
	if text := toolErrorText(t, res, err); strings.Count(text, "must not be blank") != 1 || strings.Count(text, "must be between 1 and") != 1 || strings.Contains(text, "more)") {
		t.Errorf("two problems: %q, want each named once", text)
	}

	if _, err := mcpSession(t, e, "not-a-token", nil); err == nil {
		t.Fatal("connected with a bad token")
	}
}

func TestMCPResponder(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Which date?", Options: []hitl.Option{{Value: "fri"}, {Value: "sat"}}})
	responder, err := mcpSession(t, e, e.token("ann", "responder"), nil)
	must(t, err)
	if names := toolNames(t, responder); !slices.Contains(names, "list_pending_inquiries") || !slices.Contains(names, "respond_to_inquiry") {
		t.Fatalf("a responder's tools: %v", names)
	}
	res, err := responder.CallTool(ctx, &sdk.CallToolParams{Name: "request_user_input", Arguments: map[string]any{"prompt": "May a responder ask?"}})
	if text := toolErrorText(t, res, err); !strings.Contains(text, "agent role") {
		t.Fatalf("a responder asking: %q", text)
	}
	res, err = responder.CallTool(ctx, &sdk.CallToolParams{Name: "list_pending_inquiries", Arguments: map[string]any{}})
	must(t, err)
	list := structuredOf(t, res)["inquiries"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["prompt"] != "Which date?" {
		t.Fatalf("pending: %v", list)
	}
	res, err = responder.CallTool(ctx, &sdk.CallToolParams{Name: "respond_to_inquiry", Arguments: map[string]any{"inquiry_id": inq.ID, "response": "sun"}})
	if text := toolErrorText(t, res, err); !strings.Contains(text, "does not fit") {
		t.Fatalf("an answer outside the options: %q", text)
	}
	res, err = responder.CallTool(ctx, &sdk.CallToolParams{Name: "respond_to_inquiry", Arguments: map[string]any{"inquiry_id": inq.ID, "response": "sat", "comment": "by MCP"}})
	must(t, err)
	if got := structuredOf(t, res); got["status"] != "responded" {
		t.Fatalf("respond_to_inquiry: %v", got)
	}
	final, err := agent.Inquiry(ctx, inq.ID)
	must(t, err)
	if string(final.Response) != `"sat"` || *final.RespondedBy != "ann" {
		t.Fatalf("the inquiry after the MCP answer: %+v", final)
	}
	res, err = responder.CallTool(ctx, &sdk.CallToolParams{Name: "respond_to_inquiry", Arguments: map[string]any{"inquiry_id": inq.ID, "response": "fri"}})
	if text := toolErrorText(t, res, err); !strings.Contains(text, "already") {
		t.Fatalf("a second answer: %q", text)
	}
}

// permissionOf calls approval_prompt and decodes its text, as Claude Code reads it.
func permissionOf(t *testing.T, s *sdk.ClientSession, args map[string]any) map[string]any {
	t.Helper()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "approval_prompt", Arguments: args})
	must(t, err)
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("approval_prompt %v: %+v", args, res.Content)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &p); err != nil {
		t.Fatalf("the result text is not the JSON Claude Code reads: %v", err)
	}
	return p
}

// decideWhenAsked answers the pending inquiry with prompt as human, once it is asked.
func decideWhenAsked(t *testing.T, human *client.Client, prompt, answer string) <-chan *hitl.Inquiry {
	t.Helper()
	done := make(chan *hitl.Inquiry, 1)
	go func() {
		defer close(done)
		var found *hitl.Inquiry
		if !testserver.WaitFor(10*time.Second, func() bool {
			p, err := human.Inquiries(ctx, client.ListOptions{Status: "pending"})
			for _, inq := range p.Data {
				if err == nil && inq.Prompt == prompt {
					found = inq
				}
			}
			return found != nil
		}) {
			t.Errorf("nobody asked %q", prompt)
			return
		}
		if _, err := human.Respond(ctx, found.ID, json.RawMessage(answer), ""); err != nil {
			t.Errorf("answering %q: %v", prompt, err)
		}
		done <- found
	}()
	return done
}

// TestMCPApprovalPrompt: Claude Code's permission prompt tool, a person deciding each tool use.
func TestMCPApprovalPrompt(t *testing.T) {
	e := newEnv(t, testserver.MCPWaitBound(time.Second))
	human := e.principal("ann", []string{"responder"})
	agent, err := mcpSession(t, e, e.token("claude", "agent"), nil)
	must(t, err)

	// Approve: allowed with the input as proposed; the inquiry is the tool call, with decisions.
	asked := decideWhenAsked(t, human, "Allow Write?", `{"decision":"approve"}`)
	input := map[string]any{"file_path": "/tmp/notes.txt", "content": "hello"}
	got := permissionOf(t, agent, map[string]any{"tool_name": "Write", "input": input, "tool_use_id": "toolu_write"})
	inq := <-asked
	if got["behavior"] != "allow" || !reflect.DeepEqual(got["updatedInput"], input) || len(got) != 2 {
		t.Fatalf("approved: %v", got)
	}
	if inq.ToolCall == nil || inq.ToolCall.ID != "toolu_write" || inq.ToolCall.Name != "Write" || inq.RequestType != hitl.RequestApproval ||
		fmt.Sprint(inq.AllowedDecisions) != "[approve edit reject]" {
		t.Fatalf("the inquiry: %+v", inq)
	}

	// Edit: allowed with the person's input.
	asked = decideWhenAsked(t, human, "Allow Bash?", `{"decision":"edit","args":{"command":"ls -l"}}`)
	got = permissionOf(t, agent, map[string]any{"tool_name": "Bash", "input": map[string]any{"command": "rm -rf /"}, "tool_use_id": "toolu_bash"})
	<-asked
	if got["behavior"] != "allow" || !reflect.DeepEqual(got["updatedInput"], map[string]any{"command": "ls -l"}) {
		t.Fatalf("edited: %v", got)
	}

	// Reject: denied with hitl's sentence, which says the tool did not run and gives the reason.
	asked = decideWhenAsked(t, human, "Allow Edit?", `{"decision":"reject","message":"not on a Friday"}`)
	got = permissionOf(t, agent, map[string]any{"tool_name": "Edit", "input": map[string]any{"file_path": "a.go"}, "tool_use_id": "toolu_edit"})
	<-asked
	if got["behavior"] != "deny" || got["message"] != "The human rejected your call of Edit. Do not run Edit. Their reason: not on a Friday" || len(got) != 2 {
		t.Fatalf("rejected: %v", got)
	}

	// Nobody decides within the bound: denied, saying so; asked again with the same tool_use_id
	// (a resume), the same inquiry, now decided.
	args := map[string]any{"tool_name": "WebFetch", "input": map[string]any{"url": "https://example.com"}, "tool_use_id": "toolu_fetch"}
	got = permissionOf(t, agent, args)
	if got["behavior"] != "deny" || !strings.Contains(got["message"].(string), "still waiting for a person") {
		t.Fatalf("past the bound: %v", got)
	}
	asked = decideWhenAsked(t, human, "Allow WebFetch?", `{"decision":"approve"}`)
	first := <-asked
	got = permissionOf(t, agent, args)
	if got["behavior"] != "allow" {
		t.Fatalf("asked again after the decision: %v", got)
	}
	if !strings.Contains(fmt.Sprint(got), "example.com") {
		t.Fatalf("resumed: %v", got)
	}
	list, err := human.Inquiries(ctx, client.ListOptions{})
	must(t, err)
	for _, other := range list.Data {
		if other.Prompt == "Allow WebFetch?" && other.ID != first.ID {
			t.Fatalf("asked twice about one tool use: inquiries %d and %d", first.ID, other.ID)
		}
	}

	// Cancelled in hitl: denied with the reason.
	go func() {
		inq := pendingByPrompt(t, human, "Allow Task?")
		if _, err := e.Admin.Cancel(ctx, inq.ID, "the session ended"); err != nil {
			t.Error(err)
		}
	}()
	params := &sdk.CallToolParams{Name: "approval_prompt", Arguments: map[string]any{"tool_name": "Task", "input": map[string]any{}, "tool_use_id": "toolu_task"}}
	res, err := agent.CallTool(ctx, params)
	must(t, err)
	var denied map[string]any
	must(t, json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &denied))
	if denied["behavior"] != "deny" || !strings.Contains(denied["message"].(string), "the session ended") {
		t.Fatalf("cancelled: %v", denied)
	}

	// Without a tool_use_id, and with a member a later Claude Code might add: asked (a new
	// question each time), the member ignored.
	asked = decideWhenAsked(t, human, "Allow Glob?", `{"decision":"approve"}`)
	got = permissionOf(t, agent, map[string]any{"tool_name": "Glob", "input": map[string]any{"pattern": "*.go"}, "permission_suggestions": []any{}})
	inq = <-asked
	if got["behavior"] != "allow" || inq.ToolCall == nil || !strings.HasPrefix(inq.ToolCall.ID, "mcp-") {
		t.Fatalf("without a tool_use_id: %v, the inquiry's tool call %+v", got, inq.ToolCall)
	}

	// Bad input: a tool error that says what is wrong.
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"input": map[string]any{}}, "tool_name is required"},
		{map[string]any{"tool_name": "", "input": map[string]any{}}, "tool_name is required"},
		{map[string]any{"tool_name": "Bash"}, "input must be a JSON object"},
		{map[string]any{"tool_name": "Bash", "input": "ls"}, "input must be a JSON object"},
		{map[string]any{"tool_name": "Bash", "input": []any{1}}, "input must be a JSON object"},
		{map[string]any{"tool_name": "Bash", "input": nil}, "input must be a JSON object"},
		{map[string]any{"tool_name": 7, "input": map[string]any{}}, "tool_name"},
		{map[string]any{"tool_name": "Bash", "input": map[string]any{}, "tool_use_id": 12}, "tool_use_id"},
	} {
		res, err := agent.CallTool(ctx, &sdk.CallToolParams{Name: "approval_prompt", Arguments: c.args})
		if text := toolErrorText(t, res, err); !strings.Contains(text, c.want) {
			t.Errorf("approval_prompt %v: %q, want it to mention %q", c.args, text, c.want)
		}
	}
}
