package web_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
)

const scaleParams = `{"type":"object","required":["service","replicas"],"properties":{
	"service":{"title":"Service","type":"string","maxLength":50},
	"replicas":{"title":"Replicas","type":"integer","minimum":1,"maximum":10},
	"region":{"title":"Region","enum":["eu","us"]}}}`

func (e *env) askScale(decisions ...hitl.Decision) *hitl.Inquiry {
	e.t.Helper()
	return e.ask(&hitl.InquiryRequest{Prompt: "Scale the api?", RequestType: hitl.RequestApproval,
		ToolCall: &hitl.ToolCall{ID: "call_9", Name: "scale", Arguments: json.RawMessage(`{"service":"api","replicas":3,"region":"eu"}`),
			ParametersSchema: json.RawMessage(scaleParams)}, AllowedDecisions: decisions})
}

// TestDecisionFormWithoutAScript: the page offers the allowed decisions, the argument fields
// start from the proposed arguments, "Show my changes" shows the diff without sending, an edit
// that does not fit is shown beside its field, and the answered view keeps the diff.
func TestDecisionFormWithoutAScript(t *testing.T) {
	e := start(t)
	b := e.browser()
	b.signIn(e.responderToken)
	inq := e.askScale(hitl.DecisionApprove, hitl.DecisionEdit, hitl.DecisionReject)
	path := fmt.Sprintf("/inquiries/%d", inq.ID)
	page := b.get(path)
	body := html.UnescapeString(page.body)
	for _, want := range []string{`value="approve"`, `value="edit"`, `value="reject"`, `name="answer/replicas"`, `value="3"`, "None yet."} {
		if !strings.Contains(body, want) {
			t.Fatalf("the form lacks %s", want)
		}
	}
	if strings.Contains(body, `value="respond"`) {
		t.Fatal("respond is offered, but not allowed")
	}
	csrf := page.csrf()
	edit := url.Values{"csrf": {csrf}, "decision": {"edit"}, "answer/service": {"api"}, "answer/replicas": {"5"}, "answer/region": {"eu"}}

	preview := edit
	preview.Set("preview", "1")
	res := b.post(path, preview)
	if res.status != http.StatusOK || !strings.Contains(html.UnescapeString(res.body), "<code>/replicas</code>: <del>3</del> → <ins>5</ins>") {
		t.Fatalf("preview: %d %s", res.status, res.body)
	}
	if e.inquiry(inq.ID).Status != hitl.StatusPending {
		t.Fatal("the preview answered")
	}

	edit.Del("preview")
	edit.Set("answer/replicas", "50")
	res = b.post(path, edit)
	if field := html.UnescapeString(fieldHTML(t, res.body, "answer/replicas")); res.status != http.StatusUnprocessableEntity || !strings.Contains(field, "must be at most 10") {
		t.Fatalf("an edit that does not fit: %d %s", res.status, field)
	}
	if res := b.post(path, url.Values{"csrf": {csrf}}); res.status != http.StatusUnprocessableEntity || !strings.Contains(res.body, "choose what to do") {
		t.Fatalf("no decision: %d", res.status)
	}

	edit.Set("answer/replicas", "5")
	if res := b.post(path, edit); res.status != http.StatusOK && res.status != http.StatusSeeOther {
		t.Fatalf("the edit: %d %s", res.status, res.body)
	}
	got := e.inquiry(inq.ID)
	mustJSON(t, got.Response, `{"decision":"edit","args":{"service":"api","replicas":5,"region":"eu"}}`)
	answered := html.UnescapeString(b.get(path).body)
	if !strings.Contains(answered, "Edited: run scale with") || !strings.Contains(answered, "<code>/replicas</code>: <del>3</del> → <ins>5</ins>") {
		t.Fatalf("the answered view: %s", answered)
	}

	// Reject with a reason; the tool result says not to run it.
	rejected := e.askScale(hitl.DecisionApprove, hitl.DecisionReject)
	rpath := fmt.Sprintf("/inquiries/%d", rejected.ID)
	if res := b.post(rpath, url.Values{"csrf": {b.get(rpath).csrf()}, "decision": {"reject"}, "message": {"not now"}}); res.status >= 400 {
		t.Fatalf("reject: %d", res.status)
	}
	if tr := e.inquiry(rejected.ID).ToolResult; tr == nil || tr.Decision != hitl.DecisionReject || *tr.Run || tr.Message != "not now" {
		t.Fatalf("rejected: %+v", tr)
	}
}

// TestDecisionEditInABrowser: in Chromium, changing a field shows the diff at once and ticks
// Edit; sending records the edited arguments in the response and the tool result.
func TestDecisionEditInABrowser(t *testing.T) {
	e := start(t)
	ctx := newBrowser(t)
	shots := screenshotDir(t)
	inq := e.askScale(hitl.DecisionApprove, hitl.DecisionEdit, hitl.DecisionReject, hitl.DecisionRespond)
	signInWithForm(t, ctx, e.URL, e.responderToken)
	do(t, ctx,
		chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID)),
		chromedp.WaitVisible(chromedp.CSS(`input[name="answer/replicas"]`)),
	)
	if v := get(t, ctx, chromedp.Evaluate[string](`document.querySelector('[name="answer/replicas"]').value`)); v != "3" {
		t.Fatalf("replicas start at %q, want the proposed 3", v)
	}
	if hidden := get(t, ctx, chromedp.Evaluate[bool](`document.getElementById('show-changes').hidden`)); !hidden {
		t.Fatal("the script leaves the no-script button shown")
	}
	do(t, ctx,
		chromedp.SetValue(chromedp.CSS(`input[name="answer/replicas"]`), ""),
		chromedp.SendKeys(chromedp.CSS(`input[name="answer/replicas"]`), "7"),
		chromedp.Click(chromedp.CSS(`input[name="answer/region"][value="us"]`)),
	)
	waitText(t, ctx, "#args-changes", "/replicas: 3 → 7")
	diff := text(t, ctx, "#args-changes")
	if !strings.Contains(diff, "/region: eu → us") {
		t.Fatalf("the diff shows %q", diff)
	}
	if checked := get(t, ctx, chromedp.Evaluate[bool](`document.querySelector('input[name="decision"][value="edit"]').checked`)); !checked {
		t.Fatal("changing an argument did not tick Edit")
	}
	screenshot(t, ctx, shots, "decision-edit.png")
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`#send-decision`)),
		chromedp.WaitVisible(chromedp.CSS(".outcome")),
	)
	waitText(t, ctx, ".answer-text", "Edited: run scale with")
	waitText(t, ctx, "#args-changes", "/replicas: 3 → 7") // the answered view keeps the diff
	got := e.inquiry(inq.ID)
	mustJSON(t, got.Response, `{"decision":"edit","args":{"service":"api","replicas":7,"region":"us"}}`)
	if tr := got.ToolResult; tr == nil || !*tr.Run || tr.Decision != hitl.DecisionEdit || !strings.Contains(tr.Content, `"replicas":7`) {
		t.Fatalf("tool result %+v", tr)
	}
	mustJSON(t, got.ToolResult.Arguments, `{"service":"api","replicas":7,"region":"us"}`)
	screenshot(t, ctx, shots, "decision-edited.png")
}
