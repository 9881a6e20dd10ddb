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

// person is one signed-in browser context: its own cookies, so its own inbox session.
type person struct {
	name string
	tab  context.Context
}

// signInPeople signs each token in, in a browser context of its own.
func signInPeople(t *testing.T, base string, names []string, tokens []string) []person {
	t.Helper()
	browser := newBrowser(t)
	var out []person
	for i, tok := range tokens {
		tab := browser
		if i > 0 {
			tab = newTab(t, browser, true)
		}
		signInWithForm(t, tab, base, tok)
		out = append(out, person{names[i], tab})
	}
	return out
}

// open shows a page and waits until it follows the live updates.
func (p person) open(t *testing.T, url, visible string) {
	t.Helper()
	do(t, p.tab, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(visible)))
	waitText(t, p.tab, "#live", "Live")
}

// A quorum of two, answered in two browser sessions: the first approval leaves it pending
// with "1 of 2 approvals" on both pages, the voter's page says how they voted instead of the
// form, and the second approval resolves it on both pages, with both votes.
func TestQuorumInTwoBrowsers(t *testing.T) {
	e := start(t)
	shots := screenshotDir(t)
	_, aliceTok := e.keyToken("alice", hitl.RoleResponder)
	_, bobTok := e.keyToken("bob", hitl.RoleResponder)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Rotate the production database credentials?", RequestType: hitl.RequestApproval,
		AssignedTo: []string{"alice", "bob"}, Quorum: &hitl.Quorum{Required: 2}})
	url := fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID)
	people := signInPeople(t, e.URL, []string{"alice", "bob"}, []string{aliceTok, bobTok})
	alice, bob := people[0], people[1]
	for _, p := range people {
		p.open(t, url, "#answer-form")
		waitText(t, p.tab, "#votes", "0 of 2 approvals")
		waitText(t, p.tab, "#votes", "rejected on the first rejection")
	}

	do(t, alice.tab,
		chromedp.SendKeys(chromedp.CSS("#comment"), "Rotation runbook checked"),
		chromedp.Click(chromedp.CSS("button.approve")),
		chromedp.WaitVisible(chromedp.CSS("#my-vote")),
	)
	waitText(t, alice.tab, "#my-vote", "You approved at")
	waitText(t, alice.tab, "#my-vote", "1 of 2 approvals")
	if n := get(t, alice.tab, chromedp.Evaluate[int](`document.querySelectorAll('#answer-form').length`)); n != 0 {
		t.Fatal("the page offers alice a form for a vote she cannot change")
	}
	for _, p := range people {
		waitText(t, p.tab, "#status", "Waiting for an answer")
		waitText(t, p.tab, "#votes", "1 of 2 approvals")
		waitText(t, p.tab, "#votes", "alice approved")
		waitText(t, p.tab, "#votes", "Rotation runbook checked")
	}
	do(t, bob.tab, chromedp.WaitVisible(chromedp.CSS("#answer-form")))
	if got := e.inquiry(inq.ID); got.Status != hitl.StatusPending || len(got.Votes) != 1 {
		t.Fatalf("after the first vote: %s with %d votes", got.Status, len(got.Votes))
	}
	screenshot(t, bob.tab, shots, "quorum-pending.png")

	do(t, bob.tab, chromedp.Click(chromedp.CSS("button.approve")), chromedp.WaitVisible(chromedp.CSS(".outcome")))
	for _, p := range people {
		waitText(t, p.tab, "#status", "Answered")
		waitText(t, p.tab, "#state", "Approved")
		waitText(t, p.tab, "#votes", "2 of 2 approvals")
		waitText(t, p.tab, "#votes", "alice approved")
		waitText(t, p.tab, "#votes", "bob approved")
	}
	got := e.inquiry(inq.ID)
	var outcome hitl.VoteOutcome
	if err := json.Unmarshal(got.Response, &outcome); err != nil || got.Status != hitl.StatusResponded || !outcome.Approved || len(outcome.Votes) != 2 {
		t.Fatalf("after the second vote: %s, %s", got.Status, got.Response)
	}
	screenshot(t, alice.tab, shots, "quorum-approved.png")
}

// A chain from the group sre to the group finance: finance's "Assigned to me" is empty until
// sre approves, then shows it (live), finance approves, and the chain is done.
func TestChainMovesBetweenInboxes(t *testing.T) {
	e := start(t)
	shots := screenshotDir(t)
	_, samTok := e.Key(hitl.KeyRequest{Name: "sam", Roles: []string{hitl.RoleResponder}, Groups: []string{"sre"}})
	_, fayTok := e.Key(hitl.KeyRequest{Name: "fay", Roles: []string{hitl.RoleResponder}, Groups: []string{"finance"}})
	hour := int64(3600)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Buy 40 more build servers?", RequestType: hitl.RequestApproval,
		Steps: []hitl.ApprovalStep{
			{AssignedTo: []string{"group:sre"}, Required: 1},
			{AssignedTo: []string{"group:finance"}, Required: 1, TimeoutSeconds: &hour},
		}})
	row := fmt.Sprintf("#inquiry-%d", inq.ID)
	people := signInPeople(t, e.URL, []string{"sam", "fay"}, []string{samTok, fayTok})
	sam, fay := people[0], people[1]

	fay.open(t, e.URL+"/?tab=mine", "#list")
	if n := get(t, fay.tab, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, row))); n != 0 {
		t.Fatal("finance sees the chain before sre approved it")
	}
	waitText(t, fay.tab, `[data-count="mine"]`, "0")

	sam.open(t, e.URL+"/?tab=mine", row)
	waitText(t, sam.tab, row+" .progress", "step 1 of 2 (the group sre): 0 of 1 approvals")
	do(t, sam.tab, chromedp.Click(chromedp.CSS(row+" .prompt")), chromedp.WaitVisible(chromedp.CSS("#answer-form")))
	waitText(t, sam.tab, ".step-current", "Step 1")
	waitText(t, sam.tab, ".step-current", "0 of 1 approvals so far")
	waitText(t, sam.tab, ".step-waiting", "the group finance")
	screenshot(t, sam.tab, shots, "chain-step1.png")
	do(t, sam.tab, chromedp.SendKeys(chromedp.CSS("#comment"), "capacity plan agrees"),
		chromedp.Click(chromedp.CSS("button.approve")), chromedp.WaitVisible(chromedp.CSS(".step-done")))
	waitText(t, sam.tab, ".step-done", "sam approved")
	waitText(t, sam.tab, ".step-current", "Step 2")

	// Finance's list learns of it without a reload.
	do(t, fay.tab, chromedp.WaitVisible(chromedp.CSS(row)))
	waitText(t, fay.tab, `[data-count="mine"]`, "1")
	waitText(t, fay.tab, row+" .progress", "step 2 of 2 (the group finance)")
	do(t, fay.tab, chromedp.Click(chromedp.CSS(row+" .prompt")), chromedp.WaitVisible(chromedp.CSS("#answer-form")))
	waitText(t, fay.tab, ".step-done", "sam approved")
	waitText(t, fay.tab, ".step-current", "its deadline is")
	screenshot(t, fay.tab, shots, "chain-step2.png")
	do(t, fay.tab, chromedp.Click(chromedp.CSS("button.approve")), chromedp.WaitVisible(chromedp.CSS(".outcome")))
	if n := get(t, fay.tab, chromedp.Evaluate[int](`document.querySelectorAll('.step-done').length`)); n != 2 {
		t.Fatalf("%d steps shown done", n)
	}
	if got := e.inquiry(inq.ID); got.Status != hitl.StatusResponded || len(got.Votes) != 2 {
		t.Fatalf("after finance approved: %s with %d votes", got.Status, len(got.Votes))
	}
	screenshot(t, fay.tab, shots, "chain-done.png")
}

// Claim, then release, in the browser: while alice holds the claim, bob's page says so, and
// his answer is refused in words; once she releases it, his answer counts.
func TestClaimAndReleaseInTheBrowser(t *testing.T) {
	e := start(t)
	shots := screenshotDir(t)
	_, aliceTok := e.keyToken("alice", hitl.RoleResponder)
	_, bobTok := e.keyToken("bob", hitl.RoleResponder)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Restart the payment workers?", RequestType: hitl.RequestApproval, AssignedTo: []string{"alice", "bob"}})
	url := fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID)
	people := signInPeople(t, e.URL, []string{"alice", "bob"}, []string{aliceTok, bobTok})
	alice, bob := people[0], people[1]
	for _, p := range people {
		p.open(t, url, "#claim-button")
	}

	do(t, alice.tab, chromedp.Click(chromedp.CSS("#claim-button")), chromedp.WaitVisible(chromedp.CSS("#release-button")))
	waitText(t, alice.tab, "#claimed-by", "claimed by alice until")
	waitText(t, bob.tab, "#claimed-by", "claimed by alice until") // live
	if n := get(t, bob.tab, chromedp.Evaluate[int](`document.querySelectorAll('#claim-button, #release-button, #break-claim').length`)); n != 0 {
		t.Fatal("bob is offered to claim or release alice's claim")
	}
	screenshot(t, bob.tab, shots, "claimed.png")

	do(t, bob.tab, chromedp.Click(chromedp.CSS("button.approve")), chromedp.WaitVisible(chromedp.CSS(".notice")))
	waitText(t, bob.tab, ".notice", "Your answer was not recorded: inquiry")
	waitText(t, bob.tab, ".notice", "is claimed by alice until")
	if got := e.inquiry(inq.ID); got.Status != hitl.StatusPending {
		t.Fatalf("bob's answer counted while alice held the claim: %s", got.Status)
	}

	do(t, alice.tab, chromedp.Click(chromedp.CSS("#release-button")), chromedp.WaitVisible(chromedp.CSS("#claim-button")))
	do(t, bob.tab, chromedp.WaitVisible(chromedp.CSS("#claim-button"))) // live, on the page that refused his answer
	if s := text(t, bob.tab, "#state"); strings.Contains(s, "claimed by") {
		t.Fatalf("after the release bob's page says %q", s)
	}
	do(t, bob.tab, chromedp.Click(chromedp.CSS("button.approve")), chromedp.WaitVisible(chromedp.CSS(".outcome")))
	waitText(t, alice.tab, "#status", "Answered") // live
	if got := e.inquiry(inq.ID); got.Status != hitl.StatusResponded || *got.RespondedBy != "bob" {
		t.Fatalf("after the release: %s by %v", got.Status, got.RespondedBy)
	}
}
