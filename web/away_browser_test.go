package web_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
)

// In a real browser: ada opens the away page from the header, sets bob as her delegate; bob,
// signed in elsewhere, finds ada's question in his inbox marked for her, answers it, and the
// page says "bob for ada".
func TestAwayInTheBrowser(t *testing.T) {
	e := start(t)
	_, bobToken := e.keyToken("bob", hitl.RoleResponder)
	ada := newBrowser(t)
	signInWithForm(t, ada, e.URL, e.responderToken)
	from := time.Now().UTC().Add(-time.Hour).Format("2006-01-02T15:04")
	until := time.Now().UTC().Add(48 * time.Hour).Format("2006-01-02T15:04")
	do(t, ada,
		chromedp.Click(chromedp.CSS("#nav-away")),
		chromedp.WaitVisible(chromedp.CSS("#set-absence")),
		chromedp.SetValue(chromedp.CSS("#from"), from),
		chromedp.SetValue(chromedp.CSS("#until"), until),
		chromedp.SendKeys(chromedp.CSS("#delegate"), "bob"),
		chromedp.Click(chromedp.CSS("#set-absence")),
		chromedp.WaitVisible(chromedp.CSS("#end-absence")),
	)
	waitText(t, ada, "#absence", "bob answers in ada's place")

	inq := e.ask(&hitl.InquiryRequest{Prompt: "Renew the TLS certificate?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})
	bob := newTab(t, ada, true)
	signInWithForm(t, bob, e.URL, bobToken)
	row := fmt.Sprintf("#inquiry-%d", inq.ID)
	waitText(t, bob, row, "you answer for ada, who is away")
	do(t, bob, chromedp.Click(chromedp.CSS(row+" .prompt")), chromedp.WaitVisible(chromedp.CSS("#answer-form")))
	waitText(t, bob, "#for-whom", "You answer for ada, who is away")
	do(t, bob, chromedp.Click(chromedp.CSS("button.approve")), chromedp.WaitVisible(chromedp.CSS(".outcome")))
	waitText(t, bob, "#state", "bob for ada")
	if got := e.inquiry(inq.ID); got.OnBehalfOf == nil || *got.OnBehalfOf != "ada" {
		t.Fatalf("stored %+v", got)
	}
}
