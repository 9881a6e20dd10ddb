package web

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/schema"
)

// formDecision: an approval of a tool call with decisions, answered with a decision, the
// edited arguments (a form built from the tool's parameters schema, starting from the
// proposed arguments) or a message.
const formDecision = "decision"

// decisionChoice is one decision a form offers.
type decisionChoice struct {
	Value hitl.Decision
	Label string
}

// decisionForm is what a decision form shows beyond the other forms.
type decisionForm struct {
	Choices  []decisionChoice
	Decision string // the one ticked
	Message  string
	// Proposed is the form values of the proposed arguments, for the page's script to show
	// what the person changed as they type; Changes is what they changed, as last sent.
	Proposed string
	Changes  []hitl.ArgumentChange
	Edited   bool // Changes were computed from an edit (none: the arguments are unchanged)
}

// decisionLabels say what each decision does, as the form offers them.
var decisionLabels = map[hitl.Decision]string{
	hitl.DecisionApprove: "Approve: run it with the proposed arguments",
	hitl.DecisionEdit:    "Edit: run it with the arguments below",
	hitl.DecisionReject:  "Reject: do not run it",
	hitl.DecisionRespond: "Respond: do not run it; your message is the agent's answer instead",
}

// newDecisionForm fills the decision part of f; entered is nil on a first visit, when the
// argument fields start from the proposed arguments.
func newDecisionForm(f *answerForm, inq *hitl.Inquiry, entered url.Values, n *int, known map[string]bool) {
	d := &decisionForm{}
	for _, v := range hitl.Decisions {
		if inq.Allows(v) {
			d.Choices = append(d.Choices, decisionChoice{Value: v, Label: decisionLabels[v]})
		}
	}
	known["/decision"], known["/message"] = true, true
	if inq.Allows(hitl.DecisionEdit) {
		args := schema.FormFor(inq.ToolCall.ParametersSchema)
		proposed := args.Values(inq.ToolCall.Arguments)
		b, _ := json.Marshal(proposed)
		d.Proposed = string(b)
		start := entered
		if start == nil {
			start = proposed
		}
		argsKnown := map[string]bool{}
		f.Root = newFieldView(args, start, n, argsKnown)
		for p := range argsKnown {
			known["/args"+p] = true
		}
		if entered != nil {
			if edited, errs := args.Read(entered); errs == nil {
				d.Changes, d.Edited = hitl.ArgumentChanges(inq.ToolCall.Arguments, edited), true
			}
		}
	}
	if entered != nil {
		d.Decision, d.Message = entered.Get("decision"), entered.Get("message")
	}
	f.Decision = d
}

// readDecision builds a decision answer from a posted decision form, or says what to fix.
func readDecision(inq *hitl.Inquiry, form url.Values) (*hitl.ResponseRequest, []hitl.FieldError) {
	a := hitl.DecisionAnswer{Decision: hitl.Decision(form.Get("decision"))}
	if !inq.Allows(a.Decision) {
		return nil, []hitl.FieldError{{Path: "/decision", Message: "choose what to do"}}
	}
	var errs []hitl.FieldError
	switch a.Decision {
	case hitl.DecisionEdit:
		var argErrs []hitl.FieldError
		a.Args, argErrs = schema.FormFor(inq.ToolCall.ParametersSchema).Read(form)
		for _, e := range argErrs {
			errs = append(errs, hitl.FieldError{Path: "/args" + e.Path, Message: e.Message})
		}
	case hitl.DecisionReject, hitl.DecisionRespond:
		a.Message = strings.TrimSpace(form.Get("message"))
	}
	b, _ := json.Marshal(a)
	if errs != nil && a.Args == nil {
		b = nil // nothing the schema could judge
	}
	return &hitl.ResponseRequest{Response: b, Comment: strings.TrimSpace(form.Get("comment"))}, errs
}

// editedArguments is what an answered decision changed of the proposed arguments, for the
// answered view; nil when it was no edit.
func editedArguments(inq *hitl.Inquiry) []hitl.ArgumentChange {
	var a hitl.DecisionAnswer
	if !inq.HasDecisions() || json.Unmarshal(inq.Response, &a) != nil || a.Decision != hitl.DecisionEdit {
		return nil
	}
	return hitl.ArgumentChanges(inq.ToolCall.Arguments, a.Args)
}

// argumentErrors are the errors of the edited arguments, by their paths within the arguments.
func argumentErrors(errs map[string]string) map[string]string {
	out := map[string]string{}
	for p, e := range errs {
		if within(p, "/args") {
			out[strings.TrimPrefix(p, "/args")] = e
		}
	}
	return out
}

// decisionText says a decision in words: "Approved: run deploy as proposed", "Rejected: not
// on a Friday", ...
func decisionText(inq *hitl.Inquiry, raw json.RawMessage) (string, bool) {
	var a hitl.DecisionAnswer
	if !inq.HasDecisions() || json.Unmarshal(raw, &a) != nil || a.Decision == "" {
		return "", false
	}
	tool := inq.ToolCall.Name
	switch a.Decision {
	case hitl.DecisionApprove:
		return "Approved: run " + tool + " as proposed", true
	case hitl.DecisionEdit:
		return "Edited: run " + tool + " with " + pretty(a.Args), true
	case hitl.DecisionReject:
		return strings.TrimSuffix("Rejected: do not run "+tool+". "+a.Message, " "), true
	}
	return "Responded instead of running " + tool + ": " + a.Message, true
}
