package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// contains fails the test unless the page's text holds each of want.
func (p response) contains(t *testing.T, what string, want ...string) {
	t.Helper()
	text := html.UnescapeString(p.body)
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s: no %q on the page (%d):\n%s", what, w, p.status, p.body)
		}
	}
}

func (p response) lacks(t *testing.T, what string, unwanted ...string) {
	t.Helper()
	for _, u := range unwanted {
		if strings.Contains(html.UnescapeString(p.body), u) {
			t.Errorf("%s: %q on the page", what, u)
		}
	}
}

// Separation of duties: the person who asked sees why they cannot vote, not a form that would
// fail; a vote already cast shows instead of the form, and a stale form that changes it is
// refused in words.
func TestVotePagesSayWhoMayVote(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	asker, askerTok := e.keyToken("asker", hitl.RoleAgent, hitl.RoleResponder)
	alice, aliceTok := e.keyToken("alice", hitl.RoleResponder)
	inq, _, err := asker.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Grant asker production access?", RequestType: hitl.RequestApproval,
		AssignedTo: []string{"asker", "alice", "ada"}, Quorum: &hitl.Quorum{Required: 2, Reject: hitl.RejectRule{Majority: true}}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/inquiries/%d", inq.ID)

	b := e.browser()
	b.signIn(askerTok)
	page := b.get(path)
	page.contains(t, "the asker's page", "You cannot answer this inquiry: asker asked inquiry",
		"separation of duties keeps the one who asks from answering it", "0 of 2 approvals",
		"rejected on rejections from a majority of those who may vote")
	page.lacks(t, "the asker's page", `id="answer-form"`, `id="claim-button"`)

	if _, err := alice.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "fine by me"); err != nil {
		t.Fatal(err)
	}
	b = e.browser()
	b.signIn(aliceTok)
	page = b.get(path)
	page.contains(t, "alice's page after her vote", "You approved at", "fine by me", "the inquiry waits for the others: 1 of 2 approvals")
	page.lacks(t, "alice's page after her vote", `id="answer-form"`)
	// A form opened before the vote, sent again with the other choice.
	res := b.post(path, url.Values{"csrf": {page.csrf()}, "approved": {"false"}})
	if res.status != http.StatusConflict {
		t.Fatalf("a changed vote: %d", res.status)
	}
	res.contains(t, "a changed vote", "Your answer was not recorded: alice already approved inquiry", "a vote cannot be changed")
	// Quorums take no claims: the button is not offered, and the route says why.
	res = b.post(path+"/claim", url.Values{"csrf": {page.csrf()}})
	if res.status != http.StatusBadRequest {
		t.Fatalf("a claim of a quorum: %d", res.status)
	}
	res.contains(t, "a claim of a quorum", "You did not claim it: inquiry", "is decided by votes")
	if got := e.inquiry(inq.ID); got.Status != hitl.StatusPending || len(got.Votes) != 1 {
		t.Fatalf("after the refused changes: %s with %d votes", got.Status, len(got.Votes))
	}

	// The list says where the vote stands.
	list := b.get("/?tab=mine")
	list.contains(t, "alice's list", `<span class="progress">1 of 2 approvals</span>`)
}

// A session's timeline tells votes, the steps of a chain and claims in words.
func TestTimelineTellsVotesStepsAndClaims(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	sam, _ := e.Key(hitl.KeyRequest{Name: "sam", Roles: []string{hitl.RoleResponder}, Groups: []string{"sre"}})
	e.Key(hitl.KeyRequest{Name: "fay", Roles: []string{hitl.RoleResponder}, Groups: []string{"finance"}})
	if _, err := e.agent.PutSession(ctx, "capex-7", &hitl.SessionRequest{Agent: "deploy-bot"}); err != nil {
		t.Fatal(err)
	}
	quorum := e.ask(&hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval, Session: "capex-7",
		AssignedTo: []string{"sam", "ada"}, Quorum: &hitl.Quorum{Required: 2}})
	chain := e.ask(&hitl.InquiryRequest{Prompt: "Buy servers?", RequestType: hitl.RequestApproval, Session: "capex-7",
		Steps: []hitl.ApprovalStep{{AssignedTo: []string{"group:sre"}}, {AssignedTo: []string{"group:finance"}}}})
	single := e.ask(&hitl.InquiryRequest{Prompt: "Which rack?", Session: "capex-7"})
	for _, id := range []int64{quorum.ID, chain.ID} {
		if _, err := sam.Respond(ctx, id, json.RawMessage(`{"approved":true}`), ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.responder.Claim(ctx, single.ID, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := e.responder.Release(ctx, single.ID); err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	b.signIn(adminToken)
	b.get("/sessions/capex-7").contains(t, "the timeline", "sam</strong> approved", "“Ship?”</a>: 1 of 2 approvals",
		"“Buy servers?”</a> approved: step 2 of 2 now waits for the group finance",
		"ada</strong> claimed", "“Which rack?”</a> to answer it", "The claim on")
}

// Claims on the page: the holder, the others and an admin each see the claim in words and the
// button they may use; the admin breaks it; a release by someone else is refused in words.
func TestClaimOnThePage(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	alice, _ := e.keyToken("alice", hitl.RoleResponder)
	_, bobTok := e.keyToken("bob", hitl.RoleResponder)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Which region fails over?", Options: []hitl.Option{{Value: "eu"}, {Value: "us"}},
		AssignedTo: []string{"alice", "bob"}})
	path := fmt.Sprintf("/inquiries/%d", inq.ID)
	if _, err := alice.Claim(ctx, inq.ID, 10*time.Minute); err != nil {
		t.Fatal(err)
	}

	bob := e.browser()
	bob.signIn(bobTok)
	page := bob.get(path)
	page.contains(t, "bob's page", "This inquiry is claimed by alice until", "only alice may answer it until then")
	page.lacks(t, "bob's page", `id="claim-button"`, `id="release-button"`, `id="break-claim"`)
	list := bob.get("/?tab=mine")
	list.contains(t, "bob's list", `<span class="claimed">claimed by alice until`)
	res := bob.post(path+"/release", url.Values{"csrf": {page.csrf()}})
	if res.status != http.StatusForbidden {
		t.Fatalf("bob releases alice's claim: %d", res.status)
	}
	res.contains(t, "bob releases alice's claim", "The claim was not released: inquiry", "only alice or an admin may release it")
	res = bob.post(path, url.Values{"csrf": {page.csrf()}, "answer": {"us"}, "comment": {"us is quieter"}})
	if res.status != http.StatusConflict {
		t.Fatalf("bob answers while alice holds the claim: %d", res.status)
	}
	res.contains(t, "bob answers while alice holds the claim", "Your answer was not recorded: inquiry", "claimed by alice until",
		`value="us" required checked`, "us is quieter") // what he entered is still there

	admin := e.browser()
	admin.signIn(adminToken)
	page = admin.get(path)
	page.contains(t, "the admin's page", `id="break-claim"`, "claimed by alice until")
	if res := admin.post(path+"/release", url.Values{"csrf": {page.csrf()}}); res.status != http.StatusSeeOther {
		t.Fatalf("the admin breaks the claim: %d %s", res.status, res.body)
	}
	if got := e.inquiry(inq.ID); got.Claim != nil {
		t.Fatalf("the claim is still there: %+v", got.Claim)
	}
	page = bob.get(path)
	page.contains(t, "bob's page after the break", `id="claim-button"`)
	page.lacks(t, "bob's page after the break", "claimed by")
	if res := bob.post(path+"/claim", url.Values{"csrf": {page.csrf()}}); res.status != http.StatusSeeOther {
		t.Fatalf("bob claims: %d %s", res.status, res.body)
	}
	bob.get(path).contains(t, "bob's page once he holds it", `id="release-button"`, "claimed by bob until", "nobody else may answer it until then")
}

// A chain that its first step rejects ends there: the page says so, and the later step was
// never reached. A vote through an answer link is thanked as a vote, and the link's page then
// shows it instead of the form.
func TestChainRejectedAndVoteByLink(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	sam, samTok := e.Key(hitl.KeyRequest{Name: "sam", Roles: []string{hitl.RoleResponder}, Groups: []string{"sre"}})
	chain := e.ask(&hitl.InquiryRequest{Prompt: "Buy servers?", RequestType: hitl.RequestApproval,
		Steps: []hitl.ApprovalStep{{AssignedTo: []string{"group:sre"}}, {AssignedTo: []string{"group:finance"}}}})
	if _, err := sam.Respond(ctx, chain.ID, json.RawMessage(`{"approved":false}`), "no budget"); err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	b.signIn(samTok)
	b.get(fmt.Sprintf("/inquiries/%d", chain.ID)).contains(t, "the rejected chain", `class="step step-rejected"`,
		"✕ Rejected</span>: the chain ended here", "sam</strong> <span class=\"vote vote-reject\">rejected", "no budget",
		`class="step step-waiting"`, "Not reached")

	quorum := e.ask(&hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval,
		AssignedTo: []string{"grace", "ada"}, Quorum: &hitl.Quorum{Required: 2}})
	e.key("grace", hitl.RoleResponder) // hitl knows the link's person
	link, err := e.Admin.CreateAnswerLink(ctx, quorum.ID, &hitl.AnswerLinkRequest{For: "grace"})
	if err != nil {
		t.Fatal(err)
	}
	path := strings.TrimPrefix(link.URL, e.URL)
	visitor := e.browser()
	page := visitor.get(path)
	res := visitor.post(path, url.Values{"csrf": {page.csrf()}, "approved": {"true"}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("the vote by link: %d %s", res.status, res.body)
	}
	done := visitor.get(res.header.Get("Location"))
	done.contains(t, "the link's page after the vote", "Thank you — your vote was recorded.", "You approved at", "1 of 2 approvals")
	done.lacks(t, "the link's page after the vote", `id="answer-form"`)
}

// The inquiry page offers Decline to the person asked unless the agent said no
// (cancellable_by_responder false): an inquiry asked without the field is declinable, and a
// forged decline of one that is not is refused in words, with nothing recorded.
func TestDeclineFormUnlessTheAgentSaidNo(t *testing.T) {
	e := start(t)
	b := e.browser()
	b.signIn(e.responderToken)
	asked := e.ask(&hitl.InquiryRequest{Prompt: "Book the hall?", Session: "run-1"})
	kept := e.ask(&hitl.InquiryRequest{Prompt: "Book the garden?", Session: "run-2", CancellableByResponder: new(false)})

	page := b.get(fmt.Sprintf("/inquiries/%d", kept.ID))
	page.lacks(t, "an inquiry the agent kept to answers", `id="decline"`)
	res := b.post(fmt.Sprintf("/inquiries/%d/decline", kept.ID), url.Values{"csrf": {page.csrf()}, "reason": {"no"}})
	if res.status != http.StatusUnprocessableEntity {
		t.Fatalf("a forged decline: %d", res.status)
	}
	res.contains(t, "a forged decline", fmt.Sprintf("You did not decline: inquiry %d may not be declined: the agent that asked set cancellable_by_responder to false", kept.ID))
	if got := e.inquiry(kept.ID); got.Status != hitl.StatusPending {
		t.Fatalf("after a forged decline: %s", got.Status)
	}

	page = b.get(fmt.Sprintf("/inquiries/%d", asked.ID))
	page.contains(t, "an inquiry asked without cancellable_by_responder", `id="decline"`)
	if res := b.post(fmt.Sprintf("/inquiries/%d/decline", asked.ID), url.Values{"csrf": {page.csrf()}, "reason": {"not mine"}}); res.status != http.StatusSeeOther {
		t.Fatalf("decline: %d %s", res.status, res.body)
	}
	if got := e.inquiry(asked.ID); got.Status != hitl.StatusCancelled || got.DeclinedBy == nil || *got.DeclinedBy != "ada" {
		t.Fatalf("declined: %s %v", got.Status, got.DeclinedBy)
	}
}
