package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

const deployParameters = `{"type":"object","required":["service","replicas"],"properties":{"service":{"type":"string"},"replicas":{"type":"integer","minimum":1,"maximum":10}}}`

// askToolCall asks an approval of the model's call of deploy with the decisions given.
func askToolCall(t *testing.T, admin *client.Client, decisions ...hitl.Decision) *hitl.Inquiry {
	t.Helper()
	inq, _, err := admin.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: "Deploy api?", RequestType: hitl.RequestApproval,
		ToolCall: &hitl.ToolCall{ID: "call_1", Name: "deploy", Arguments: json.RawMessage(`{"service":"api","replicas":3}`),
			ParametersSchema: json.RawMessage(deployParameters)}, AllowedDecisions: decisions}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return inq
}

func toolResultAfter(t *testing.T, admin *client.Client, id int64) *hitl.ToolResult {
	t.Helper()
	got, err := admin.Inquiry(context.Background(), id)
	if err != nil || got.ToolResult == nil {
		t.Fatalf("inquiry %d: %+v, %v", id, got, err)
	}
	return got.ToolResult
}

// TestRespondWithDecisions: --approve, --edit ARGS and --reject REASON answer an approval of a
// tool call with the decision; refused ones say why, and send nothing.
func TestRespondWithDecisions(t *testing.T) {
	admin, _ := startServer(t)
	all := []hitl.Decision{hitl.DecisionApprove, hitl.DecisionEdit, hitl.DecisionReject}

	edited := askToolCall(t, admin, all...)
	if code, _, errOut := cliInput(t, "", "respond", fmt.Sprint(edited.ID), "--edit", `{"service":"api","replicas":2}`); code != 0 {
		t.Fatalf("--edit: exit %d %s", code, errOut)
	}
	if tr := toolResultAfter(t, admin, edited.ID); tr.Decision != hitl.DecisionEdit || string(tr.Arguments) != `{"service":"api","replicas":2}` || !*tr.Run {
		t.Fatalf("--edit: %+v", tr)
	}

	rejected := askToolCall(t, admin, all...)
	if code, _, errOut := cliInput(t, "", "respond", fmt.Sprint(rejected.ID), "--reject", "not during the freeze", "--comment", "ask again on Monday"); code != 0 {
		t.Fatalf("--reject: exit %d %s", code, errOut)
	}
	if tr := toolResultAfter(t, admin, rejected.ID); tr.Decision != hitl.DecisionReject || tr.Message != "not during the freeze" || *tr.Run ||
		!strings.Contains(tr.Content, "Their comment: ask again on Monday") {
		t.Fatalf("--reject: %+v", tr)
	}

	approved := askToolCall(t, admin, all...)
	if code, _, errOut := cliInput(t, "", "respond", fmt.Sprint(approved.ID), "--approve"); code != 0 {
		t.Fatalf("--approve: exit %d %s", code, errOut)
	}
	if tr := toolResultAfter(t, admin, approved.ID); tr.Decision != hitl.DecisionApprove || string(tr.Arguments) != `{"service":"api","replicas":3}` {
		t.Fatalf("--approve: %+v", tr)
	}

	// Refused: a decision the inquiry does not allow (before sending), an edit that does not
	// fit (the server's paths), --edit on a plain approval.
	onlyApprove := askToolCall(t, admin, hitl.DecisionApprove, hitl.DecisionReject)
	plain, _, err := admin.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	unfit := askToolCall(t, admin, all...)
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"respond", fmt.Sprint(onlyApprove.ID), "--edit", `{"service":"api","replicas":2}`}, exitUsage, "allows the decisions approve, reject, not edit"},
		{[]string{"respond", fmt.Sprint(unfit.ID), "--edit", `{"service":"api","replicas":20}`}, exitError, "/args/replicas"},
		{[]string{"respond", fmt.Sprint(plain.ID), "--edit", `{}`}, exitUsage, "--edit does not apply"},
		{[]string{"respond", fmt.Sprint(unfit.ID), "--edit", `{}`, "--approve"}, exitUsage, "exclude each other"},
	} {
		code, _, errOut := cliInput(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.says) {
			t.Errorf("%v: exit %d %q, want %d saying %q", c.args, code, errOut, c.code, c.says)
		}
	}
	for _, inq := range []*hitl.Inquiry{onlyApprove, plain, unfit} {
		if got, err := admin.Inquiry(context.Background(), inq.ID); err != nil || got.Status != hitl.StatusPending {
			t.Fatalf("inquiry %d after a refused answer: %+v %v", inq.ID, got, err)
		}
	}
	// On a plain approval, the reason after --reject is the comment.
	if code, _, errOut := cliInput(t, "", "respond", fmt.Sprint(plain.ID), "--reject", "too late"); code != 0 {
		t.Fatalf("--reject on a plain approval: exit %d %s", code, errOut)
	}
	if got, _ := admin.Inquiry(context.Background(), plain.ID); string(got.Response) != `{"approved":false,"comment":"too late"}` {
		t.Fatalf("plain --reject answered %s", got.Response)
	}

	// hitl show says how to decide.
	code, out, _ := cliInput(t, "", "show", fmt.Sprint(unfit.ID))
	if code != 0 || !strings.Contains(out, "decide about the call of deploy: approve, edit, reject") || !strings.Contains(out, "--edit") || !strings.Contains(out, `"replicas"`) {
		t.Fatalf("show: %d %s", code, out)
	}
}

// TestDecisionFormWithPlainPrompts: the form offers the allowed decisions (reject first), then
// asks what the decision needs; an edit prints what changed.
func TestDecisionFormWithPlainPrompts(t *testing.T) {
	admin, _ := startServer(t)
	t.Setenv("ACCESSIBLE", "1")
	all := []hitl.Decision{hitl.DecisionApprove, hitl.DecisionEdit, hitl.DecisionReject, hitl.DecisionRespond}
	for _, c := range []struct {
		name, input string
		want        string
		shows       string
	}{
		{"edit", "3\n{\"service\":\"api\",\"replicas\":5}\n", `{"decision":"edit","args":{"service":"api","replicas":5}}`, "/replicas: 3 → 5"},
		{"edit keeping the proposed arguments", "3\n\n", `{"decision":"edit","args":{"service":"api","replicas":3}}`, "Arguments of deploy"},
		{"edit re-asked until it is JSON", "3\nreplicas=5\n{\"service\":\"web\",\"replicas\":3}\n", `{"decision":"edit","args":{"service":"web","replicas":3}}`, "enter the arguments as a JSON object"},
		{"reject with a reason", "1\nnot today\n", `{"decision":"reject","message":"not today"}`, "You chose: Reject: do not run deploy. Why not (optional)"},
		{"approve", "2\n", `{"decision":"approve"}`, "Approve: run deploy as proposed"},
		{"respond, an answer required", "4\n\nuse the canary\n", `{"decision":"respond","message":"use the canary"}`, "an answer is required"},
		{"respond, the choice in view", "4\nuse the canary\n", `{"decision":"respond","message":"use the canary"}`, "You chose: Respond: do not run deploy; answer the model instead. Your answer to the model *"},
		{"respond, said", "4\nuse the canary\n", `{"decision":"respond","message":"use the canary"}`, `Sent: Respond: do not run deploy; answer the model instead, with the message "use the canary"`},
		{"approve, said", "2\n", `{"decision":"approve"}`, "Sent: Approve: run deploy as proposed\n"},
	} {
		inq := askToolCall(t, admin, all...)
		code, _, errOut := cliInput(t, c.input, "respond", fmt.Sprint(inq.ID))
		if code != 0 || !strings.Contains(errOut, c.shows) {
			t.Fatalf("%s: exit %d, screen %q does not show %q", c.name, code, errOut, c.shows)
		}
		got, err := admin.Inquiry(context.Background(), inq.ID)
		if err != nil || !sameJSON(got.Response, c.want) {
			t.Fatalf("%s: answered %s, want %s (%v)", c.name, got.Response, c.want, err)
		}
	}
}

func sameJSON(got json.RawMessage, want string) bool {
	var a, b any
	return json.Unmarshal(got, &a) == nil && json.Unmarshal([]byte(want), &b) == nil && fmt.Sprint(a) == fmt.Sprint(b)
}

// TestDecisionFormOnATerminal: on a terminal, arrow keys pick Edit, and the arguments box starts
// from those proposed: two backspaces and "5}" change the replicas from 3 to 5.
func TestDecisionFormOnATerminal(t *testing.T) {
	admin, _ := startServer(t)
	inq := askToolCall(t, admin, hitl.DecisionApprove, hitl.DecisionEdit, hitl.DecisionReject)
	term := respondOnTerminal(t, inq.ID)
	term.waitFor("Edit: run deploy with arguments you change")
	term.typeKeys("\x1b[B\x1b[B\r") // Reject is first; down to Approve, down to Edit, Enter
	term.waitFor("Arguments of deploy")
	term.typeKeys("\x7f\x7f5}\r")
	if code := term.exit(); code != 0 {
		t.Fatalf("exit %d; the screen:\n%s", code, term.screen())
	}
	if !strings.Contains(term.screen(), "/replicas: 3 → 5") || !strings.Contains(term.screen(), `Sent: Edit: run deploy with {"service":"api","replicas":5}`) {
		t.Fatalf("the change, or what was sent, is not shown:\n%s", term.screen())
	}
	if tr := toolResultAfter(t, admin, inq.ID); tr.Decision != hitl.DecisionEdit || string(tr.Arguments) != `{"service":"api","replicas":5}` {
		t.Fatalf("edited on a terminal: %+v", tr)
	}

	// Reject is first; its reason is asked with the choice in view.
	inq = askToolCall(t, admin, hitl.DecisionApprove, hitl.DecisionReject)
	term = respondOnTerminal(t, inq.ID)
	term.waitFor("Approve: run deploy as proposed")
	term.typeKeys("\r")
	term.waitFor("Why not (optional)")
	term.waitFor("You chose: Reject: do not run deploy")
	term.typeKeys("freeze\r")
	if code := term.exit(); code != 0 || !strings.Contains(term.screen(), `Sent: Reject: do not run deploy, with the message "freeze"`) {
		t.Fatalf("exit %d; the screen:\n%s", code, term.screen())
	}
	if tr := toolResultAfter(t, admin, inq.ID); tr.Decision != hitl.DecisionReject || tr.Message != "freeze" {
		t.Fatalf("rejected on a terminal: %+v", tr)
	}
}
