package web_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// TestRuleSuggestionOnTheInquiryPage: after two approvals of deploy staging in the inbox, the
// third's page offers the rule, what it covers in words; posting its form approves and makes
// the rule, which approves the fourth at once. A bad allow_for is shown, not recorded.
func TestRuleSuggestionOnTheInquiryPage(t *testing.T) {
	e := start(t, testserver.Configure(func(c *server.Config) { c.RuleSuggestAfter = 2 }))
	b := e.browser()
	b.signIn(e.responderToken)
	deploy := func() *hitl.Inquiry {
		return e.ask(&hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval,
			ToolCall:         &hitl.ToolCall{ID: "c", Name: "deploy", Arguments: json.RawMessage(`{"env":"staging"}`)},
			AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionReject}})
	}
	for range 2 {
		path := fmt.Sprintf("/inquiries/%d", deploy().ID)
		page := b.get(path)
		if strings.Contains(page.body, `id="suggestion"`) {
			t.Fatal("a suggestion before two approvals")
		}
		if res := b.post(path, url.Values{"csrf": {page.csrf()}, "decision": {"approve"}}); res.status != http.StatusSeeOther {
			t.Fatalf("approve: %d %s", res.status, res.body)
		}
	}
	third := deploy()
	path := fmt.Sprintf("/inquiries/%d", third.ID)
	page := b.get(path)
	body := html.UnescapeString(page.body)
	for _, want := range []string{"You approved this 2 times in a row", "Approve and allow it for 8 hours?", "<code>deploy</code>", "<strong>deploy-bot</strong>",
		`"env": "staging"`, `name="allow_for" value="8h"`, `name="allow_args" value="exact"`, `name="decision" value="approve"`} {
		if !strings.Contains(body, want) {
			t.Fatalf("the suggestion lacks %s: %s", want, body)
		}
	}
	form := url.Values{"csrf": {page.csrf()}, "decision": {"approve"}, "allow_for": {"soon"}, "allow_args": {"exact"}}
	if res := b.post(path, form); res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, "must be a duration like") {
		t.Fatalf("bad allow_for: %d %s", res.status, res.body)
	}
	if e.inquiry(third.ID).Status != hitl.StatusPending {
		t.Fatal("a bad allow_for answered")
	}
	form.Set("allow_for", "8h")
	if res := b.post(path, form); res.status != http.StatusSeeOther {
		t.Fatalf("approve and allow: %d %s", res.status, res.body)
	}
	if got := e.inquiry(third.ID); got.Status != hitl.StatusResponded || got.RespondedBy == nil || *got.RespondedBy != "ada" {
		t.Fatalf("third = %+v", got)
	}
	if fourth := deploy(); fourth.Status != hitl.StatusResponded || fourth.Rule == nil || fourth.Rule.Author != "ada" {
		t.Fatalf("after the rule, fourth = %+v", fourth)
	}
}
