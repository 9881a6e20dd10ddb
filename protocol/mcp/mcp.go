// Package mcp is hitl's Model Context Protocol server: the tools through which an agent asks a
// human (request_user_input, get_user_input) and, with a responder's token, answers
// (list_pending_inquiries, respond_to_inquiry); and approval_prompt, Claude Code's permission
// prompt, through which a person decides whether a tool may run. It runs over stdio (`hitl
// mcp`, talking to a hitl server through the Go client) and over streamable HTTP at /mcp on
// `hitl serve` (on the engine, as the request's principal, in sessions bound to the key: http.go).
// With answer_in_client, request_user_input also asks the person at the client through MCP
// elicitation (elicit.go).
package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/buildinfo"
	"github.com/hitl-dev/hitl/internal/strictjson"
)

// Backend is what the tools need of hitl, as one principal. Each server provides its own where
// it runs: `hitl serve` on the engine (http.go), `hitl mcp` through the Go client (cmd/hitl).
// Errors the caller should read are *hitl.Error: their message and fields become the tool's.
type Backend interface {
	CreateInquiry(ctx context.Context, req *hitl.InquiryRequest, idempotencyKey string) (*hitl.Inquiry, error)
	// Wait returns the inquiry when it is final or timeout passed.
	Wait(ctx context.Context, id int64, timeout time.Duration) (*hitl.Inquiry, error)
	// Pending lists pending inquiries the principal may see, newest first.
	Pending(ctx context.Context, limit int) ([]*hitl.Inquiry, error)
	Respond(ctx context.Context, id int64, response json.RawMessage, comment string) (*hitl.Inquiry, error)
	// Cancel cancels a pending inquiry the principal asked (a task's, on tasks/cancel).
	Cancel(ctx context.Context, id int64, reason string) (*hitl.Inquiry, error)
	// Name is the principal's name: the created_by of the inquiries it asks.
	Name() string
	// Asked lists the inquiries the principal asked whose metadata holds every pair of match,
	// newest first, a page at a time; next is the cursor of the next page, "" after the last.
	Asked(ctx context.Context, match map[string]string, page hitl.Page) (inqs []*hitl.Inquiry, next string, err error)
	// Decline is the person's refusal to answer (a decline in the client, answer_in_client).
	Decline(ctx context.Context, id int64, reason string) (*hitl.Inquiry, error)
	// MayAnswerInClient is engine.MayAnswerInClient for the principal: nil inq before asking.
	MayAnswerInClient(inq *hitl.Inquiry) error
	// AnswerLink is the URL of an answer link through which the principal itself answers its
	// own inquiry (answer_in_client, in URL mode).
	AnswerLink(ctx context.Context, id int64) (string, error)
}

// DefaultWaitBound is how long request_user_input waits before it returns "still pending":
// below the 60 s after which many MCP clients give up on a tool call.
const DefaultWaitBound = 45 * time.Second

// progressEvery is how often a waiting tool call reports progress, when the client asked for it.
const progressEvery = 5 * time.Second

// Options configure a server.
type Options struct {
	// WaitBound is the longest a tool call waits for the human (default DefaultWaitBound).
	WaitBound time.Duration
	// Responder adds list_pending_inquiries and respond_to_inquiry, for principals that answer.
	Responder bool
	// Version is reported to clients (default: this binary's version and VCS revision).
	Version string
	// noticesCancels tells that the session's transport is wrapped by noticeCancels (the
	// sessions at /mcp), so a call may wait for its elicitation's cancel notice to go out.
	noticesCancels bool
}

// NewServer returns an MCP server whose tools act through b.
func NewServer(b Backend, o Options) *sdk.Server {
	if o.WaitBound <= 0 {
		o.WaitBound = DefaultWaitBound
	}
	if o.Version == "" {
		o.Version = buildinfo.Get().Short()
	}
	t := &tools{b: b, bound: o.WaitBound, noticesCancels: o.noticesCancels}
	s := sdk.NewServer(&sdk.Implementation{Name: "hitl", Title: "hitl: ask a human", Version: o.Version}, &sdk.ServerOptions{
		Instructions: "Use request_user_input when you need a human's decision, choice or missing fact before going on. " +
			"If it returns status pending, call get_user_input with the inquiry_id until the answer comes.",
	})
	s.AddTool(&sdk.Tool{Name: hitl.ToolRequestUserInput, Description: hitl.ToolDescription + fmt.Sprintf(
		" It waits up to %s; if the human has not answered by then it returns status pending with an inquiry_id: call get_user_input with it.",
		o.WaitBound.Round(time.Second)),
		InputSchema: hitl.ToolInputSchema, OutputSchema: resultSchema}, t.requestUserInput)
	s.AddTool(&sdk.Tool{Name: "get_user_input", Description: fmt.Sprintf(
		"Get the human's answer to a question asked with request_user_input, waiting up to wait_seconds (at most %d) for it.",
		int(o.WaitBound.Seconds())), InputSchema: getInputSchema(o.WaitBound), OutputSchema: resultSchema}, t.getUserInput)
	addApprovalPrompt(s, t)
	if !o.Responder {
		// The responder's tools are not listed to a key that may not answer; called anyway,
		// each is a tool error that says why, as every refusal of a role is.
		s.AddReceivingMiddleware(refuseResponderTools(b))
	} else {
		s.AddTool(&sdk.Tool{Name: "list_pending_inquiries", Description: "List the questions waiting for an answer that you may answer, newest first.",
			InputSchema: listSchema, OutputSchema: listOutputSchema}, t.listPending)
		s.AddTool(&sdk.Tool{Name: "respond_to_inquiry", Description: "Answer a pending question. The answer must fit its response_schema; the first answer wins.",
			InputSchema: respondSchema, OutputSchema: json.RawMessage(`{"type":"object"}`)}, t.respond)
	}
	return s
}

// responderTools are the tools of a key that answers.
var responderTools = []string{"list_pending_inquiries", "respond_to_inquiry"}

// refuseResponderTools answers a call of a responder's tool, on a server without them, with a
// tool error that names the role, rather than the protocol's unknown tool.
func refuseResponderTools(b Backend) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if call, ok := req.(*sdk.CallToolRequest); ok && method == "tools/call" && call.Params != nil && slices.Contains(responderTools, call.Params.Name) {
				return toolError(hitl.Errorf(hitl.EForbidden, "%s needs the responder role, and the key %s has not got it: "+
					"a key made with hitl keys create NAME --role agent --role responder may ask and answer", call.Params.Name, b.Name()))
			}
			return next(ctx, method, req)
		}
	}
}

var (
	resultSchema = json.RawMessage(`{"type":"object","required":["inquiry_id","status","message"],"properties":{
		"inquiry_id":{"type":"integer"},
		"status":{"type":"string","enum":["pending","responded","timeout","cancelled"]},
		"answer":{"description":"The human's answer, or the fallback value when the deadline passed under a fallback policy."},
		"chosen":{"description":"For a selection whose choices were a list in the context: the entry of the list the answer names (the object for its name)."},
		"fallback_applied":{"type":"boolean"},
		"responded_by":{"type":"string"},
		"comment":{"type":"string"},
		"message":{"type":"string"},
		"tool_result":{"type":"object","description":"For an approval of a tool call with decisions: run (whether to run the tool), arguments (to run it with), decision, message.",
			"required":["tool_call_id","content"],"properties":{"tool_call_id":{"type":"string"},"content":{"type":"string"},
			"decision":{"type":"string","enum":["approve","edit","reject","respond"]},"run":{"type":"boolean"},"arguments":{},"message":{"type":"string"}}}}}`)
	listSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{
		"limit":{"type":"integer","minimum":1,"maximum":100}}}`)
	listOutputSchema = json.RawMessage(`{"type":"object","required":["inquiries"],"properties":{"inquiries":{"type":"array","items":{"type":"object"}}}}`)
	respondSchema    = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["inquiry_id","response"],"properties":{
		"inquiry_id":{"type":"integer","minimum":1},
		"response":{"description":"The answer, as JSON that fits the inquiry's response_schema."},
		"comment":{"type":"string"}}}`)
)

// getInputSchema is get_user_input's arguments; wait_seconds goes up to the bound.
func getInputSchema(bound time.Duration) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","additionalProperties":false,"required":["inquiry_id"],"properties":{
		"inquiry_id":{"type":"integer","minimum":1},
		"wait_seconds":{"type":"integer","minimum":0,"maximum":%d}}}`, int(bound.Seconds())))
}

type tools struct {
	b              Backend
	bound          time.Duration
	noticesCancels bool
}

// result is the structured result of request_user_input and get_user_input.
type result struct {
	InquiryID       int64           `json:"inquiry_id"`
	Status          hitl.Status     `json:"status"`
	Answer          json.RawMessage `json:"answer,omitempty"`
	Chosen          json.RawMessage `json:"chosen,omitempty"`
	FallbackApplied bool            `json:"fallback_applied,omitempty"`
	RespondedBy     string          `json:"responded_by,omitempty"`
	Comment         string          `json:"comment,omitempty"`
	Message         string          `json:"message"`
	// ToolResult is set for an approval of a tool call with decisions: whether to run the
	// tool, with which arguments (Message says the same in words).
	ToolResult *hitl.ToolResult `json:"tool_result,omitempty"`
}

func resultOf(inq *hitl.Inquiry) result {
	r := result{InquiryID: inq.ID, Status: inq.Status, Chosen: inq.Chosen, FallbackApplied: inq.FallbackApplied}
	if inq.RespondedBy != nil {
		r.RespondedBy = *inq.RespondedBy
	}
	if inq.Comment != nil {
		r.Comment = *inq.Comment
	}
	switch {
	case inq.Status != hitl.StatusPending && inq.HasDecisions() && inq.ToolResult != nil:
		r.Answer, r.ToolResult, r.Message = inq.Response, inq.ToolResult, inq.ToolResult.Content
	case inq.Status == hitl.StatusPending:
		r.Message = fmt.Sprintf("The human has not answered inquiry %d yet. Call get_user_input with inquiry_id %d to keep waiting.", inq.ID, inq.ID)
	case inq.Status == hitl.StatusResponded:
		r.Answer = inq.Response
		r.Message = fmt.Sprintf("The human answered: %s", inq.Response)
	case inq.Status == hitl.StatusTimeout && inq.FallbackApplied:
		r.Answer = inq.Response
		r.Message = fmt.Sprintf("The human did not answer before the deadline; the fallback answer applies: %s", inq.Response)
	case inq.Status == hitl.StatusTimeout:
		r.Message = "The human did not answer before the deadline; there is no answer. Do not go ahead as if they had agreed."
	case inq.CancelReason != nil:
		r.Message = "The question was cancelled before the human answered: " + *inq.CancelReason
	default:
		r.Message = "The question was cancelled before the human answered."
	}
	return r
}

// structured returns v as the tool's structured content, and as JSON text for clients that
// read only text, after a line a model reads first.
func structured(line string, v any) (*sdk.CallToolResult, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: line + "\n" + string(body)}}, StructuredContent: json.RawMessage(body)}, nil
}

// toolError is how the tools report what went wrong: a tool result the model can read, with
// the server's message and every field that failed.
func toolError(err error) (*sdk.CallToolResult, error) {
	msg := err.Error()
	var he *hitl.Error
	if errors.As(err, &he) {
		msg = he.Detailed("\n")
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}, nil
}

// decodeArgs reads a tool's arguments as strictly as the API reads its bodies: exact names,
// no name twice, no unknown members.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	err := strictjson.Unmarshal(raw, v)
	var he *hitl.Error
	if errors.As(err, &he) {
		invalid := *he
		invalid.Message = "the arguments are not valid: " + he.Message
		return &invalid
	}
	return err
}

func (t *tools) requestUserInput(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args hitl.ToolArguments
	if err := decodeArgs(req.Params.Arguments, &args); err != nil {
		return toolError(err)
	}
	notAsked := "" // why answer_in_client does not ask this client
	if args.AnswerInClient {
		if err := t.b.MayAnswerInClient(nil); err != nil {
			return toolError(err)
		}
		notAsked = whyNotInClient(req.Session)
	}
	// One key per call: the backend's retries of this call never ask twice.
	inq, err := t.b.CreateInquiry(ctx, args.InquiryRequest(nil), "mcp-"+rand.Text())
	if err != nil {
		return toolError(err)
	}
	if !args.AnswerInClient || notAsked != "" {
		inq, err := t.wait(ctx, req, inq, t.bound)
		if err != nil {
			return toolError(err)
		}
		return noted(inq, notAsked)
	}
	// What the engine knows only once the inquiry is asked (its assignees, separation of
	// duties) may refuse it still: then the question is withdrawn, not left half asked.
	if err := t.b.MayAnswerInClient(inq); err != nil {
		if _, cerr := t.b.Cancel(ctx, inq.ID, "answer_in_client was refused: "+hitl.ErrorMessage(err)); cerr != nil {
			return toolError(cerr)
		}
		return toolError(hitl.Errorf(hitl.ErrorCode(err), "%s; inquiry %d was withdrawn: ask again without answer_in_client", hitl.ErrorMessage(err), inq.ID))
	}
	return t.awaitInClient(ctx, req, inq)
}

func (t *tools) getUserInput(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args struct {
		InquiryID   int64 `json:"inquiry_id"`
		WaitSeconds *int  `json:"wait_seconds"`
	}
	if err := decodeArgs(req.Params.Arguments, &args); err != nil {
		return toolError(err)
	}
	if args.InquiryID <= 0 {
		return toolError(hitl.Errorf(hitl.EInvalid, "inquiry_id must be the id request_user_input returned"))
	}
	wait := t.bound
	if args.WaitSeconds != nil {
		if *args.WaitSeconds < 0 || time.Duration(*args.WaitSeconds)*time.Second > t.bound {
			return toolError(hitl.Errorf(hitl.EInvalid, "wait_seconds must be from 0 to %d", int(t.bound.Seconds())))
		}
		wait = time.Duration(*args.WaitSeconds) * time.Second
	}
	inq, err := t.b.Wait(ctx, args.InquiryID, 0)
	if err != nil {
		return toolError(err)
	}
	return t.await(ctx, req, inq, wait)
}

// await waits for inq to be final, for at most bound, and returns it as the tool's result.
func (t *tools) await(ctx context.Context, req *sdk.CallToolRequest, inq *hitl.Inquiry, bound time.Duration) (*sdk.CallToolResult, error) {
	inq, err := t.wait(ctx, req, inq, bound)
	if err != nil {
		return toolError(err)
	}
	r := resultOf(inq)
	return structured(r.Message, r)
}

// wait waits for inq to be final, for at most bound, reporting progress every few seconds
// when the client gave a progress token. It returns the inquiry as it is then.
func (t *tools) wait(ctx context.Context, req *sdk.CallToolRequest, inq *hitl.Inquiry, bound time.Duration) (*hitl.Inquiry, error) {
	start := time.Now()
	token := req.Params.GetProgressToken()
	for inq.Status == hitl.StatusPending {
		left := bound - time.Since(start)
		if left <= 0 {
			break
		}
		var err error
		if inq, err = t.b.Wait(ctx, inq.ID, min(left, progressEvery)); err != nil {
			return nil, err
		}
		if token != nil && inq.Status == hitl.StatusPending && req.Session != nil {
			req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
				Progress: time.Since(start).Seconds(), Total: bound.Seconds(),
				Message: fmt.Sprintf("waiting for a human to answer inquiry %d", inq.ID)})
		}
	}
	return inq, nil
}

func (t *tools) listPending(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args struct {
		Limit int `json:"limit"`
	}
	if err := decodeArgs(req.Params.Arguments, &args); err != nil {
		return toolError(err)
	}
	if args.Limit == 0 {
		args.Limit = 20
	}
	if args.Limit < 1 || args.Limit > 100 {
		return toolError(hitl.Errorf(hitl.EInvalid, "limit must be from 1 to 100"))
	}
	inqs, err := t.b.Pending(ctx, args.Limit)
	if err != nil {
		return toolError(err)
	}
	if inqs == nil {
		inqs = []*hitl.Inquiry{}
	}
	return structured(fmt.Sprintf("%d questions wait for an answer.", len(inqs)), map[string]any{"inquiries": inqs})
}

func (t *tools) respond(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var args struct {
		InquiryID int64           `json:"inquiry_id"`
		Response  json.RawMessage `json:"response"`
		Comment   string          `json:"comment"`
	}
	if err := decodeArgs(req.Params.Arguments, &args); err != nil {
		return toolError(err)
	}
	if args.InquiryID <= 0 || len(args.Response) == 0 {
		return toolError(hitl.Errorf(hitl.EInvalid, "inquiry_id and response are required"))
	}
	inq, err := t.b.Respond(ctx, args.InquiryID, args.Response, args.Comment)
	if err != nil {
		return toolError(err)
	}
	return structured(fmt.Sprintf("Inquiry %d answered.", inq.ID), inq)
}
