package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// TestRuleSuggestionsOverHTTP: after two identical approvals by vic, the next one's
// suggestion is the rule (tool, agent, exact arguments, 8h); for another person it is null;
// a missing or bad id is 400, an unknown inquiry 404, no key 401.
func TestRuleSuggestionsOverHTTP(t *testing.T) {
	e := startServer(t, testserver.Configure(func(c *server.Config) { c.RuleSuggestAfter = 2 }))
	agent := e.token("bot", "agent")
	vic := e.token("vic", "responder")
	wes := e.token("wes", "responder")
	ask := `{"prompt":"Deploy?","request_type":"approval","tool_call":{"id":"c","name":"deploy","arguments":{"env":"staging"}},"allowed_decisions":["approve","reject"]}`
	for range 2 {
		asked := e.do("POST", "/v1/inquiries", agent, ask)
		if r := e.do("POST", fmt.Sprintf("/v1/inquiries/%v/respond", asked.body["id"]), vic, `{"response":{"decision":"approve"}}`); r.status != 200 {
			t.Fatalf("approve: %d %s", r.status, r.text)
		}
	}
	next := e.do("POST", "/v1/inquiries", agent, ask)
	path := fmt.Sprintf("/v1/rules/suggestions?inquiry=%v", next.body["id"])
	got := e.do("GET", path, vic, "")
	if got.status != 200 || !strings.Contains(got.text, `"suggestion":{"tool":"deploy","agent":"bot","args":{"env":"staging"},"count":2,"allow_for":"8h","allow_args":"exact"}`) {
		t.Fatalf("vic's suggestion: %d %s", got.status, got.text)
	}
	if r := e.do("GET", path, wes, ""); r.status != 200 || !strings.Contains(r.text, `"suggestion":null`) {
		t.Fatalf("wes's suggestion: %d %s", r.status, r.text)
	}
	for _, bad := range []string{"/v1/rules/suggestions", "/v1/rules/suggestions?inquiry=x", "/v1/rules/suggestions?inquiry=-1"} {
		if r := e.do("GET", bad, vic, ""); r.status != http.StatusBadRequest || !strings.Contains(r.text, "invalid") {
			t.Fatalf("%s: %d %s", bad, r.status, r.text)
		}
	}
	if r := e.do("GET", "/v1/rules/suggestions?inquiry=99999", vic, ""); r.status != http.StatusNotFound {
		t.Fatalf("unknown inquiry: %d %s", r.status, r.text)
	}
	if r := e.do("GET", path, "", ""); r.status != http.StatusUnauthorized {
		t.Fatalf("no key: %d %s", r.status, r.text)
	}
}
