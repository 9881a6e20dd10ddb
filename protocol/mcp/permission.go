package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
)

// ToolApprovalPrompt is the permission-prompt tool of Claude Code and the Claude Agent SDK:
// `claude --permission-prompt-tool mcp__hitl__approval_prompt` asks it whether a tool may run,
// and a person in hitl decides.
const ToolApprovalPrompt = "approval_prompt"

var approvalInputSchema = json.RawMessage(`{"type":"object","required":["tool_name","input"],"properties":{
		"tool_name":{"type":"string","minLength":1,"description":"The tool Claude wants to use."},
		"input":{"type":"object","description":"The input Claude wants to use it with."},
		"tool_use_id":{"type":"string","description":"The tool use's id: asked about again, the same tool use finds the same question."}}}`)

// anyObject is the schema an edited input is checked against: Claude Code does not send the
// tool's own.
var anyObject = json.RawMessage(`{"type":"object"}`)

// permission is approval_prompt's result, in the shape Claude Code reads from its text.
type permission struct {
	Behavior     string          `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	Message      string          `json:"message,omitempty"`
}

func addApprovalPrompt(s *sdk.Server, t *tools) {
	s.AddTool(&sdk.Tool{Name: ToolApprovalPrompt, Description: fmt.Sprintf(
		"Claude Code's permission prompt (--permission-prompt-tool mcp__hitl__%s): a person decides whether the tool may run "+
			"(approve, edit its input, or reject). It waits up to %s; a tool use nobody has decided on by then is denied, "+
			"and asking again with the same tool_use_id keeps waiting for the same decision.",
		ToolApprovalPrompt, t.bound.Round(time.Second)),
		InputSchema: approvalInputSchema}, t.approvalPrompt)
}

func (t *tools) approvalPrompt(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args struct {
		ToolName  *string         `json:"tool_name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID *string         `json:"tool_use_id"`
	}
	if err := decodeArgs(knownMembers(req.Params.Arguments, "tool_name", "input", "tool_use_id"), &args); err != nil {
		return toolError(err)
	}
	if args.ToolName == nil || *args.ToolName == "" {
		return toolError(hitl.Errorf(hitl.EInvalid, "tool_name is required: the name of the tool that asks to run"))
	}
	if input := bytes.TrimSpace(args.Input); len(input) == 0 || input[0] != '{' {
		return toolError(hitl.Errorf(hitl.EInvalid, "input must be a JSON object: the input the tool would run with"))
	}
	id := ""
	if args.ToolUseID != nil {
		id = *args.ToolUseID
	}
	// The tool use's id makes a second call about it (a resume, a retry) find the same
	// inquiry, and shares the key of the clients' reviewToolCall; without one, each call asks.
	key := "tool-review:" + id
	if id == "" {
		id = "mcp-" + rand.Text() // the question's tool call needs an id of its own
		key = id
	}
	inq, err := t.b.CreateInquiry(ctx, &hitl.InquiryRequest{
		Prompt:           fmt.Sprintf("Allow %s?", *args.ToolName),
		RequestType:      hitl.RequestApproval,
		ToolCall:         &hitl.ToolCall{ID: id, Name: *args.ToolName, Arguments: args.Input, ParametersSchema: anyObject},
		AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionEdit, hitl.DecisionReject},
	}, key)
	if err != nil {
		return toolError(err)
	}
	if inq, err = t.wait(ctx, req, inq, t.bound); err != nil {
		return toolError(err)
	}
	p := permissionOf(inq)
	body, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	// Claude Code reads the decision from one text block holding the JSON alone, and takes a
	// result with structured content for something else: so no structured content, and no
	// output schema, which would call for it.
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(body)}}}, nil
}

// permissionOf is the permission an inquiry grants: allow with the input to run with, or deny
// with why: hitl's sentence (that the person rejected the call, and their reason; that nobody
// decided by the deadline; that it was cancelled), or that nobody has decided yet.
func permissionOf(inq *hitl.Inquiry) permission {
	tr := inq.ToolResult
	switch {
	case inq.Status == hitl.StatusPending:
		return permission{Behavior: "deny", Message: fmt.Sprintf(
			"Nobody has decided yet whether this tool may run (hitl inquiry %d is still waiting for a person), so it did not run.", inq.ID)}
	case tr == nil:
		return permission{Behavior: "deny", Message: resultOf(inq).Message}
	case tr.Run != nil && *tr.Run:
		return permission{Behavior: "allow", UpdatedInput: tr.Arguments}
	default:
		return permission{Behavior: "deny", Message: tr.Content}
	}
}

// knownMembers keeps the members of a JSON object that are named, dropping the rest: Claude
// Code is the caller, and a member a later version adds must not turn every permission prompt
// into an error. Anything but an object is kept as it is, for decodeArgs to refuse.
func knownMembers(raw json.RawMessage, names ...string) json.RawMessage {
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil || members == nil {
		return raw
	}
	for name := range members {
		if !slices.Contains(names, name) {
			delete(members, name)
		}
	}
	b, err := json.Marshal(members)
	if err != nil {
		return raw
	}
	return b
}
