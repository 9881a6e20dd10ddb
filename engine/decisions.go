package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hitl-dev/hitl"
)

// Decisions on a tool call: an approval of a tool call that names its allowed decisions, or
// gives the tool's parameters schema, is answered with {"decision": …} (hitl.DecisionAnswer)
// rather than {"approved": bool}. Without either, an approval of a tool call is answered as
// every approval is, as before decisions existed: they are opt-in, and no answer means two
// things.
//
// The answers are checked by one schema generated from the allowed decisions, with the
// parameters schema embedded as the schema of "args": the inquiry's response_schema, checked
// like any other (compiled once, cost-bounded, every error with its path, /args/count), and
// the fallback value with it.

// checkDecisions reads the decisions of a new inquiry: it checks the tool's parameters schema
// (bounded and compiled as a response_schema is), and returns the schema of the answers when
// the inquiry is answered with decisions, nil when it is not.
func (e *Engine) checkDecisions(bad *problems, req *hitl.InquiryRequest, inq *hitl.Inquiry) json.RawMessage {
	tc := inq.ToolCall
	var params json.RawMessage
	paramsUsable := false
	if tc != nil && !hitl.IsNull(tc.ParametersSchema) {
		params = tc.ParametersSchema
		paramsUsable = e.checkSchema(bad, "/tool_call/parameters_schema", params)
	}
	if req.AllowedDecisions == nil && (params == nil || inq.RequestType != hitl.RequestApproval) {
		return nil // a plain approval, or a tool call that is not one to approve
	}
	given := len(*bad)
	switch {
	case req.AllowedDecisions != nil && inq.RequestType != hitl.RequestApproval:
		bad.add("/allowed_decisions", "only applies to approvals (request_type approval), not to %s", inq.RequestType)
	case tc == nil:
		bad.add("/allowed_decisions", "needs the tool_call the decisions are about")
	case req.AllowedDecisions != nil && len(req.AllowedDecisions) == 0:
		bad.add("/allowed_decisions", "must list at least one of %s", decisionList(hitl.Decisions))
	}
	for i, d := range req.AllowedDecisions {
		path := fmt.Sprintf("/allowed_decisions/%d", i)
		switch {
		case !d.Valid():
			bad.add(path, "%q is not a decision; decisions are %s", d, decisionList(hitl.Decisions))
		case slices.Contains(req.AllowedDecisions[:i], d):
			bad.add(path, "%q is listed twice", d)
		}
	}
	allowed := req.AllowedDecisions
	if allowed == nil {
		allowed = hitl.DefaultDecisions
	}
	if slices.Contains(allowed, hitl.DecisionEdit) && params == nil {
		bad.add("/allowed_decisions", "edit needs tool_call.parameters_schema: the edited arguments are checked against it")
	}
	if !hitl.IsNull(req.ResponseSchema) {
		bad.add("/response_schema", "an approval of a tool call with decisions is answered with a decision; give response_schema or decisions (allowed_decisions, tool_call.parameters_schema), not both")
	}
	if len(req.Options) > 0 {
		bad.add("/options", "an approval of a tool call with decisions is answered with a decision, not options")
	}
	if len(*bad) > given {
		return nil
	}
	inq.AllowedDecisions = slices.Clone(allowed)
	doc := decisionsSchema(allowed, params)
	if paramsUsable && slices.Contains(allowed, hitl.DecisionEdit) {
		if _, err := e.schemas.Compile(doc); err != nil { // a parameters schema that compiles alone, but not as "args"
			bad.add("/tool_call/parameters_schema", "cannot check edited arguments: %v", err)
		}
	}
	return doc
}

// parametersID names the parameters schema where it is embedded as "args": a schema resource
// of its own, so that its "$ref": "#/$defs/…" resolve within it, as they did alone.
const parametersID = "tool-parameters.json"

// decisionsSchema is the schema of the answers that allowed permits; params is the tool's
// parameters schema (nil when edit is not allowed).
func decisionsSchema(allowed []hitl.Decision, params json.RawMessage) json.RawMessage {
	type obj = map[string]any
	props := obj{"decision": obj{"enum": allowed, "title": "Decision",
		"description": "approve: run the tool as proposed; edit: run it with args; reject: do not run it; respond: do not run it, answer the model with message"}}
	var rules []any
	when := func(ds ...hitl.Decision) obj {
		return obj{"required": []string{"decision"}, "properties": obj{"decision": obj{"enum": ds}}}
	}
	if slices.Contains(allowed, hitl.DecisionEdit) {
		props["args"] = embeddedParameters(params)
		rules = append(rules, obj{"if": when(hitl.DecisionEdit), "then": obj{"required": []string{"args"}},
			"else": obj{"properties": obj{"args": false}}})
	}
	var withMessage []hitl.Decision
	for _, d := range allowed {
		if d == hitl.DecisionReject || d == hitl.DecisionRespond {
			withMessage = append(withMessage, d)
		}
	}
	if len(withMessage) > 0 {
		props["message"] = obj{"type": "string", "minLength": 1, "maxLength": maxComment, "title": "Message",
			"description": "reject: why not; respond: the answer the model gets instead of the tool's result"}
		rules = append(rules, obj{"if": when(withMessage...), "else": obj{"properties": obj{"message": false}}})
		if slices.Contains(allowed, hitl.DecisionRespond) {
			rules = append(rules, obj{"if": when(hitl.DecisionRespond), "then": obj{"required": []string{"message"}}})
		}
	}
	doc := obj{"type": "object", "required": []string{"decision"}, "additionalProperties": false, "properties": props}
	if len(rules) > 0 {
		doc["allOf"] = rules
	}
	b, _ := json.Marshal(doc)
	return b
}

// embeddedParameters is the parameters schema with an $id of its own (unless it has one).
func embeddedParameters(params json.RawMessage) json.RawMessage {
	var members map[string]json.RawMessage
	if json.Unmarshal(params, &members) != nil {
		return params // true or false: nothing inside refers to its root
	}
	if _, ok := members["$id"]; !ok {
		members["$id"] = json.RawMessage(`"` + parametersID + `"`)
	}
	b, _ := json.Marshal(members)
	return b
}

func decisionList(ds []hitl.Decision) string {
	words := make([]string, len(ds))
	for i, d := range ds {
		words[i] = string(d)
	}
	return strings.Join(words, ", ")
}

// decisionResult is the tool result of an inquiry answered with decisions: whether to run the
// tool and with which arguments, or what the person said instead, in words a model follows and
// in fields a program reads.
func decisionResult(inq *hitl.Inquiry) *hitl.ToolResult {
	tc := inq.ToolCall
	r := &hitl.ToolResult{ToolCallID: tc.ID, Run: new(bool)}
	var a hitl.DecisionAnswer
	decided := (inq.Status == hitl.StatusResponded || inq.FallbackApplied) && json.Unmarshal(inq.Response, &a) == nil
	if !decided {
		switch {
		case inq.Status == hitl.StatusTimeout:
			r.Content = fmt.Sprintf("Nobody decided about your call of %s before the deadline. Do not run %s; do not go ahead as if the human had agreed.", tc.Name, tc.Name)
		case inq.CancelReason != nil:
			r.Content = fmt.Sprintf("The question about your call of %s was cancelled before the human decided: %s. Do not run %s.", tc.Name, *inq.CancelReason, tc.Name)
		default:
			r.Content = fmt.Sprintf("The question about your call of %s was cancelled before the human decided. Do not run %s.", tc.Name, tc.Name)
		}
		return r
	}
	r.Decision, r.Message = a.Decision, a.Message
	var said string
	switch a.Decision {
	case hitl.DecisionApprove:
		r.Arguments = tc.Arguments
		if len(r.Arguments) == 0 {
			r.Arguments = json.RawMessage(`{}`)
		}
		said = fmt.Sprintf("The human approved your call of %s. Run %s now with the arguments you proposed: %s", tc.Name, tc.Name, r.Arguments)
	case hitl.DecisionEdit:
		r.Arguments = a.Args
		said = fmt.Sprintf("The human edited the arguments of your call of %s. Run %s now with these arguments, not the ones you proposed: %s", tc.Name, tc.Name, r.Arguments)
	case hitl.DecisionReject:
		said = fmt.Sprintf("The human rejected your call of %s. Do not run %s.", tc.Name, tc.Name)
		if a.Message != "" {
			said += " Their reason: " + a.Message
		}
	case hitl.DecisionRespond:
		said = fmt.Sprintf("The human did not let %s run and answered you instead. Do not run %s. Their answer: %s", tc.Name, tc.Name, a.Message)
	}
	*r.Run = a.Decision == hitl.DecisionApprove || a.Decision == hitl.DecisionEdit
	if inq.FallbackApplied {
		said = "Nobody decided before the deadline, so the decision set in advance applies. " + said
	}
	if inq.Comment != nil && *inq.Comment != "" {
		said += "\nTheir comment: " + *inq.Comment
	}
	r.Content = said
	return r
}

// approvalAsDecision reads a plain approval answer, {"approved": true|false, "comment"?}, given
// to an inquiry answered with decisions, as the decision it means: approve, or reject with the
// comment as its message. The channels that answer every approval the same way (Slack and
// email buttons, answer links, bulk answers, "Approve selected") then work for tool calls
// too; any other answer is left as it is, to be checked as given.
func approvalAsDecision(inq *hitl.Inquiry, response json.RawMessage) json.RawMessage {
	if !inq.HasDecisions() {
		return response
	}
	var a struct {
		Approved *bool   `json:"approved"`
		Comment  *string `json:"comment"`
	}
	dec := json.NewDecoder(bytes.NewReader(response))
	dec.DisallowUnknownFields()
	if dec.Decode(&a) != nil || a.Approved == nil {
		return response
	}
	d := hitl.DecisionAnswer{Decision: hitl.DecisionReject}
	if *a.Approved {
		d.Decision = hitl.DecisionApprove
	} else if a.Comment != nil {
		d.Message = *a.Comment
	}
	out, _ := json.Marshal(d)
	return out
}
