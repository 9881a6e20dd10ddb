package client

import (
	"context"
	"net/url"

	"github.com/hitl-dev/hitl"
)

// ToolDefinitions returns request_user_input in the shapes LLM APIs take in their tool lists.
func (c *Client) ToolDefinitions(ctx context.Context) (*hitl.ToolDefinitions, error) {
	d := new(hitl.ToolDefinitions)
	return d, c.get(ctx, "/v1/tools/"+url.PathEscape(hitl.ToolRequestUserInput), d)
}

// HandleToolCall runs a model's call of request_user_input: it asks the human with the call's
// arguments, waits for the answer, and returns the tool result bound to the call (its
// ToolCallID is callID) — the answer as the tool's own result, which is how the model resumes.
// A deadline with no answer and a cancellation are results too, saying so; errors are for
// calls that cannot be made: another tool's name, invalid arguments (the server's message), a
// missing role, a server that stays unreachable. The call's id is the idempotency key, so a
// caller that retries a call after a crash gets the same inquiry, never a second one.
func (c *Client) HandleToolCall(ctx context.Context, name, callID string, arguments []byte) (hitl.ToolResult, error) {
	if name != hitl.ToolRequestUserInput {
		return hitl.ToolResult{}, hitl.UnknownTool(name)
	}
	if callID == "" {
		return hitl.ToolResult{}, hitl.Errorf(hitl.EInvalid, "a tool call needs its id")
	}
	args, err := hitl.ParseToolArguments(arguments)
	if err != nil {
		return hitl.ToolResult{}, err
	}
	req := args.InquiryRequest(&hitl.ToolCall{ID: callID, Name: name, Arguments: arguments})
	inq, err := c.askBounded(ctx, req, "tool-call:"+callID, nil)
	if err != nil {
		return hitl.ToolResult{}, err
	}
	if inq.ToolResult == nil {
		return hitl.ToolResult{}, hitl.Errorf(hitl.EInternal, "inquiry %d came back without its tool result", inq.ID)
	}
	return *inq.ToolResult, nil
}
