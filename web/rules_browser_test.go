package web_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
)

// In a real browser: ada approves a tool call "and allows this for 8 hours"; the next identical
// call comes back approved by her rule, which she then finds on the Rules page and revokes.
func TestRulesInTheBrowser(t *testing.T) {
	e := start(t)
	ada := newBrowser(t)
	signInWithForm(t, ada, e.URL, e.responderToken)
	inq := e.askScale(hitl.DecisionApprove, hitl.DecisionReject)
	do(t, ada,
		chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID)),
		chromedp.WaitVisible(chromedp.CSS("#allow-for")),
		chromedp.Click(chromedp.CSS(`input[name="decision"][value="approve"]`)),
		chromedp.SetValue(chromedp.CSS("#allow-for"), "8h"),
		chromedp.Click(chromedp.CSS("#allow-exact")),
		chromedp.Click(chromedp.CSS("#send-decision")),
		chromedp.WaitVisible(chromedp.CSS(".outcome")),
	)
	again := e.askScale(hitl.DecisionApprove, hitl.DecisionReject)
	if again.Status != hitl.StatusResponded || again.Rule == nil || again.Rule.Author != "ada" {
		t.Fatalf("the same call again was not approved by ada's rule: %+v", again)
	}
	row := "#" + again.Rule.ID
	do(t, ada,
		chromedp.Click(chromedp.CSS("#nav-rules")),
		chromedp.WaitVisible(chromedp.CSS(row)),
	)
	waitText(t, ada, row, "tool scale")
	waitText(t, ada, row, "approved 1 here")
	do(t, ada,
		chromedp.Click(chromedp.CSS("#revoke-"+again.Rule.ID)),
		chromedp.WaitVisible(chromedp.CSS("#rules-notice")),
	)
	waitText(t, ada, "#rules-notice", "Rule "+again.Rule.ID+" is revoked")
	waitText(t, ada, row+" .state", "revoked by ada")
	if third := e.askScale(hitl.DecisionApprove, hitl.DecisionReject); third.Status != hitl.StatusPending {
		t.Fatalf("a revoked rule approved: %+v", third)
	}
}
