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
	return c.askToolResult(ctx, req, "tool-call:"+callID)
}

// ReviewToolCall asks a person to decide about a call of one of the model's own tools before
// it runs: req is the approval (a prompt, who decides, a deadline, ...) of req.ToolCall, which
// gives the call's id, name and arguments, and, to let the person edit the arguments, the
// tool's parameters schema with DecisionEdit among req.AllowedDecisions (the default is
// approve or reject). The result is bound to the call: ToolResult.Run says whether to run the
// tool, with ToolResult.Arguments (the proposed ones or the person's edit); when it is false,
// Content (for the model) and Message say why not, or what the person answered instead. A
// deadline or a cancellation is a result with Run false. The call's id is the idempotency
// key, as for HandleToolCall.
func (c *Client) ReviewToolCall(ctx context.Context, req hitl.InquiryRequest) (hitl.ToolResult, error) {
	if req.ToolCall == nil || req.ToolCall.ID == "" {
		return hitl.ToolResult{}, hitl.Errorf(hitl.EInvalid, "a tool call to review needs the call, with its id")
	}
	if req.RequestType == "" {
		req.RequestType = hitl.RequestApproval
	}
	if req.AllowedDecisions == nil && len(req.ToolCall.ParametersSchema) == 0 {
		req.AllowedDecisions = hitl.DefaultDecisions // answered with a decision, not {"approved"}
	}
	return c.askToolResult(ctx, &req, "tool-review:"+req.ToolCall.ID)
}

// askToolResult asks, waits for the final state, and returns the tool result the server made.
func (c *Client) askToolResult(ctx context.Context, req *hitl.InquiryRequest, idempotencyKey string) (hitl.ToolResult, error) {
	inq, err := c.askBounded(ctx, req, idempotencyKey, nil)
	if err != nil {
		return hitl.ToolResult{}, err
	}
	if inq.ToolResult == nil {
		return hitl.ToolResult{}, hitl.Errorf(hitl.EInternal, "inquiry %d came back without its tool result", inq.ID)
	}
	return *inq.ToolResult, nil
}
