package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// TestNovaInABrowser: a page's own JavaScript opens /v1/ws with the inbox's cookie (it cannot
// send a header) and receives Nova's user_prompt; the person declines with the inquiry page's
// Decline button, which fails the agent's session; an answered inquiry's agent resuming shows
// in the session's timeline.
func TestNovaInABrowser(t *testing.T) {
	e := start(t)
	ctx := newBrowser(t)
	ctx0 := context.Background()
	signInWithForm(t, ctx, e.URL, e.responderToken)

	// The page's script: a WebSocket with the cookie, subscribed with Nova's protocol.
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.novaMessages = [];
		const ws = new WebSocket(location.origin.replace(/^http/, "ws") + "/v1/ws");
		ws.onopen = () => ws.send(JSON.stringify({type: "subscribe", protocol: "nova", filters: {session: "thread-9"}}));
		ws.onmessage = (m) => window.novaMessages.push(JSON.parse(m.data));`))
	get(t, ctx, chromedp.Poll[bool](`window.novaMessages.some((m) => m.type === "subscribed")`, chromedp.WithPollingTimeout(15*time.Second)))

	inq := e.ask(&hitl.InquiryRequest{Prompt: "Which room should I book?", Session: "thread-9", Origin: "Calendar agent",
		RequestType: hitl.RequestInput, ResponseSchema: json.RawMessage(`{"type":"string"}`)})
	prompt := get(t, ctx, chromedp.Poll[map[string]any](`window.novaMessages.find((m) => m.type === "user_prompt")`, chromedp.WithPollingTimeout(15*time.Second)))
	if prompt["interaction_id"] != float64(inq.ID) || prompt["question"] != inq.Prompt || prompt["origin_name"] != "Calendar agent" ||
		prompt["thread_id"] != "thread-9" {
		t.Fatalf("user_prompt in the page: %v", prompt)
	}

	// The inquiry page offers Decline; declining fails the session with the reason.
	do(t, ctx,
		chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID)),
		chromedp.WaitVisible(chromedp.CSS("#decline")),
		chromedp.SendKeys(chromedp.CSS("#decline-reason"), "Facilities books rooms, not me"),
		chromedp.Click(chromedp.CSS("#decline")),
		chromedp.WaitVisible(chromedp.CSS(".outcome")),
	)
	waitText(t, ctx, "#state", "Cancelled")
	waitText(t, ctx, "#state", "Facilities books rooms, not me")
	s, err := e.agent.Session(ctx0, "thread-9")
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != hitl.SessionFailed || s.Error == nil || *s.Error != "Facilities books rooms, not me" {
		t.Fatalf("session after Decline: %s %v", s.Status, s.Error)
	}

	// With cancellable_by_responder false there is no Decline button; the agent's wait on the
	// answer then shows in the timeline as its resumption.
	plain := e.ask(&hitl.InquiryRequest{Prompt: "Lunch at noon?", Session: "thread-10", RequestType: hitl.RequestApproval,
		CancellableByResponder: new(false)})
	do(t, ctx,
		chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, plain.ID)),
		chromedp.WaitVisible(chromedp.CSS("#answer-form")),
	)
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#decline").length`)); n != 0 {
		t.Fatalf("%d Decline buttons on an inquiry that may not be declined", n)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("button.approve")), chromedp.WaitVisible(chromedp.CSS(".outcome")))
	waitText(t, ctx, "#state", "Approved")
	if got, err := e.agent.Wait(ctx0, plain.ID, 0); err != nil || got.Status != hitl.StatusResponded {
		t.Fatalf("the agent's wait: %v %v", got, err)
	}
	testserver.Eventually(t, 10*time.Second, "inquiry.resumed", func() bool {
		page, err := e.agent.EventPage(ctx0, client.EventOptions{InquiryID: plain.ID, Types: []string{hitl.EventInquiryResumed}})
		return err == nil && len(page.Data) == 1
	})
	do(t, ctx, chromedp.Navigate(e.URL+"/sessions/thread-10"), chromedp.WaitVisible(chromedp.CSS(`.event-inquiry\.resumed`)))
	line := text(t, ctx, `.event-inquiry\.resumed`)
	if !strings.Contains(line, "deploy-bot resumed") || !strings.Contains(line, "after the answer to") || !strings.Contains(line, "Lunch at noon?") {
		t.Fatalf("timeline line: %q", line)
	}
}
