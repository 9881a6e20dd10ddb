package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
)

// "Approve selected" in a real browser: two of three pending approvals are ticked (the ticks
// survive a live refresh of the list) and approved; the third is still pending.
func TestApproveSelectedInABrowser(t *testing.T) {
	e := start(t)
	ctx := newBrowser(t)
	shots := screenshotDir(t)
	first := e.ask(&hitl.InquiryRequest{Prompt: "Deploy api v2.5 to production?", RequestType: hitl.RequestApproval, Session: "train-42"})
	second := e.ask(&hitl.InquiryRequest{Prompt: "Deploy web v7.1 to production?", RequestType: hitl.RequestApproval, Session: "train-42"})
	third := e.ask(&hitl.InquiryRequest{Prompt: "Deploy billing v3.0 to production?", RequestType: hitl.RequestApproval, Session: "train-42"})
	signInWithForm(t, ctx, e.URL, e.responderToken)
	do(t, ctx,
		chromedp.Navigate(e.URL+"/?tab=pending"),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf("#select-%d", third.ID))),
	)
	waitText(t, ctx, "#live", "Live")
	do(t, ctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf("#select-%d", first.ID))),
		chromedp.Click(chromedp.CSS(fmt.Sprintf("#select-%d", third.ID))),
	)
	// A new question refreshes the list while the person is choosing: the ticks stay.
	text := e.ask(&hitl.InquiryRequest{Prompt: "Which region first?"})
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf("#inquiry-%d", text.ID))))
	if n := get(t, ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('#inquiry-%d input.select').length`, text.ID))); n != 0 {
		t.Errorf("a question that is not an approval can be ticked")
	}
	ticked := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('input.select:checked')].map(c => c.value)`))
	if strings.Join(ticked, ",") != fmt.Sprintf("%d,%d", third.ID, first.ID) {
		t.Fatalf("ticked after the live refresh: %v", ticked)
	}
	screenshot(t, ctx, shots, "approve-selected.png")
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS("#bulk-comment"), "release train 42"),
		chromedp.Click(chromedp.CSS("#approve-selected")),
		chromedp.WaitVisible(chromedp.CSS("#summary")),
	)
	waitText(t, ctx, "#summary", "Approved 2 of 2")
	waitText(t, ctx, fmt.Sprintf("#result-%d", first.ID), "Approved.")
	waitText(t, ctx, fmt.Sprintf("#result-%d", third.ID), third.Prompt)
	screenshot(t, ctx, shots, "approve-selected-results.png")
	for _, inq := range []*hitl.Inquiry{first, third} {
		got := e.inquiry(inq.ID)
		if got.Status != hitl.StatusResponded || *got.RespondedBy != "ada" || got.Comment == nil || *got.Comment != "release train 42" {
			t.Errorf("inquiry %d: %s by %v", inq.ID, got.Status, got.RespondedBy)
		}
		mustJSON(t, got.Response, `{"approved":true,"comment":"release train 42"}`)
	}
	if got := e.inquiry(second.ID); got.Status != hitl.StatusPending {
		t.Errorf("the inquiry left unticked is %s", got.Status)
	}
}

// The form without a browser: each inquiry's outcome in words, and what the page refuses.
func TestApproveSelectedForm(t *testing.T) {
	e := start(t)
	open := e.ask(&hitl.InquiryRequest{Prompt: "Deploy api?", RequestType: hitl.RequestApproval})
	answered := e.ask(&hitl.InquiryRequest{Prompt: "Deploy web?", RequestType: hitl.RequestApproval})
	if _, err := e.Admin.Respond(context.Background(), answered.ID, json.RawMessage(`{"approved":false}`), ""); err != nil {
		t.Fatal(err)
	}
	forBob := e.ask(&hitl.InquiryRequest{Prompt: "Deploy billing?", RequestType: hitl.RequestApproval, AssignedTo: hitl.Assignees{"bob"}})
	b := e.browser()
	b.signIn(e.responderToken)
	inbox := b.get("/?tab=pending")
	if !strings.Contains(inbox.body, fmt.Sprintf(`id="select-%d"`, open.ID)) || strings.Contains(inbox.body, fmt.Sprintf(`id="select-%d"`, answered.ID)) {
		t.Fatalf("the inbox offers the wrong inquiries to tick: %s", inbox.body)
	}
	csrf := inbox.csrf()

	res := b.post("/inquiries/approve", url.Values{"csrf": {csrf}, "id": {fmt.Sprint(answered.ID), fmt.Sprint(open.ID), fmt.Sprint(forBob.ID)}})
	if res.status != http.StatusOK || !strings.Contains(res.body, "Approved 1 of 3") ||
		!strings.Contains(res.body, fmt.Sprintf("Not approved: inquiry %d is already answered", answered.ID)) ||
		!strings.Contains(res.body, fmt.Sprintf("Not approved: inquiry %d not found", forBob.ID)) || strings.Contains(res.body, "Deploy billing") {
		t.Fatalf("mixed results: %d %s", res.status, res.body)
	}
	if got := e.inquiry(open.ID); got.Status != hitl.StatusResponded {
		t.Errorf("the open inquiry is %s", got.Status)
	}
	if got := e.inquiry(forBob.ID); got.Status != hitl.StatusPending {
		t.Errorf("bob's inquiry is %s", got.Status)
	}
	// A quorum's approval is a vote: recorded, and said so, with where the quorum stands.
	quorum := e.ask(&hitl.InquiryRequest{Prompt: "Drop the table?", RequestType: hitl.RequestApproval, Quorum: &hitl.Quorum{Required: 2}})
	res = b.post("/inquiries/approve", url.Values{"csrf": {csrf}, "id": {fmt.Sprint(quorum.ID)}})
	if res.status != http.StatusOK || !strings.Contains(res.body, "Your approval is recorded; the inquiry waits for the others: 1 of 2 approvals") {
		t.Fatalf("a vote by Approve selected: %d %s", res.status, res.body)
	}

	for name, c := range map[string]struct {
		form   url.Values
		status int
		says   string
	}{
		"nothing ticked":     {url.Values{"csrf": {csrf}}, 400, "Nothing was selected"},
		"not an id":          {url.Values{"csrf": {csrf}, "id": {"x"}}, 400, "could not be read"},
		"ticked twice":       {url.Values{"csrf": {csrf}, "id": {fmt.Sprint(open.ID), fmt.Sprint(open.ID)}}, 400, "listed twice"},
		"without CSRF token": {url.Values{"id": {fmt.Sprint(forBob.ID)}}, 403, "did not come from this site"},
	} {
		if res := b.post("/inquiries/approve", c.form); res.status != c.status || !strings.Contains(res.body, c.says) {
			t.Errorf("%s: %d %s", name, res.status, res.body)
		}
	}
	// Agents have no such form.
	agent := e.browser()
	_, agentTok := e.keyToken("bot", hitl.RoleAgent)
	agent.signIn(agentTok)
	if page := agent.get("/?tab=pending"); strings.Contains(page.body, "approve-selected") {
		t.Errorf("an agent is offered Approve selected")
	}
}
