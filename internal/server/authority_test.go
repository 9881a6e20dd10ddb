package server_test

import (
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// Answering power stays with the people who hold it: answer links are relays, relays name
// people hitl knows who may answer, and nobody who asked carries an answer to their own question.

// answerThroughLink opens an answer link's page and posts its form with the fields given, as
// a browser does; it returns the status of the post.
func answerThroughLink(t *testing.T, e *env, linkURL string, fields url.Values) (int, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	path := strings.TrimPrefix(linkURL, e.URL)
	page := e.doWith(hc, "GET", path, "", "")
	if page.status != http.StatusOK {
		return page.status, page.text
	}
	m := csrfField.FindStringSubmatch(page.text)
	if m == nil {
		t.Fatalf("the link's page has no form: %s", page.text)
	}
	if fields == nil {
		fields = url.Values{}
	}
	fields.Set("csrf", m[1])
	r := e.doWith(hc, "POST", path, "", fields.Encode(), "Content-Type", "application/x-www-form-urlencoded")
	return r.status, r.text
}

// TestAgentCannotMintLinksToApproveItsOwnQuestion is the review's reproduction: an agent key
// asked "Wire 48,000 EUR?" of the ceo, made itself a link for the ceo (with any groups it liked)
// and approved through it. Making a link for someone else is relaying now: the agent is
// refused; an admin's link answers as the ceo via the admin, in the inquiry and its event.
func TestAgentCannotMintLinksToApproveItsOwnQuestion(t *testing.T) {
	e := newEnv(t)
	agent := e.token("payments-bot", hitl.RoleAgent)
	e.token("ceo", hitl.RoleResponder)
	inq := ask(t, clientFor(e, agent), hitl.InquiryRequest{Prompt: "Wire 48,000 EUR?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ceo"}})
	path := fmt.Sprintf("/v1/inquiries/%d/links", inq.ID)
	for _, body := range []string{`{"for":"ceo"}`, `{"for":"ceo","groups":["admins"]}`, `{"for":"payments-bot"}`} {
		r := e.do("POST", path, agent, body, "Content-Type", "application/json")
		if r.status != http.StatusForbidden || !strings.Contains(r.text, "relay role") {
			t.Fatalf("the asking agent makes a link %s: %d %s", body, r.status, r.text)
		}
	}
	if got, _ := e.Admin.Inquiry(ctx, inq.ID); got.Status != hitl.StatusPending {
		t.Fatalf("the inquiry moved: %s", got.Status)
	}

	// A link an admin makes carries its maker; groups come from the ceo's keys, not the request.
	if r := e.do("POST", path, adminToken, `{"for":"ceo","groups":["admins"]}`, "Content-Type", "application/json"); r.status != http.StatusBadRequest || !strings.Contains(r.text, "not in the group admins") {
		t.Fatalf("a link asserting groups: %d %s", r.status, r.text)
	}
	r := e.do("POST", path, adminToken, `{"for":"ceo"}`, "Content-Type", "application/json")
	if r.status != http.StatusCreated || r.body["relayed_by"] != "admin" || !strings.HasPrefix(r.body["url"].(string), e.URL+"/a/v2.") {
		t.Fatalf("an admin's link: %d %s", r.status, r.text)
	}
	if status, text := answerThroughLink(t, e, r.body["url"].(string), url.Values{"approved": {"true"}}); status != http.StatusSeeOther {
		t.Fatalf("answering through the admin's link: %d %s", status, text)
	}
	got, err := e.Admin.Inquiry(ctx, inq.ID)
	must(t, err)
	if got.Status != hitl.StatusResponded || *got.RespondedBy != "ceo" || got.RelayedBy == nil || *got.RelayedBy != "admin" {
		t.Fatalf("answered through the link: %s by %v via %v", got.Status, got.RespondedBy, got.RelayedBy)
	}
	page, err := e.Admin.EventPage(ctx, client.EventOptions{Types: []string{hitl.EventInquiryResponded}})
	must(t, err)
	if len(page.Data) != 1 || page.Data[0].Actor != "ceo via admin" {
		t.Fatalf("the responded event: %+v", page.Data)
	}
}

// TestQuorumCannotBeFilledThroughLinksOrRelays: the review approved a 2-of-group:dba quorum
// with exclude_requester through links the asker made for dba1 and dba2, relayed votes as
// "ghost-one" and "ghost-two" (neither a person nor a member) through OpenIntent, and an asker
// with agent, responder and relay approved its own quorum by relaying as dq1 and dq2.
func TestQuorumCannotBeFilledThroughLinksOrRelays(t *testing.T) {
	e := newEnv(t)
	asker := e.token("dq-agent", hitl.RoleAgent, hitl.RoleResponder, hitl.RoleRelay)
	relay := e.token("ops-bot", hitl.RoleResponder, hitl.RoleRelay)
	for _, name := range []string{"dba1", "dba2"} {
		e.principal(name, []string{hitl.RoleResponder}, "dba")
	}
	for _, name := range []string{"dq1", "dq2"} {
		e.principal(name, []string{hitl.RoleResponder})
	}
	yes := true
	quorum := func(token string, req hitl.InquiryRequest) *hitl.Inquiry {
		req.Prompt, req.RequestType, req.Quorum, req.ExcludeRequester = "Drop the orders table?", hitl.RequestApproval, &hitl.Quorum{Required: 2}, &yes
		return ask(t, clientFor(e, token), req)
	}
	pending := func(id int64) {
		t.Helper()
		got, err := e.Admin.Inquiry(ctx, id)
		must(t, err)
		if got.Status != hitl.StatusPending || len(got.Votes) != 0 {
			t.Fatalf("inquiry %d: %s with votes %+v", id, got.Status, got.Votes)
		}
	}

	// Links for the group's members, made by the asker: refused.
	g := quorum(asker, hitl.InquiryRequest{AssignedTo: []string{"group:dba", "dq-agent"}})
	for _, name := range []string{"dba1", "dba2"} {
		r := e.do("POST", fmt.Sprintf("/v1/inquiries/%d/links", g.ID), asker, `{"for":"`+name+`","groups":["dba"]}`, "Content-Type", "application/json")
		if r.status != http.StatusForbidden || !strings.Contains(r.text, "may not carry another person's answer") {
			t.Fatalf("the asker's link for %s: %d %s", name, r.status, r.text)
		}
	}
	pending(g.ID)

	// Made-up names relayed through OpenIntent: refused, the quorum stays pending.
	s := quorum(asker, hitl.InquiryRequest{Session: "intent-q"})
	for _, ghost := range []string{"ghost-one", "ghost-two"} {
		r := e.openIntentRespond("intent-q", relay, fmt.Sprintf(`{"suspension_id": %d, "value": {"approved": true}, "responded_by": %q}`, s.ID, ghost))
		if r.status != http.StatusForbidden || !strings.Contains(r.text, ghost+" is not a person hitl knows") {
			t.Fatalf("relayed as %s: %d %s", ghost, r.status, r.text)
		}
	}
	pending(s.ID)

	// The asker: refused as itself (separation of duties) and as dq1 and dq2 (it asked).
	u := quorum(asker, hitl.InquiryRequest{Session: "intent-u"})
	vote := func(token, as string) reply {
		return e.openIntentRespond("intent-u", token, fmt.Sprintf(`{"suspension_id": %d, "value": {"approved": true}, "responded_by": %q}`, u.ID, as))
	}
	if r := vote(asker, "dq-agent"); r.status != http.StatusForbidden || !strings.Contains(r.text, "separation of duties") {
		t.Fatalf("the asker votes as itself: %d %s", r.status, r.text)
	}
	for _, name := range []string{"dq1", "dq2"} {
		if r := vote(asker, name); r.status != http.StatusForbidden || !strings.Contains(r.text, "dq-agent asked inquiry") {
			t.Fatalf("the asker relays %s: %d %s", name, r.status, r.text)
		}
	}
	pending(u.ID)

	// A relay carrying two real people's votes decides it, each vote recorded via the relay.
	for _, name := range []string{"dq1", "dq2"} {
		if r := vote(relay, name); r.status != http.StatusOK {
			t.Fatalf("the relay carries %s's vote: %d %s", name, r.status, r.text)
		}
	}
	got, err := e.Admin.Inquiry(ctx, u.ID)
	must(t, err)
	if got.Status != hitl.StatusResponded || len(got.Votes) != 2 || got.Votes[1].RelayedBy != "ops-bot" {
		t.Fatalf("after two relayed votes: %s %+v", got.Status, got.Votes)
	}
	voted, err := e.Admin.EventPage(ctx, client.EventOptions{Types: []string{hitl.EventInquiryVoted}, InquiryID: u.ID})
	must(t, err)
	if len(voted.Data) != 2 || voted.Data[0].Actor != "dq1 via ops-bot" || voted.Data[1].Actor != "dq2 via ops-bot" {
		t.Fatalf("the voted event of a relayed vote: %+v", voted.Data)
	}
}

// TestRelayAnswersForTheAssignedPerson: a relay acts as the person it names, so it carries the
// answer of the person an inquiry is assigned to, though it is not assigned itself (through
// OpenIntent's responded_by and through a link it makes); to a relay that does not see the
// inquiry, one its person may not answer does not exist.
func TestRelayAnswersForTheAssignedPerson(t *testing.T) {
	e := newEnv(t)
	agent := e.token("bot", hitl.RoleAgent)
	relay := e.token("desk", hitl.RoleResponder, hitl.RoleRelay)
	e.token("ceo", hitl.RoleResponder)
	e.token("cfo", hitl.RoleResponder)
	a := ask(t, clientFor(e, agent), hitl.InquiryRequest{Prompt: "Wire 48,000 EUR?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ceo"}, Session: "wire-1"})
	respond := func(as string) reply {
		return e.openIntentRespond("wire-1", relay, fmt.Sprintf(`{"suspension_id": %d, "value": {"approved": true}, "responded_by": %q}`, a.ID, as))
	}
	if r := respond("cfo"); r.status != http.StatusNotFound || strings.Contains(r.text, "ceo") {
		t.Fatalf("relaying a person it is not assigned to, on an inquiry the relay does not see: %d %s", r.status, r.text)
	}
	r := e.do("POST", fmt.Sprintf("/v1/inquiries/%d/links", a.ID), relay, `{"for":"cfo"}`, "Content-Type", "application/json")
	if r.status != http.StatusNotFound {
		t.Fatalf("a link for a person who may not answer, on an inquiry the relay does not see: %d %s", r.status, r.text)
	}
	r = e.do("POST", fmt.Sprintf("/v1/inquiries/%d/links", a.ID), relay, `{"for":"ceo"}`, "Content-Type", "application/json")
	if r.status != http.StatusCreated || r.body["relayed_by"] != "desk" {
		t.Fatalf("the relay's link for the assignee: %d %s", r.status, r.text)
	}
	if r := respond("ceo"); r.status != http.StatusOK || r.body["responded_by"] != "ceo" || r.body["relayed_by"] != "desk" {
		t.Fatalf("relaying the assignee's answer: %d %s", r.status, r.text)
	}
	// An admin relays for an assignee too.
	b := ask(t, clientFor(e, agent), hitl.InquiryRequest{Prompt: "Close the quarter?", RequestType: hitl.RequestApproval, AssignedTo: []string{"cfo"}, Session: "close-q"})
	r = e.openIntentRespond("close-q", adminToken, fmt.Sprintf(`{"suspension_id": %d, "value": {"approved": true}, "responded_by": "cfo"}`, b.ID))
	if r.status != http.StatusOK || r.body["relayed_by"] != "admin" {
		t.Fatalf("an admin relaying the assignee's answer: %d %s", r.status, r.text)
	}
}

// TestOnlyOpenIntentTakesARelayedName: hitl's own answer routes answer as the caller, and
// refuse a responded_by rather than ignore it; OpenIntent's responded_by is the one relay.
func TestOnlyOpenIntentTakesARelayedName(t *testing.T) {
	e := newEnv(t)
	agent := e.token("bot", hitl.RoleAgent)
	relay := e.token("ops-bot", hitl.RoleResponder, hitl.RoleRelay)
	inq := ask(t, clientFor(e, agent), hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval})
	for _, rt := range []struct{ path, body string }{
		{fmt.Sprintf("/v1/inquiries/%d/respond", inq.ID), `{"response":{"approved":true},"responded_by":"ada"}`},
		{"/v1/inquiries/respond", fmt.Sprintf(`{"ids":[%d],"response":{"approved":true},"responded_by":"ada"}`, inq.ID)},
	} {
		if r := e.do("POST", rt.path, relay, rt.body); r.status != http.StatusBadRequest || !strings.Contains(r.text, "responded_by") {
			t.Fatalf("%s with responded_by: %d %s", rt.path, r.status, r.text)
		}
	}
	if got, _ := e.Admin.Inquiry(ctx, inq.ID); got.Status != hitl.StatusPending {
		t.Fatalf("the inquiry was answered: %+v", got)
	}
}
