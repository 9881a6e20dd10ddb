package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/slack"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/slackpeer"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// slackEnv is a server configured with the local Slack as its Slack app, ada mapped to the
// Slack user U0ADA with a responder key, and an agent.
type slackEnv struct {
	*env
	peer  *slackpeer.Peer
	ada   *client.Client
	agent *client.Client
}

func newSlackEnv(t *testing.T, configure ...func(*server.Config)) *slackEnv {
	peer := slackpeer.New(t)
	e := newEnv(t, testserver.Configure(func(c *server.Config) {
		c.Slack = slack.Config{BotToken: slackpeer.BotToken, SigningSecret: slackpeer.SigningSecret, APIURL: peer.APIURL()}
		// Retries come quickly, but no sooner than Slack's Retry-After of a second.
		c.Webhooks = server.WebhookConfig{AllowPrivate: true, AttemptTimeout: 5 * time.Second, RetryBase: 20 * time.Millisecond, RetryMax: 5 * time.Second}
		for _, f := range configure {
			f(c)
		}
	}))
	if r := e.do("PUT", "/v1/people/ada", adminToken, `{"slack_user_id":"U0ADA"}`, "Content-Type", "application/json"); r.status != http.StatusOK {
		t.Fatalf("PUT /v1/people/ada: %d %s", r.status, r.text)
	}
	return &slackEnv{env: e, peer: peer, ada: e.principal("ada", []string{hitl.RoleResponder}), agent: e.principal("bot", []string{hitl.RoleAgent})}
}

// posted waits for the nth chat.postMessage (from 1) and returns it.
func (s *slackEnv) posted(n int) slackpeer.Call {
	s.t.Helper()
	var calls []slackpeer.Call
	eventually(s.t, fmt.Sprintf("chat.postMessage number %d", n), func() bool {
		calls = s.peer.Calls("chat.postMessage")
		return len(calls) >= n
	})
	return calls[n-1]
}

// updatedTo waits for a chat.update of the message at ts that says want, and returns its blocks.
func (s *slackEnv) updatedTo(ts, want string) []map[string]any {
	s.t.Helper()
	var blocks []map[string]any
	eventually(s.t, "chat.update of "+ts+" saying "+want, func() bool {
		for _, u := range s.peer.Calls("chat.update") {
			if b := u.Blocks(s.t); u.Form.Get("ts") == ts && strings.Contains(slackpeer.Texts(b), want) {
				blocks = b
				return true
			}
		}
		return false
	})
	return blocks
}

// slackPost posts a body to one of the server's Slack endpoints as Slack does, signed.
func (s *slackEnv) slackPost(path, body string, headers map[string]string) (int, string) {
	s.t.Helper()
	return slackpeer.Post(s.t, s.URL+path, body, headers)
}

// click posts user's click on the button of a posted message to the server.
func (s *slackEnv) click(user string, msg slackpeer.Call, ts, button string) (int, string) {
	s.t.Helper()
	btn := slackpeer.Button(s.t, msg.Blocks(s.t), button)
	channel := strings.Replace(msg.Form.Get("channel"), "U", "D", 1) // Slack's DM with the user
	return s.slackPost("/slack/interactions", slackpeer.PayloadBody(s.t, slackpeer.Click(user, channel, ts, btn)), nil)
}

// TestSlackEndToEnd: ada, mapped by PUT /v1/people, gets the approval assigned to her as a
// direct message with Approve / Reject; her signed click answers it as ada and the message
// loses its buttons; /hitl lists what waits for her.
func TestSlackEndToEnd(t *testing.T) {
	s := newSlackEnv(t)
	inq := ask(t, s.agent, hitl.InquiryRequest{Prompt: "Deploy v2 to prod?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})
	msg := s.posted(1)
	blocks := msg.Blocks(t)
	if msg.Form.Get("channel") != "U0ADA" || !slices.Contains(slackpeer.ActionIDs(blocks), "hitl.approve") || !slices.Contains(slackpeer.ActionIDs(blocks), "hitl.reject") ||
		!strings.Contains(slackpeer.Texts(blocks), "Deploy v2 to prod?") {
		t.Fatalf("posted to %q: %s", msg.Form.Get("channel"), slackpeer.Texts(blocks))
	}
	ts := s.postedTS(inq.ID, hitl.ReasonCreated)

	status, body := s.slackPost("/slack/commands", "command=%2Fhitl&text=&user_id=U0ADA&channel_id=D0ADA&team_id=T0001", nil)
	if status != http.StatusOK || !strings.Contains(body, "1 pending inquiry for ada") || !strings.Contains(body, "Deploy v2 to prod?") {
		t.Fatalf("/hitl: %d %s", status, body)
	}
	var reply struct {
		Text   string `json:"text"`
		Blocks []any  `json:"blocks"`
	}
	must(t, json.Unmarshal([]byte(body), &reply))
	if problems := slackpeer.MessageProblems(reply.Text, reply.Blocks); len(problems) > 0 {
		t.Fatalf("/hitl's reply is beyond Slack's limits: %v", problems)
	}

	if status, body := s.click("U0ADA", msg, ts, "Approve"); status != http.StatusOK {
		t.Fatalf("the click: %d %s", status, body)
	}
	got, err := s.Admin.Inquiry(ctx, inq.ID)
	must(t, err)
	if got.Status != hitl.StatusResponded || got.RespondedBy == nil || *got.RespondedBy != "ada" || string(got.Response) != `{"approved":true}` {
		t.Fatalf("after the click: %s by %v: %s", got.Status, got.RespondedBy, got.Response)
	}
	updated := s.updatedTo(ts, "Answered by ada")
	if ids := slackpeer.ActionIDs(updated); slices.Contains(ids, "hitl.approve") || slices.Contains(ids, "hitl.reject") {
		t.Fatalf("the answered message still has buttons: %v", ids)
	}
	eventually(t, "the resolved notification delivered", func() bool {
		ns := notificationsOf(t, s.Admin, inq.ID)
		return len(ns) == 2 && ns[1].Reason == hitl.ReasonResolved && ns[1].Status == hitl.DeliveryDelivered
	})
}

// postedTS waits for the inquiry's Slack message for the reason to be delivered and returns
// the ts Slack gave it.
func (s *slackEnv) postedTS(id int64, reason hitl.NotifyReason) string {
	s.t.Helper()
	var ts string
	eventually(s.t, "the Slack message ("+string(reason)+") delivered", func() bool {
		for _, d := range notificationsOf(s.t, s.Admin, id) {
			if d.Reason == reason && d.Status == hitl.DeliveryDelivered {
				ts = strings.Fields(d.LastResponse)[2] // "posted D0ADA TS"
				return true
			}
		}
		return false
	})
	return ts
}

// TestSlackMessageUpdatedAfterAnAnswerElsewhere: answered through the API (as in the inbox),
// the inquiry's Slack message shows who answered and loses its buttons.
func TestSlackMessageUpdatedAfterAnAnswerElsewhere(t *testing.T) {
	s := newSlackEnv(t)
	inq := ask(t, s.agent, hitl.InquiryRequest{Prompt: "Rotate the keys?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})
	ts := s.postedTS(inq.ID, hitl.ReasonCreated)
	_, err := s.ada.Respond(ctx, inq.ID, json.RawMessage(`{"approved":false}`), "not today")
	must(t, err)
	blocks := s.updatedTo(ts, "Answered by ada")
	if ids := slackpeer.ActionIDs(blocks); slices.Contains(ids, "hitl.approve") {
		t.Fatalf("the message still has buttons: %v", ids)
	}
	if u := s.peer.Calls("chat.update"); u[0].Form.Get("channel") != "D0ADA" {
		t.Fatalf("updated in %q, want the DM the message was posted in", u[0].Form.Get("channel"))
	}
}

// TestSlackClickFromSomeoneUnknown: a Slack user who is no person, and a person without a
// key, get a refusal only they see; nothing is answered. A Slack user is one person.
func TestSlackClickFromSomeoneUnknown(t *testing.T) {
	s := newSlackEnv(t)
	if r := s.do("PUT", "/v1/people/keyless", adminToken, `{"slack_user_id":"U0KEYLESS"}`, "Content-Type", "application/json"); r.status != http.StatusOK {
		t.Fatalf("PUT keyless: %d %s", r.status, r.text)
	}
	if r := s.do("PUT", "/v1/people/eve", adminToken, `{"slack_user_id":"U0ADA"}`, "Content-Type", "application/json"); r.status != http.StatusConflict ||
		!strings.Contains(r.text, "ada already has the Slack id U0ADA") {
		t.Fatalf("a second person with ada's Slack id: %d %s", r.status, r.text)
	}
	inq := ask(t, s.agent, hitl.InquiryRequest{Prompt: "Drop the table?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})
	ts := s.postedTS(inq.ID, hitl.ReasonCreated)
	msg := s.posted(1)
	for i, user := range []string{"U0EVE", "U0KEYLESS"} {
		if status, body := s.click(user, msg, ts, "Approve"); status != http.StatusOK {
			t.Fatalf("%s's click: %d %s", user, status, body)
		}
		eph := s.peer.Calls("chat.postEphemeral")
		if len(eph) != i+1 || eph[i].Form.Get("user") != user || !strings.Contains(eph[i].Form.Get("text"), "not mapped to a hitl person with a key") {
			t.Fatalf("%s was told %+v", user, eph)
		}
	}
	got, err := s.Admin.Inquiry(ctx, inq.ID)
	must(t, err)
	if got.Status != hitl.StatusPending || len(s.peer.Calls("chat.update")) != 0 {
		t.Fatalf("after the refused clicks: %s, %d updates", got.Status, len(s.peer.Calls("chat.update")))
	}
}

// TestSlackEndpointsTakeOnlySignedRequests: a forged, an old and a missing signature get 401
// and answer nothing; those failures count toward the client's limit of failed
// authentications like the API's, and a body beyond --max-body-bytes is refused.
func TestSlackEndpointsTakeOnlySignedRequests(t *testing.T) {
	s := newSlackEnv(t, func(c *server.Config) { c.AuthFailuresPerMinute = 3; c.MaxBodyBytes = 4096 })
	inq := ask(t, s.agent, hitl.InquiryRequest{Prompt: "Open the gates?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})
	ts := s.postedTS(inq.ID, hitl.ReasonCreated)
	msg := s.posted(1)
	body := slackpeer.PayloadBody(t, slackpeer.Click("U0ADA", "D0ADA", ts, slackpeer.Button(t, msg.Blocks(t), "Approve")))
	big := "payload=" + strings.Repeat("x", 5000)
	if status, text := s.slackPost("/slack/interactions", big, nil); status != http.StatusRequestEntityTooLarge || !strings.Contains(text, "4096 bytes") {
		t.Errorf("a body beyond --max-body-bytes: %d %s", status, text)
	}
	oldTS, oldSig := slackpeer.Sign(slackpeer.SigningSecret, time.Now().Add(-10*time.Minute), body)
	nowTS, forged := slackpeer.Sign("not-the-signing-secret", time.Now(), body)
	for name, headers := range map[string]map[string]string{
		"forged":  {"X-Slack-Request-Timestamp": nowTS, "X-Slack-Signature": forged},
		"old":     {"X-Slack-Request-Timestamp": oldTS, "X-Slack-Signature": oldSig},
		"missing": {"X-Slack-Request-Timestamp": "", "X-Slack-Signature": ""},
	} {
		if status, text := s.slackPost("/slack/interactions", body, headers); status != http.StatusUnauthorized {
			t.Errorf("%s signature: %d %s, want 401", name, status, text)
		}
	}
	// (Read through the engine: this address may not even use the API any more.)
	if got, err := s.Engine().Inquiry(ctx, &hitl.Principal{Name: "root", Roles: []string{hitl.RoleAdmin}}, inq.ID); err != nil || got.Status != hitl.StatusPending {
		t.Fatalf("after unsigned clicks: %v %v", got, err)
	}
	// Three failures from this address: even a signed click waits now, as an API call would.
	if status, _ := s.slackPost("/slack/interactions", body, nil); status != http.StatusTooManyRequests {
		t.Errorf("a signed click after three failures: %d, want 429", status)
	}
	if r := s.do("GET", "/v1/inquiries", "wrong-token", ""); r.status != http.StatusTooManyRequests {
		t.Errorf("the API after three failed Slack signatures: %d, want 429", r.status)
	}
}

// TestSlackRateLimitIsHonoured: Slack's 429 with Retry-After makes the delivery wait that long
// and send again, and the message is posted once.
func TestSlackRateLimitIsHonoured(t *testing.T) {
	s := newSlackEnv(t)
	s.peer.FailNext("chat.postMessage", slackpeer.Failure{Status: http.StatusTooManyRequests, RetryAfter: "1"})
	inq := ask(t, s.agent, hitl.InquiryRequest{Prompt: "Scale up?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})
	var first *hitl.Delivery
	eventually(t, "the first attempt rate limited", func() bool {
		ns := notificationsOf(t, s.Admin, inq.ID)
		if len(ns) != 1 {
			return false
		}
		first = ns[0]
		return ns[0].Attempts == 1
	})
	if wait := first.NextAttemptAt.Sub(*first.LastAttemptAt); wait < time.Second || !strings.Contains(first.LastError, "rate limited") {
		t.Fatalf("after 429 Retry-After 1: next attempt %s later, error %q", wait, first.LastError)
	}
	s.postedTS(inq.ID, hitl.ReasonCreated)
	ns := notificationsOf(t, s.Admin, inq.ID)
	if ns[0].Attempts != 2 || ns[0].DeliveredAt.Sub(*first.LastAttemptAt) < time.Second {
		t.Fatalf("delivered after %d attempts at %v, first at %v", ns[0].Attempts, ns[0].DeliveredAt, first.LastAttemptAt)
	}
	if calls := s.peer.Calls("chat.postMessage"); len(calls) != 2 {
		t.Fatalf("%d chat.postMessage calls, want the refused one and the one that was posted", len(calls))
	}
}

// TestSlackReminderRepliesInTheThread: remind_every posts a reply in the thread of the first
// message; once answered, both lose their buttons.
func TestSlackReminderRepliesInTheThread(t *testing.T) {
	// The engine's clock starts half an hour ago, so that after the half hour it has to move
	// for the reminder, the deliveries it makes are due for the dispatcher, on the real clock.
	clk := clock.NewManual(time.Now().UTC().Add(-30 * time.Minute))
	s := newSlackEnv(t, func(c *server.Config) { c.Clock = clk })
	inq := ask(t, s.agent, hitl.InquiryRequest{Prompt: "Still on for Friday?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"},
		RemindEvery: "30m"})
	ts := s.postedTS(inq.ID, hitl.ReasonCreated)
	clk.Advance(30 * time.Minute)
	reply := s.posted(2)
	if reply.Form.Get("channel") != "D0ADA" || reply.Form.Get("thread_ts") != ts || !strings.Contains(slackpeer.Texts(reply.Blocks(t)), "Reminder") {
		t.Fatalf("the reminder went to %q in thread %q (want D0ADA %s): %s", reply.Form.Get("channel"), reply.Form.Get("thread_ts"), ts, slackpeer.Texts(reply.Blocks(t)))
	}
	replyTS := s.postedTS(inq.ID, hitl.ReasonReminder)
	_, err := s.ada.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "")
	must(t, err)
	s.updatedTo(ts, "Answered by ada")
	s.updatedTo(replyTS, "Answered by ada")
}
