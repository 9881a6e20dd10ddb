package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// TestAbsenceOverHTTP: PUT, GET and DELETE /v1/people/{name}/absence by the person and by an
// admin, refused to others (403), for bad input (400, nothing stored), for a loop (409), and
// what it does: bob answers alice's inquiry for her, recorded as on_behalf_of, and has one
// vote in a quorum.
func TestAbsenceOverHTTP(t *testing.T) {
	e := newEnv(t)
	responder := []string{hitl.RoleResponder}
	alice, aliceToken := e.Key(hitl.KeyRequest{Name: "alice", Roles: responder})
	bob, bobToken := e.Key(hitl.KeyRequest{Name: "bob", Roles: responder})
	cy := e.principal("cy", responder)
	agent, agentToken := e.Key(hitl.KeyRequest{Name: "bot", Roles: []string{hitl.RoleAgent}})
	ask := func(req *hitl.InquiryRequest) (*hitl.Inquiry, error) {
		req.RequestType = hitl.RequestApproval
		inq, _, err := agent.CreateInquiry(ctx, req, client.CreateOptions{})
		return inq, err
	}
	now := time.Now().UTC().Truncate(time.Second)
	period := func(delegate string) string {
		return fmt.Sprintf(`{"from":%q,"until":%q,"delegate":%q}`, now.Add(-time.Minute).Format(time.RFC3339), now.Add(time.Hour).Format(time.RFC3339), delegate)
	}

	// Refused, and nothing stored.
	for _, c := range []struct {
		token, path, body string
		status            int
		want              string
	}{
		{"", "/v1/people/alice/absence", period("bob"), http.StatusUnauthorized, ""},
		{bobToken, "/v1/people/alice/absence", period("bob"), http.StatusForbidden, "only alice or an admin may set or end alice's absence"},
		{agentToken, "/v1/people/alice/absence", period("bot"), http.StatusForbidden, "only alice or an admin may set or end alice's absence"},
		{agentToken, "/v1/people/bot/absence", period("bob"), http.StatusForbidden, "bot may not answer: its key needs the responder role"},
		{aliceToken, "/v1/people/alice/absence", `{"from":`, http.StatusBadRequest, ""},
		{aliceToken, "/v1/people/alice/absence", `{"from":"tomorrow","until":"2099-01-01T00:00:00Z","delegate":"bob"}`, http.StatusBadRequest, "from"},
		{aliceToken, "/v1/people/alice/absence", `{"from":"2026-12-22 09:00","until":"2099-01-01T00:00:00Z","delegate":"bob"}`, http.StatusBadRequest, `/from: expected an RFC 3339 time with a date, T, a time and a zone, like 2026-12-22T09:00:00Z`},
		{aliceToken, "/v1/people/alice/absence", `{"from":"2099-01-01T00:00:00Z","until":"2099-01-02T00:00:00Z","delegate":"bob","why":"ski"}`, http.StatusBadRequest, "why"},
		{aliceToken, "/v1/people/alice/absence", `{"from":"2099-01-02T00:00:00Z","until":"2099-01-01T00:00:00Z","delegate":"bob"}`, http.StatusBadRequest, "must be after from"},
		{aliceToken, "/v1/people/alice/absence", `{"from":"2020-01-01T00:00:00Z","until":"2020-01-02T00:00:00Z","delegate":"bob"}`, http.StatusBadRequest, "has passed already"},
		{aliceToken, "/v1/people/alice/absence", period("alice"), http.StatusBadRequest, "cannot be their own delegate"},
		{aliceToken, "/v1/people/alice/absence", period("nobody"), http.StatusBadRequest, "nobody is not a person hitl knows"},
		{aliceToken, "/v1/people/alice/absence", strings.Repeat(" ", 2<<20) + period("bob"), http.StatusRequestEntityTooLarge, ""},
		{aliceToken, "/v1/people/a%20b/absence", period("bob"), http.StatusBadRequest, "a person's name"},
	} {
		r := e.do("PUT", c.path, c.token, c.body)
		if r.status != c.status || !strings.Contains(r.text, c.want) {
			t.Errorf("PUT %s %.80s: %d %s, want %d naming %q", c.path, c.body, r.status, r.text, c.status, c.want)
		}
	}
	if r := e.do("GET", "/v1/people/alice/absence", aliceToken, ""); r.status != http.StatusNotFound || !strings.Contains(r.text, "alice has no absence set") {
		t.Fatalf("after the refusals: %d %s", r.status, r.text)
	}

	// Alice sets her own; she and admins see it, bob does not.
	r := e.do("PUT", "/v1/people/alice/absence", aliceToken, period("bob"))
	if r.status != http.StatusOK || r.body["delegate"] != "bob" || r.body["set_by"] != "alice" {
		t.Fatalf("set: %d %s", r.status, r.text)
	}
	if a, err := alice.Absence(ctx, "alice"); err != nil || a.Delegate != "bob" || !a.Until.Equal(now.Add(time.Hour)) {
		t.Fatalf("alice reads hers: %+v, %v", a, err)
	}
	if r := e.do("GET", "/v1/people/alice/absence", bobToken, ""); r.status != http.StatusForbidden {
		t.Fatalf("bob reads alice's: %d %s", r.status, r.text)
	}
	_, err := e.Admin.PutPerson(ctx, "alice", &hitl.PersonRequest{Email: "alice@example.com"})
	must(t, err)
	if p, err := e.Admin.Person(ctx, "alice"); err != nil || p.Absence == nil || p.Absence.Delegate != "bob" {
		t.Fatalf("the person shows the absence: %+v, %v", p, err)
	}
	// bob → alice while alice → bob: a loop, named.
	if r := e.do("PUT", "/v1/people/bob/absence", adminToken, period("alice")); r.status != http.StatusConflict || !strings.Contains(r.text, "bob → alice → bob") {
		t.Fatalf("loop: %d %s", r.status, r.text)
	}

	// bob answers alice's inquiry, for her; it is in his list.
	inq, err := ask(&hitl.InquiryRequest{Prompt: "ship?", AssignedTo: []string{"alice"}})
	must(t, err)
	page, err := bob.Inquiries(ctx, client.ListOptions{Status: string(hitl.StatusPending)})
	must(t, err)
	if len(page.Data) != 1 || page.Data[0].ID != inq.ID {
		t.Fatalf("bob's list: %+v", page.Data)
	}
	if r := e.do("POST", fmt.Sprintf("/v1/inquiries/%d/respond", inq.ID), bobToken, `{"response":{"approved":true},"on_behalf_of":"cy"}`); r.status != http.StatusForbidden || !strings.Contains(r.text, "cy is not away with bob as delegate") {
		t.Fatalf("bob for cy: %d %s", r.status, r.text)
	}
	got, err := bob.Respond(ctx, inq.ID, hitl.ApprovalAnswer(true, ""), "for alice")
	must(t, err)
	if *got.RespondedBy != "bob" || got.OnBehalfOf == nil || *got.OnBehalfOf != "alice" {
		t.Fatalf("answered %+v", got)
	}

	// One vote: bob for alice, then as himself, is a conflict.
	q, err := ask(&hitl.InquiryRequest{Prompt: "deploy?",
		AssignedTo: []string{"alice", "bob", "cy"}, Quorum: &hitl.Quorum{Required: 2}})
	must(t, err)
	_, err = bob.RespondFor(ctx, q.ID, "alice", hitl.ApprovalAnswer(true, ""), "")
	must(t, err)
	r = e.do("POST", fmt.Sprintf("/v1/inquiries/%d/respond", q.ID), bobToken, `{"response":{"approved":true}}`)
	if r.status != http.StatusConflict || !strings.Contains(r.text, "a delegate has one vote") {
		t.Fatalf("bob's second vote: %d %s", r.status, r.text)
	}
	done, err := cy.Respond(ctx, q.ID, hitl.ApprovalAnswer(true, ""), "")
	must(t, err)
	var o hitl.VoteOutcome
	must(t, json.Unmarshal(done.Response, &o))
	if done.Status != hitl.StatusResponded || len(o.Votes) != 2 || o.Votes[0].OnBehalfOf != "alice" {
		t.Fatalf("quorum %s %s", done.Status, done.Response)
	}

	// The admin ends it; a second end is not found, and bob no longer sees alice's inquiries.
	if r := e.do("DELETE", "/v1/people/alice/absence", bobToken, ""); r.status != http.StatusForbidden {
		t.Fatalf("bob ends alice's: %d", r.status)
	}
	if r := e.do("DELETE", "/v1/people/alice/absence", adminToken, ""); r.status != http.StatusNoContent {
		t.Fatalf("end: %d %s", r.status, r.text)
	}
	if r := e.do("DELETE", "/v1/people/alice/absence", aliceToken, ""); r.status != http.StatusNotFound {
		t.Fatalf("end again: %d %s", r.status, r.text)
	}
	later, err := ask(&hitl.InquiryRequest{Prompt: "again?", AssignedTo: []string{"alice"}})
	must(t, err)
	if _, err := bob.Respond(ctx, later.ID, hitl.ApprovalAnswer(true, ""), ""); err == nil {
		t.Fatal("bob answered for alice after her absence ended")
	}
	evPage, err := e.Admin.EventPage(ctx, client.EventOptions{Types: []string{hitl.EventPersonAbsenceSet, hitl.EventPersonAbsenceEnded}})
	must(t, err)
	if evs := evPage.Data; len(evs) != 2 || evs[0].Actor != "alice" || evs[1].Actor != "admin" {
		t.Fatalf("absence events: %+v", evs)
	}
}
