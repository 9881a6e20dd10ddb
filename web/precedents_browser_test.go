package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
)

// In a real browser: the answer form of a tool call shows how the same call (the same tool,
// arguments with the same names) was decided before: the decision, who, and their comment,
// and links to it; a call of another shape is not shown.
func TestPrecedentsOnTheAnswerForm(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	call := func(prompt, args string) *hitl.InquiryRequest {
		return &hitl.InquiryRequest{Prompt: prompt, RequestType: hitl.RequestApproval,
			ToolCall:         &hitl.ToolCall{ID: "c", Name: "restart_service", Arguments: json.RawMessage(args)},
			AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionReject}}
	}
	before := e.ask(call("Restart billing?", `{"service":"billing","force":false}`))
	if _, err := e.responder.Respond(ctx, before.ID, json.RawMessage(`{"decision":"reject","message":"month end"}`), "never during the month-end run"); err != nil {
		t.Fatal(err)
	}
	otherShape := e.ask(call("Restart billing now?", `{"service":"billing"}`))
	if _, err := e.responder.Respond(ctx, otherShape.ID, json.RawMessage(`{"decision":"approve"}`), ""); err != nil {
		t.Fatal(err)
	}
	now := e.ask(call("Restart search?", `{"force":true,"service":"search"}`))

	b := newBrowser(t)
	signInWithForm(t, b, e.URL, e.responderToken)
	do(t, b, chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, now.ID)), chromedp.WaitVisible(chromedp.CSS("#answer-form")),
		chromedp.WaitVisible(chromedp.CSS("#precedents")))
	got := text(t, b, "#precedents")
	for _, want := range []string{"Answered before", "Restart billing?", "reject", "ada", "never during the month-end run"} {
		if !strings.Contains(got, want) {
			t.Errorf("precedents %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "Restart billing now?") {
		t.Errorf("a call of another shape is shown: %q", got)
	}
	if n := get(t, b, chromedp.Evaluate[int](`document.querySelectorAll("#precedents li.precedent").length`)); n != 1 {
		t.Fatalf("%d precedents shown", n)
	}
	do(t, b, chromedp.Click(chromedp.CSS("#precedents a")), chromedp.WaitVisible(chromedp.CSS(".outcome")))
	waitText(t, b, "#state", "ada")
}
