package server_test

import (
	"html"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/mailtest"
)

// Answering power ends when the person's power ends: after ada's key is revoked, her address
// changes or she is deleted from people, what was sent to her (an email's reply address, its
// answer link; a Slack message's buttons) answers nothing, and says why in words.

// revocations are the three ways a person's power to answer ends, each with what the refusal
// says.
var revocations = []struct {
	name  string
	end   func(t *testing.T, e *env)
	words string
}{
	{"her key is revoked", func(t *testing.T, e *env) { revokeKeysOf(t, e, "ada") }, "every key of ada has been revoked"},
	{"her address changes", func(t *testing.T, e *env) {
		if r := e.do("PUT", "/v1/people/ada", adminToken, `{"email":"ada@new.example.com","slack_user_id":"U0ADANEW"}`); r.status != http.StatusOK {
			t.Fatalf("PUT /v1/people/ada: %d %s", r.status, r.text)
		}
	}, "which is no longer ada's address"},
	{"she is deleted", func(t *testing.T, e *env) { must(t, e.Admin.DeletePerson(ctx, "ada")) }, "ada is no longer among hitl's people"},
}

// revokeKeysOf revokes every key of the name, as an admin.
func revokeKeysOf(t *testing.T, e *env, name string) {
	t.Helper()
	keys, err := e.Admin.Keys(ctx)
	must(t, err)
	for _, k := range keys {
		if k.Name == name {
			must(t, e.Admin.RevokeKey(ctx, k.ID))
		}
	}
}

// TestEmailAnsweringPowerEndsWithThePerson: the review's reproduction: after each revocation,
// a reply with the old reply token and a GET of the old answer link still answered as ada, for
// an inquiry assigned to her and one assigned to her group.
func TestEmailAnsweringPowerEndsWithThePerson(t *testing.T) {
	for _, rv := range revocations {
		t.Run(rv.name, func(t *testing.T) {
			m := startMailEnv(t, nil)
			m.principal("ada", []string{hitl.RoleResponder}, "ops")
			agent := m.principal("deploy-bot", []string{hitl.RoleAgent})
			var sent []*mailtest.Received
			var ids []int64
			for _, to := range []string{"ada", "group:ops"} {
				inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Deploy to " + to + "?", RequestType: hitl.RequestApproval, AssignedTo: []string{to}})
				ids = append(ids, inq.ID)
				sent = append(sent, m.relay.Next(t))
			}
			rv.end(t, m.env)
			for i, msg := range sent {
				res, err := http.Get(msg.Links(t)["Approve"])
				must(t, err)
				raw, _ := io.ReadAll(res.Body)
				res.Body.Close()
				page := html.UnescapeString(string(raw))
				if res.StatusCode != http.StatusUnauthorized || !strings.Contains(page, "no longer works") || !strings.Contains(page, rv.words) {
					t.Fatalf("%s: the answer link: %s\n%s", msg.Subject, res.Status, page)
				}
				m.reply(t, msg, "Ada <ada@example.com>", "approve\n")
				refusal := m.relay.Next(t)
				if !strings.Contains(refusal.Text, "Your reply was not recorded") || !strings.Contains(strings.Join(strings.Fields(refusal.Text), " "), rv.words) {
					t.Fatalf("%s: the reply was answered with:\n%s", msg.Subject, refusal.Text)
				}
				if got := m.inquiry(ids[i]); got.Status != hitl.StatusPending {
					t.Fatalf("%s: the inquiry is %s by %v", msg.Subject, got.Status, got.RespondedBy)
				}
			}
		})
	}
}

// TestSlackAnsweringPowerEndsWithThePerson: a click on a message sent to ada's Slack id answers
// nothing once her key is revoked, her Slack id changes or she is deleted; she is told so.
func TestSlackAnsweringPowerEndsWithThePerson(t *testing.T) {
	for _, rv := range revocations {
		t.Run(rv.name, func(t *testing.T) {
			s := newSlackEnv(t)
			inq := ask(t, s.agent, hitl.InquiryRequest{Prompt: "Rotate the keys?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})
			ts := s.postedTS(inq.ID, hitl.ReasonCreated)
			msg := s.posted(1)
			rv.end(t, s.env)
			if status, body := s.click("U0ADA", msg, ts, "Approve"); status != http.StatusOK {
				t.Fatalf("the click: %d %s", status, body)
			}
			eph := s.peer.Calls("chat.postEphemeral")
			if len(eph) != 1 || !strings.Contains(eph[0].Form.Get("text"), "not mapped to a hitl person with a key") {
				t.Fatalf("ada was told %+v", eph)
			}
			if got, err := s.Admin.Inquiry(ctx, inq.ID); err != nil || got.Status != hitl.StatusPending {
				t.Fatalf("after the click: %v %v", got, err)
			}
		})
	}
}

// TestLinkMakerLosesThePowerToRelay: a link an admin made for someone stops working when the
// admin's key is revoked, as the relay's own answers would.
func TestLinkMakerLosesThePowerToRelay(t *testing.T) {
	e := newEnv(t)
	agent := e.token("bot", hitl.RoleAgent)
	e.token("ceo", hitl.RoleResponder)
	relayClient, _ := e.Key(hitl.KeyRequest{Name: "desk", Roles: []string{hitl.RoleResponder, hitl.RoleRelay}})
	inq := ask(t, clientFor(e, agent), hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval})
	link, err := relayClient.CreateAnswerLink(ctx, inq.ID, &hitl.AnswerLinkRequest{For: "ceo"})
	must(t, err)
	revokeKeysOf(t, e, "desk")
	status, text := answerThroughLink(t, e, link.URL, nil)
	if status != http.StatusUnauthorized || !strings.Contains(html.UnescapeString(text), "desk may no longer relay answers") {
		t.Fatalf("the revoked relay's link: %d %s", status, text)
	}
	if got, _ := e.Admin.Inquiry(ctx, inq.ID); got.Status != hitl.StatusPending {
		t.Fatalf("the inquiry moved: %s", got.Status)
	}
}

// TestLinkEndsWhenItsPersonLeavesTheGroup: a link for a member of the assigned group stops,
// in words, once hitl's records no longer put the person in the group.
func TestLinkEndsWhenItsPersonLeavesTheGroup(t *testing.T) {
	e := newEnv(t)
	agent := e.token("bot", hitl.RoleAgent)
	e.principal("dba1", []string{hitl.RoleResponder}, "dba")
	inq := ask(t, clientFor(e, agent), hitl.InquiryRequest{Prompt: "Drop the index?", RequestType: hitl.RequestApproval, AssignedTo: []string{"group:dba"}})
	link, err := e.Admin.CreateAnswerLink(ctx, inq.ID, &hitl.AnswerLinkRequest{For: "dba1"})
	must(t, err)
	revokeKeysOf(t, e, "dba1")
	e.principal("dba1", []string{hitl.RoleResponder}) // again, without the group
	status, text := answerThroughLink(t, e, link.URL, nil)
	if page := html.UnescapeString(text); status != http.StatusUnauthorized || !strings.Contains(page, "this answer link no longer works: dba1 may not answer inquiry") ||
		strings.Contains(page, "Drop the index?") {
		t.Fatalf("the link of a person who left the group: %d %s", status, text)
	}
}
