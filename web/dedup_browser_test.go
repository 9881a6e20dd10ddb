package web_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// TestDedupInABrowser: three agents ask one question with one key; the inbox lists it once,
// its page says three agents wait for the answer; when the first asker withdraws, the next
// asker's inquiry appears in the inbox without a reload, and its page says two wait.
func TestDedupInABrowser(t *testing.T) {
	e := start(t)
	ctx := newBrowser(t)
	req := hitl.InquiryRequest{Prompt: "Roll back release 41?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}, DedupKey: "rollback-41"}
	var askers []*hitl.Inquiry
	var bots []*client.Client
	for i := range 3 {
		bot := e.key(fmt.Sprintf("worker-%d", i), hitl.RoleAgent)
		inq, _, err := bot.CreateInquiry(context.Background(), &req, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		askers, bots = append(askers, inq), append(bots, bot)
	}
	signInWithForm(t, ctx, e.URL, e.responderToken)
	first := fmt.Sprintf("#inquiry-%d", askers[0].ID)
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(first)))
	waitText(t, ctx, `[data-count="mine"]`, "1")
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("[id^=inquiry-]").length`)); n != 1 {
		t.Fatalf("the inbox lists %d rows, want the question once", n)
	}
	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, askers[0].ID)), chromedp.WaitVisible(chromedp.CSS("#askers")))
	if got := text(t, ctx, "#askers"); got != "3 agents are waiting for this answer" {
		t.Fatalf("the page says %q", got)
	}

	do(t, ctx, chromedp.Navigate(e.URL+"/"), chromedp.WaitVisible(chromedp.CSS(first)))
	waitText(t, ctx, "#live", "Live")
	if _, err := bots[0].Cancel(context.Background(), askers[0].ID, "fixed another way"); err != nil {
		t.Fatal(err)
	}
	next := fmt.Sprintf("#inquiry-%d", askers[1].ID)
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(next)))
	do(t, ctx, chromedp.Click(chromedp.CSS(next+" .prompt")), chromedp.WaitVisible(chromedp.CSS("#askers")))
	if got := text(t, ctx, "#askers"); got != "2 agents are waiting for this answer" {
		t.Fatalf("the promoted inquiry's page says %q", got)
	}
}
