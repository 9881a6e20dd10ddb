package server_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// Decisions on a tool call (issue 16, point 1): approve, edit, reject or respond, and the
// tool result that tells the model what happened.

const deployParams = `{"type":"object","additionalProperties":false,"required":["service","replicas"],
	"properties":{"service":{"type":"string","minLength":1},"replicas":{"$ref":"#/$defs/count"},"region":{"enum":["eu","us"]}},
	"$defs":{"count":{"type":"integer","minimum":1,"maximum":10}}}`

// askDecision creates an approval of the model's call of deploy, with the decisions given.
func askDecision(t *testing.T, e *env, agent, decisions string) int64 {
	t.Helper()
	body := `{"prompt":"Deploy?","request_type":"approval",
		"tool_call":{"id":"call_7","name":"deploy","arguments":{"service":"api","replicas":3},"parameters_schema":` + deployParams + `}`
	if decisions != "" {
		body += `,"allowed_decisions":` + decisions
	}
	r := e.do("POST", "/v1/inquiries", agent, body+"}")
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.text)
	}
	return int64(r.body["id"].(float64))
}

func toolResultOf(t *testing.T, r reply) map[string]any {
	t.Helper()
	tr, ok := r.body["tool_result"].(map[string]any)
	if r.status != 200 || !ok {
		t.Fatalf("no tool result: %d %s", r.status, r.text)
	}
	return tr
}

func TestDecisionsOnAToolCall(t *testing.T) {
	e := newEnv(t)
	agent := e.token("deploy-bot", "agent")
	kim := e.token("kim", "responder")
	all := `["approve","edit","reject","respond"]`

	cases := []struct {
		name, response string
		decision       string
		run            bool
		arguments      string // "" when none
		message        string
		says           []string
	}{
		{"approve", `{"decision":"approve"}`, "approve", true, `{"service":"api","replicas":3}`, "",
			[]string{"approved your call of deploy", `Run deploy now with the arguments you proposed: {"service":"api","replicas":3}`}},
		{"edit", `{"decision":"edit","args":{"service":"api","replicas":2,"region":"eu"}}`, "edit", true, `{"service":"api","replicas":2,"region":"eu"}`, "",
			[]string{"edited the arguments", `Run deploy now with these arguments, not the ones you proposed: {"service":"api","replicas":2,"region":"eu"}`}},
		{"reject", `{"decision":"reject","message":"not on a Friday"}`, "reject", false, "", "not on a Friday",
			[]string{"rejected your call of deploy", "Do not run deploy.", "Their reason: not on a Friday"}},
		{"reject without a reason", `{"decision":"reject"}`, "reject", false, "", "",
			[]string{"rejected your call of deploy", "Do not run deploy."}},
		{"respond", `{"decision":"respond","message":"deploy web instead"}`, "respond", false, "", "deploy web instead",
			[]string{"answered you instead", "Do not run deploy.", "Their answer: deploy web instead"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := askDecision(t, e, agent, all)
			r := e.do("POST", fmt.Sprintf("/v1/inquiries/%d/respond", id), kim, `{"response":`+c.response+`}`)
			tr := toolResultOf(t, r)
			if tr["tool_call_id"] != "call_7" || tr["decision"] != c.decision || tr["run"] != c.run || (tr["message"] != nil && tr["message"] != c.message) || (tr["message"] == nil && c.message != "") {
				t.Fatalf("tool result %v", tr)
			}
			args, _ := json.Marshal(tr["arguments"])
			if (c.arguments == "" && tr["arguments"] != nil) || (c.arguments != "" && !sameJSONText(string(args), c.arguments)) {
				t.Fatalf("arguments %s, want %s", args, c.arguments)
			}
			for _, w := range c.says {
				if !strings.Contains(tr["content"].(string), w) {
					t.Fatalf("content %q does not say %q", tr["content"], w)
				}
			}
		})
	}

	// The generated response schema is what the inquiry shows, with the decisions allowed.
	id := askDecision(t, e, agent, "")
	inq, err := e.Admin.Inquiry(ctx, id)
	must(t, err)
	if fmt.Sprint(inq.AllowedDecisions) != "[approve reject]" || !strings.Contains(string(inq.ResponseSchema), `"decision"`) || string(inq.ToolCall.ParametersSchema) == "" {
		t.Fatalf("defaults: decisions %v, schema %s", inq.AllowedDecisions, inq.ResponseSchema)
	}
	// The agent waiting through the Go client gets the same result.
	kimC := client.New(e.URL, kim, nil)
	_, err = kimC.Respond(ctx, id, json.RawMessage(`{"decision":"reject","message":"no"}`), "see the change log")
	must(t, err)
	got, err := client.New(e.URL, agent, nil).Wait(ctx, id, 0)
	must(t, err)
	if tr := got.ToolResult; tr == nil || tr.Decision != hitl.DecisionReject || tr.Run == nil || *tr.Run || !strings.Contains(tr.Content, "Their comment: see the change log") {
		t.Fatalf("tool result through the client: %+v", got.ToolResult)
	}
}

// TestPlainToolCallApprovalIsAnsweredAsBefore: decisions are opt-in; an approval of a tool call
// with neither allowed_decisions nor a parameters schema keeps {"approved": bool}.
func TestPlainToolCallApprovalIsAnsweredAsBefore(t *testing.T) {
	e := newEnv(t)
	agent := e.token("bot", "agent")
	r := e.do("POST", "/v1/inquiries", agent, `{"prompt":"Run?","request_type":"approval","tool_call":{"id":"c1","name":"rm","arguments":{"path":"/tmp/x"}}}`)
	if r.status != 201 || r.body["allowed_decisions"] != nil {
		t.Fatalf("create: %d %s", r.status, r.text)
	}
	id := int64(r.body["id"].(float64))
	r = e.do("POST", fmt.Sprintf("/v1/inquiries/%d/respond", id), adminToken, `{"response":{"decision":"approve"}}`)
	wantProblem(t, r, 422, "invalid_response", "/approved")
	tr := toolResultOf(t, e.do("POST", fmt.Sprintf("/v1/inquiries/%d/respond", id), adminToken, `{"response":{"approved":true}}`))
	if tr["content"] != `{"approved":true}` || tr["run"] != nil || tr["decision"] != nil {
		t.Fatalf("plain tool result %v", tr)
	}
}

func TestDecisionsBadInput(t *testing.T) {
	e := newEnv(t)
	agent := e.token("bot", "agent")
	kim := e.token("kim", "responder")
	editable := askDecision(t, e, agent, `["approve","edit","reject"]`)
	approveOnly := askDecision(t, e, agent, `["approve","reject"]`)
	responding := askDecision(t, e, agent, `["respond"]`)
	call := `"tool_call":{"id":"c","name":"deploy","arguments":{}`
	deep := strings.Repeat(`{"not":`, 40) + `{}` + strings.Repeat(`}`, 40)
	huge := `{"description":"` + strings.Repeat("d", 70<<10) + `"}`

	cases := []struct {
		name, path, token, body string
		status                  int
		code                    string
		errorPaths              []string
		says                    string
	}{
		{"decisions on an input", "/v1/inquiries", agent, `{"prompt":"x","request_type":"input",` + call + `},"allowed_decisions":["approve"]}`, 400, "invalid", []string{"/allowed_decisions"}, "only applies to approvals"},
		{"decisions without a tool call", "/v1/inquiries", agent, `{"prompt":"x","request_type":"approval","allowed_decisions":["approve","reject"]}`, 400, "invalid", []string{"/allowed_decisions"}, "needs the tool_call"},
		{"no decision", "/v1/inquiries", agent, `{"prompt":"x","request_type":"approval",` + call + `},"allowed_decisions":[]}`, 400, "invalid", []string{"/allowed_decisions"}, "at least one"},
		{"unknown decision", "/v1/inquiries", agent, `{"prompt":"x","request_type":"approval",` + call + `},"allowed_decisions":["approve","veto"]}`, 400, "invalid", []string{"/allowed_decisions/1"}, `"veto" is not a decision`},
		{"a decision twice", "/v1/inquiries", agent, `{"prompt":"x","request_type":"approval",` + call + `},"allowed_decisions":["reject","reject"]}`, 400, "invalid", []string{"/allowed_decisions/1"}, "twice"},
		{"edit without parameters schema", "/v1/inquiries", agent, `{"prompt":"x","request_type":"approval",` + call + `},"allowed_decisions":["approve","edit"]}`, 400, "invalid", []string{"/allowed_decisions"}, "edit needs tool_call.parameters_schema"},
		{"parameters schema that does not compile", "/v1/inquiries", agent, `{"prompt":"x","request_type":"approval",` + call + `,"parameters_schema":{"type":"nope"}}}`, 400, "invalid", []string{"/tool_call/parameters_schema"}, ""},
		{"parameters schema loading a file", "/v1/inquiries", agent, `{"prompt":"x","request_type":"approval",` + call + `,"parameters_schema":{"$ref":"file:///etc/passwd"}}}`, 400, "invalid", []string{"/tool_call/parameters_schema"}, "not allowed"},
		{"parameters schema too deep", "/v1/inquiries", agent, `{"prompt":"x","request_type":"approval",` + call + `,"parameters_schema":` + deep + `}}`, 400, "invalid", []string{"/tool_call/parameters_schema"}, "nest"},
		{"parameters schema too big", "/v1/inquiries", agent, `{"prompt":"x","request_type":"approval",` + call + `,"parameters_schema":` + huge + `}}`, 400, "invalid", []string{"/tool_call/parameters_schema"}, "bytes"},
		{"decisions and a response schema", "/v1/inquiries", agent, `{"prompt":"x","request_type":"approval",` + call + `},"allowed_decisions":["approve"],"response_schema":{"type":"string"}}`, 400, "invalid", []string{"/response_schema"}, "not both"},
		{"fallback that is no decision", "/v1/inquiries", agent, `{"prompt":"x","request_type":"approval",` + call + `},"allowed_decisions":["approve","reject"],"timeout_seconds":60,"fallback_policy":"complete_with_fallback","fallback_value":{"approved":false}}`, 400, "invalid", []string{"/fallback_value/decision", "/fallback_value"}, ""},

		{"edit failing the parameters schema", fmt.Sprintf("/v1/inquiries/%d/respond", editable), kim, `{"response":{"decision":"edit","args":{"service":"","replicas":11,"region":"mars"}}}`, 422, "invalid_response", []string{"/args/service", "/args/replicas", "/args/region"}, ""},
		{"edit missing an argument", fmt.Sprintf("/v1/inquiries/%d/respond", editable), kim, `{"response":{"decision":"edit","args":{"service":"api"}}}`, 422, "invalid_response", []string{"/args/replicas"}, "is required"},
		{"edit without args", fmt.Sprintf("/v1/inquiries/%d/respond", editable), kim, `{"response":{"decision":"edit"}}`, 422, "invalid_response", []string{"/args"}, "is required"},
		{"args with approve", fmt.Sprintf("/v1/inquiries/%d/respond", editable), kim, `{"response":{"decision":"approve","args":{"service":"x","replicas":1}}}`, 422, "invalid_response", []string{"/args"}, ""},
		{"a decision not allowed", fmt.Sprintf("/v1/inquiries/%d/respond", approveOnly), kim, `{"response":{"decision":"edit","args":{"service":"api","replicas":1}}}`, 422, "invalid_response", []string{"/decision"}, `must be one of "approve" or "reject"`},
		{"approved: true where approve is not allowed", fmt.Sprintf("/v1/inquiries/%d/respond", responding), kim, `{"response":{"approved":true}}`, 422, "invalid_response", []string{"/decision"}, ""},
		{"approved that is no boolean", fmt.Sprintf("/v1/inquiries/%d/respond", approveOnly), kim, `{"response":{"approved":"yes"}}`, 422, "invalid_response", []string{"/decision"}, "is required"},
		{"respond without a message", fmt.Sprintf("/v1/inquiries/%d/respond", responding), kim, `{"response":{"decision":"respond"}}`, 422, "invalid_response", []string{"/message"}, "is required"},
		{"a message with approve", fmt.Sprintf("/v1/inquiries/%d/respond", approveOnly), kim, `{"response":{"decision":"approve","message":"ok"}}`, 422, "invalid_response", []string{"/message"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do("POST", c.path, c.token, c.body)
			wantProblem(t, r, c.status, c.code, c.says)
			var listed []string
			for _, fe := range r.body["errors"].([]any) {
				listed = append(listed, fe.(map[string]any)["path"].(string))
			}
			for _, p := range c.errorPaths { // at the path, or below it (where a schema nests too deep)
				if !slices.ContainsFunc(listed, func(l string) bool { return l == p || strings.HasPrefix(l, p+"/") && c.status == 400 }) {
					t.Fatalf("errors do not list %s: %s", p, r.text)
				}
			}
		})
	}
	// Nothing of the refused requests was stored or answered.
	page, err := e.Admin.Inquiries(ctx, client.ListOptions{})
	must(t, err)
	for _, inq := range page.Data {
		if inq.Status != hitl.StatusPending {
			t.Fatalf("inquiry %d is %s after refused answers", inq.ID, inq.Status)
		}
	}
	if len(page.Data) != 3 {
		t.Fatalf("%d inquiries stored, want 3", len(page.Data))
	}
}

// sameJSONText compares two JSON texts as values.
func sameJSONText(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

// TestReviewToolCall: the Go client asks a person about a call of the model's own tool and
// hands back the result to act on; the call id is the idempotency key.
func TestReviewToolCall(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	human := e.principal("ann", []string{"responder"})
	review := func(req hitl.InquiryRequest) <-chan any {
		out := make(chan any, 1)
		go func() {
			res, err := agent.ReviewToolCall(ctx, req)
			if err != nil {
				out <- err
				return
			}
			out <- res
		}()
		return out
	}
	edited := review(hitl.InquiryRequest{Prompt: "Scale api?", ToolCall: &hitl.ToolCall{ID: "call_1", Name: "deploy",
		Arguments: json.RawMessage(`{"service":"api","replicas":3}`), ParametersSchema: json.RawMessage(deployParams)},
		AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionEdit, hitl.DecisionReject}})
	rejected := review(hitl.InquiryRequest{Prompt: "Delete the bucket?", ToolCall: &hitl.ToolCall{ID: "call_2", Name: "delete_bucket",
		Arguments: json.RawMessage(`{"bucket":"logs"}`)}})

	scale := pendingByPrompt(t, human, "Scale api?")
	_, err := human.Respond(ctx, scale.ID, json.RawMessage(`{"decision":"edit","args":{"service":"api","replicas":5}}`), "")
	must(t, err)
	res := toolResult(t, edited)
	if res.ToolCallID != "call_1" || res.Decision != hitl.DecisionEdit || res.Run == nil || !*res.Run || !sameJSONText(string(res.Arguments), `{"service":"api","replicas":5}`) {
		t.Fatalf("edited: %+v", res)
	}
	// Without decisions nor a schema, the review still asks for a decision (approve or reject).
	del := pendingByPrompt(t, human, "Delete the bucket?")
	if del.RequestType != hitl.RequestApproval || fmt.Sprint(del.AllowedDecisions) != "[approve reject]" {
		t.Fatalf("review without decisions: %s %v", del.RequestType, del.AllowedDecisions)
	}
	_, err = human.Respond(ctx, del.ID, json.RawMessage(`{"decision":"reject","message":"we keep logs"}`), "")
	must(t, err)
	if res := toolResult(t, rejected); res.Run == nil || *res.Run || res.Message != "we keep logs" || !strings.Contains(res.Content, "Do not run delete_bucket") {
		t.Fatalf("rejected: %+v", res)
	}
	// A retry of call_1 gets its result again, without asking twice.
	again := toolResult(t, review(hitl.InquiryRequest{Prompt: "Scale api?", ToolCall: &hitl.ToolCall{ID: "call_1", Name: "deploy",
		Arguments: json.RawMessage(`{"service":"api","replicas":3}`), ParametersSchema: json.RawMessage(deployParams)},
		AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionEdit, hitl.DecisionReject}}))
	if again.Decision != hitl.DecisionEdit {
		t.Fatalf("retried: %+v", again)
	}
	if _, err := agent.ReviewToolCall(ctx, hitl.InquiryRequest{Prompt: "x"}); client.ErrorCode(err) != hitl.EInvalid {
		t.Fatalf("a review without a call: %v", err)
	}
}

// TestDecisionThroughMCP: get_user_input on an approval of a tool call with decisions returns
// the tool result, in words (the text and message) and in fields (tool_result).
func TestDecisionThroughMCP(t *testing.T) {
	e := newEnv(t)
	agent := e.token("deploy-bot", "agent")
	id := askDecision(t, e, agent, `["approve","edit"]`)
	r := e.do("POST", fmt.Sprintf("/v1/inquiries/%d/respond", id), adminToken, `{"response":{"decision":"edit","args":{"service":"api","replicas":4}}}`)
	if r.status != 200 {
		t.Fatalf("respond: %d %s", r.status, r.text)
	}
	s, err := mcpSession(t, e, agent, nil)
	must(t, err)
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "get_user_input", Arguments: map[string]any{"inquiry_id": id}})
	must(t, err)
	got := structuredOf(t, res)
	tr, _ := got["tool_result"].(map[string]any)
	args, _ := json.Marshal(tr["arguments"])
	if tr["run"] != true || tr["decision"] != "edit" || !sameJSONText(string(args), `{"service":"api","replicas":4}`) {
		t.Fatalf("structured result %v", got)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if !strings.Contains(got["message"].(string), "Run deploy now with these arguments") || !strings.HasPrefix(text, got["message"].(string)) {
		t.Fatalf("message %q, text %q", got["message"], text)
	}
}

// TestPlainApprovalAnswersADecision: {"approved": bool} — what Slack and email buttons, answer
// links, bulk answers and "Approve selected" send to every approval — means approve, or reject
// with the comment as the reason, when approve and reject are allowed; its retry is the same
// answer; an approval where only edit and respond are allowed is refused in words.
func TestPlainApprovalAnswersADecision(t *testing.T) {
	e := newEnv(t)
	agent := e.token("deploy-bot", "agent")
	kim := e.token("kim", "responder")
	id := askDecision(t, e, agent, "")
	path := fmt.Sprintf("/v1/inquiries/%d/respond", id)
	r := e.do("POST", path, kim, `{"response":{"approved":true}}`)
	if tr := toolResultOf(t, r); tr["decision"] != "approve" || tr["run"] != true || string(mustJSON(r.body["response"])) != `{"decision":"approve"}` {
		t.Fatalf("approved: true → %s", r.text)
	}
	if again := e.do("POST", path, kim, `{"response":{"approved":true}}`); again.status != 200 {
		t.Fatalf("the same approval again: %d %s", again.status, again.text)
	}
	id = askDecision(t, e, agent, "")
	r = e.do("POST", fmt.Sprintf("/v1/inquiries/%d/respond", id), kim, `{"response":{"approved":false,"comment":"not on a Friday"}}`)
	if tr := toolResultOf(t, r); tr["decision"] != "reject" || tr["run"] != false || tr["message"] != "not on a Friday" {
		t.Fatalf("approved: false → %s", r.text)
	}
	id = askDecision(t, e, agent, `["edit","respond"]`)
	r = e.do("POST", fmt.Sprintf("/v1/inquiries/%d/respond", id), kim, `{"response":{"approved":true}}`)
	if r.status != 422 || !strings.Contains(r.text, "edit") {
		t.Fatalf("approved: true where approve is not allowed: %d %s", r.status, r.text)
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }
