package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// TestRulesAllowOnApprovalAndThePage: ada approves a tool call "and allows it for 8 hours"
// (a rejection with the choice is refused on the form, a vote does not offer it); the next
// identical call is approved by her rule. The rules page shows people their own rules and
// admins every rule, newest or oldest first; its Revoke form needs the CSRF token, and
// revoking twice says it is revoked already.
func TestRulesAllowOnApprovalAndThePage(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	adminRule, err := e.Admin.CreateRule(ctx, &hitl.RuleRequest{Template: "restart", ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	ada := e.browser()
	ada.signIn(e.responderToken)

	inq := e.askScale(hitl.DecisionApprove, hitl.DecisionReject)
	path := fmt.Sprintf("/inquiries/%d", inq.ID)
	form := ada.get(path)
	if !strings.Contains(form.body, `name="allow_for"`) || !strings.Contains(form.body, `value="any"`) {
		t.Fatalf("the approval form does not offer to allow: %.5000s", form.body)
	}
	res := ada.post(path, url.Values{"csrf": {form.csrf()}, "decision": {"reject"}, "message": {"no"}, "allow_for": {"8h"}, "allow_args": {"exact"}})
	if res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, "only an approval makes a standing approval") || !strings.Contains(res.body, `id="allow-for-error"`) {
		t.Fatalf("a rejection with allow_for: %d %.5000s", res.status, res.body)
	}
	if got := e.inquiry(inq.ID); got.Status != hitl.StatusPending {
		t.Fatalf("the refused answer counted: %+v", got)
	}
	res = ada.post(path, url.Values{"csrf": {form.csrf()}, "decision": {"approve"}, "allow_for": {"8h"}, "allow_args": {"exact"}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("approve and allow: %d %.5000s", res.status, res.body)
	}
	again := e.askScale(hitl.DecisionApprove, hitl.DecisionReject)
	if again.Status != hitl.StatusResponded || again.Rule == nil || again.Rule.Author != "ada" {
		t.Fatalf("the same call again was not approved by ada's rule: %+v", again)
	}
	adaRule := again.Rule.ID

	e.key("bob", hitl.RoleResponder)
	vote := e.ask(&hitl.InquiryRequest{Prompt: "Scale the api?", RequestType: hitl.RequestApproval,
		ToolCall:   &hitl.ToolCall{ID: "call_10", Name: "scale", Arguments: json.RawMessage(`{"service":"db"}`)},
		AssignedTo: []string{"ada", "bob"}, Quorum: &hitl.Quorum{Required: 2}})
	if page := ada.get(fmt.Sprintf("/inquiries/%d", vote.ID)); page.status != http.StatusOK || !strings.Contains(page.body, `id="answer-form"`) || strings.Contains(page.body, `name="allow_for"`) {
		t.Fatalf("a vote offers to allow: %d %.5000s", page.status, page.body)
	}

	// ada sees her rule only; the admin sees both, newest first unless asked otherwise.
	page := ada.get("/rules")
	if page.status != http.StatusOK || !strings.Contains(page.body, adaRule) || strings.Contains(page.body, adminRule.ID) ||
		!strings.Contains(page.body, `exactly <code>{&#34;region&#34;:&#34;eu&#34;,&#34;replicas&#34;:3,&#34;service&#34;:&#34;api&#34;}</code>`) {
		t.Fatalf("ada's rules page: %d %.5000s", page.status, page.body)
	}
	admin := e.browser()
	admin.signIn(adminToken)
	all := admin.get("/rules")
	if i, j := strings.Index(all.body, adaRule), strings.Index(all.body, adminRule.ID); i < 0 || j < 0 || i > j {
		t.Fatalf("the admin's page, newest first: %.5000s", all.body)
	}
	oldest := admin.get("/rules?order=oldest")
	if i, j := strings.Index(oldest.body, adaRule), strings.Index(oldest.body, adminRule.ID); i < 0 || j < 0 || i < j {
		t.Fatalf("the admin's page, oldest first: %.5000s", oldest.body)
	}

	revoke := "/rules/" + adaRule + "/revoke"
	if res := ada.post(revoke, url.Values{}); res.status != http.StatusForbidden {
		t.Fatalf("revoke without the CSRF token: %d %.2000s", res.status, res.body)
	}
	if res := ada.post("/rules/"+adminRule.ID+"/revoke", url.Values{"csrf": {page.csrf()}}); res.status != http.StatusNotFound {
		t.Fatalf("ada revoking the admin's rule: %d %.2000s", res.status, res.body)
	}
	res = ada.post(revoke, url.Values{"csrf": {page.csrf()}})
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/rules?revoked="+adaRule {
		t.Fatalf("revoke: %d %v %.2000s", res.status, res.header, res.body)
	}
	if page := ada.get(res.header.Get("Location")); !strings.Contains(page.body, "Rule "+adaRule+" is revoked") || !strings.Contains(page.body, "revoked by ada") {
		t.Fatalf("after revoking: %.5000s", page.body)
	}
	if res := ada.post(revoke, url.Values{"csrf": {page.csrf()}}); res.status != http.StatusConflict || !strings.Contains(res.body, "is already revoked") {
		t.Fatalf("revoking twice: %d %.2000s", res.status, res.body)
	}
	if third := e.askScale(hitl.DecisionApprove, hitl.DecisionReject); third.Status != hitl.StatusPending {
		t.Fatalf("a revoked rule approved: %+v", third)
	}
}
