package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// deployAsk is a tool call of deploy to env, which a person approves or rejects.
func deployAsk(env string) hitl.InquiryRequest {
	return hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval,
		ToolCall:         &hitl.ToolCall{ID: "call_1", Name: "deploy", Arguments: json.RawMessage(`{"env":"` + env + `"}`)},
		AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionReject}}
}

func ruleBody(expires time.Time, extra string) string {
	return fmt.Sprintf(`{"tool":"deploy","agent":"bot","args":{"env":"staging"},"expires_at":%q%s}`, expires.UTC().Format(time.RFC3339), extra)
}

// TestRulesOverHTTP: an admin makes a rule; the agent's next covered inquiry comes back
// answered by it; the list shows it; revoking twice is a conflict, an unknown rule not found.
func TestRulesOverHTTP(t *testing.T) {
	e := startServer(t)
	alice := e.token("alice", "admin")
	agent := e.token("bot", "agent")
	human := e.token("vic", "responder")

	made := e.do("POST", "/v1/rules", alice, ruleBody(time.Now().Add(8*time.Hour), ""))
	if made.status != http.StatusCreated || made.body["author"] != "alice" {
		t.Fatalf("create: %d %s", made.status, made.text)
	}
	id := made.body["id"].(string)
	asked := e.do("POST", "/v1/inquiries", agent, `{"prompt":"Deploy?","request_type":"approval","tool_call":{"id":"c","name":"deploy","arguments":{"env":"staging"}},"allowed_decisions":["approve","reject"]}`)
	if asked.status != http.StatusCreated || asked.body["status"] != "responded" || asked.body["responded_by"] != "rule:"+id {
		t.Fatalf("ask: %d %s", asked.status, asked.text)
	}
	if rcpt, _ := asked.body["receipt"].(string); rcpt == "" {
		t.Fatalf("no receipt on the rule's approval: %s", asked.text)
	}
	if ref, _ := asked.body["rule"].(map[string]any); ref["id"] != id || ref["author"] != "alice" {
		t.Fatalf("rule of the answer: %s", asked.text)
	}
	if other := e.do("POST", "/v1/inquiries", agent, `{"prompt":"Deploy?","request_type":"approval","tool_call":{"id":"c","name":"deploy","arguments":{"env":"prod"}},"allowed_decisions":["approve","reject"]}`); other.body["status"] != "pending" {
		t.Fatalf("prod: %s", other.text)
	}
	list := e.do("GET", "/v1/rules", alice, "")
	if rules, _ := list.body["rules"].([]any); list.status != 200 || len(rules) != 1 || rules[0].(map[string]any)["matched"] != 1.0 {
		t.Fatalf("list: %d %s", list.status, list.text)
	}
	if mine := e.do("GET", "/v1/rules", human, ""); mine.status != 200 || !strings.Contains(mine.text, `"rules":[]`) {
		t.Fatalf("vic's list: %d %s", mine.status, mine.text)
	}
	if r := e.do("DELETE", "/v1/rules/"+id, human, ""); r.status != http.StatusNotFound {
		t.Fatalf("vic revokes alice's rule: %d %s", r.status, r.text)
	}
	if r := e.do("DELETE", "/v1/rules/"+id, alice, ""); r.status != 200 || r.body["revoked_by"] != "alice" {
		t.Fatalf("revoke: %d %s", r.status, r.text)
	}
	if r := e.do("DELETE", "/v1/rules/"+id, alice, ""); r.status != http.StatusConflict || !strings.Contains(r.text, "already revoked at") {
		t.Fatalf("revoke twice: %d %s", r.status, r.text)
	}
	if r := e.do("DELETE", "/v1/rules/rule_unknown", alice, ""); r.status != http.StatusNotFound {
		t.Fatalf("revoke unknown: %d %s", r.status, r.text)
	}
	if again := e.do("POST", "/v1/inquiries", agent, `{"prompt":"Deploy?","request_type":"approval","tool_call":{"id":"c","name":"deploy","arguments":{"env":"staging"}},"allowed_decisions":["approve","reject"]}`); again.body["status"] != "pending" {
		t.Fatalf("after revoking: %s", again.text)
	}
}

// TestBadRulesOverHTTP: each mistake is a 400 naming its field; a non-admin is refused; an
// oversized body is 413.
func TestBadRulesOverHTTP(t *testing.T) {
	e := startServer(t)
	alice := e.token("alice", "admin")
	soon := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	for body, path := range map[string]string{
		`{"expires_at":"` + soon + `"}`:                                          "/tool",
		`{"tool":"a","template":"b","expires_at":"` + soon + `"}`:                "/template",
		`{"tool":"a","expires_at":"2020-01-01T00:00:00Z"}`:                       "/expires_at",
		`{"tool":"a","expires_at":"2999-01-01T00:00:00Z"}`:                       "/expires_at",
		`{"tool":"a","args_schema":{"type":"nope"},"expires_at":"` + soon + `"}`: "/args_schema",
	} {
		r := e.do("POST", "/v1/rules", alice, body)
		if r.status != http.StatusBadRequest || r.code() != "invalid" || r.unlisted([]string{path}) != "" {
			t.Errorf("%s: %d %s, want invalid at %s", body, r.status, r.text, path)
		}
	}
	if r := e.do("POST", "/v1/rules", alice, `{"tool":"a","expires_at":"`+soon+`","colour":"red"}`); r.status != http.StatusBadRequest {
		t.Errorf("unknown member: %d %s", r.status, r.text)
	}
	if r := e.do("POST", "/v1/rules", e.token("vic", "responder"), `{"tool":"a","expires_at":"`+soon+`"}`); r.status != http.StatusForbidden {
		t.Errorf("non-admin: %d %s", r.status, r.text)
	}
	huge := `{"tool":"a","expires_at":"` + soon + `","args":{"x":"` + strings.Repeat("a", 8<<20) + `"}}`
	if r := e.do("POST", "/v1/rules", alice, huge); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("huge: %d", r.status)
	}
}

// TestRuleMadeOnOneNodeApprovesOnAnotherUntilRevoked: two nodes on one PostgreSQL database; a
// rule made on node 1 approves on node 2; revoked on node 1, the next inquiry on node 2 waits.
func TestRuleMadeOnOneNodeApprovesOnAnotherUntilRevoked(t *testing.T) {
	c := newCluster(t, 2)
	alice := c.nodes[0].token("alice", "admin")
	if inq := ask(t, c.agent[1], deployAsk("staging")); inq.Status != hitl.StatusPending { // node 2 has read the rules: none
		t.Fatalf("before any rule: %s", inq.Status)
	}
	made := c.nodes[0].do("POST", "/v1/rules", alice, ruleBody(time.Now().Add(time.Hour), ""))
	if made.status != http.StatusCreated {
		t.Fatalf("create: %d %s", made.status, made.text)
	}
	id := made.body["id"].(string)
	testserver.Eventually(t, 5*time.Second, "node 2 to approve by the rule made on node 1", func() bool {
		inq := ask(t, c.agent[1], deployAsk("staging"))
		return inq.Status == hitl.StatusResponded && inq.RespondedBy != nil && *inq.RespondedBy == "rule:"+id
	})
	if r := c.nodes[0].do("DELETE", "/v1/rules/"+id, alice, ""); r.status != 200 {
		t.Fatalf("revoke: %d %s", r.status, r.text)
	}
	testserver.Eventually(t, 5*time.Second, "node 2 to stop approving by the rule revoked on node 1", func() bool {
		return ask(t, c.agent[1], deployAsk("staging")).Status == hitl.StatusPending
	})
	if evs := c.events(t, hitl.EventRuleCreated, hitl.EventRuleRevoked); len(evs) != 2 {
		t.Fatalf("rule events: %d", len(evs))
	}
}
