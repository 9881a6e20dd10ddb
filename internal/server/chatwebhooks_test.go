package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// TestChatWebhooksPostToRealReceivers: each kind of chat webhook posts its tool's JSON shape to
// a real HTTP receiver, with per-option links to the inquiry's page; a 429 is retried; only
// the subscribed events are posted; a deleted chat webhook posts nothing more.
func TestChatWebhooksPostToRealReceivers(t *testing.T) {
	e := webhookEnv(t, fastWebhooks)
	rooms := map[string]*receiver{}
	hooks := map[string]*hitl.ChatWebhook{}
	for _, kind := range hitl.ChatKinds {
		rooms[kind] = newReceiver(t, func(n int, _ received) int {
			if kind == hitl.ChatDiscord && n == 1 {
				return http.StatusTooManyRequests
			}
			return http.StatusNoContent
		})
		req := &hitl.ChatWebhookRequest{Kind: kind, URL: rooms[kind].URL + "/hook/" + kind}
		if kind == hitl.ChatSlack {
			req.Events = []string{"*"}
		}
		w, err := e.Admin.CreateChatWebhook(ctx, req)
		must(t, err)
		hooks[kind] = w
	}
	if hooks[hitl.ChatTeams].Events[0] != hitl.EventInquiryCreated || len(hooks[hitl.ChatSlack].Events) != 7 {
		t.Fatalf("events: teams %v, slack %v", hooks[hitl.ChatTeams].Events, hooks[hitl.ChatSlack].Events)
	}
	agent := e.principal("bot", []string{"agent"})
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Deploy v2 to production?", RequestType: hitl.RequestApproval})
	page := fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID)
	approve, reject := page+"?answer=approve", page+"?answer=reject"
	eventually(t, "every room has its message", func() bool {
		for kind, rc := range rooms {
			want := 1
			if kind == hitl.ChatDiscord {
				want = 2 // 429, then accepted
			}
			if len(rc.requests()) != want {
				return false
			}
		}
		return true
	})
	body := func(kind string) map[string]any {
		reqs := rooms[kind].requests()
		var v map[string]any
		if err := json.Unmarshal(reqs[len(reqs)-1].body, &v); err != nil {
			t.Fatalf("%s body: %v", kind, err)
		}
		if ct := reqs[0].header["Content-Type"]; ct != "application/json" {
			t.Fatalf("%s content type %q", kind, ct)
		}
		return v
	}
	slack := body(hitl.ChatSlack)
	blocks, _ := json.Marshal(slack["blocks"])
	if !strings.Contains(slack["text"].(string), "Deploy v2 to production?") || !strings.Contains(string(blocks), `"url":"`+approve+`"`) ||
		!strings.Contains(string(blocks), `"url":"`+reject+`"`) || !strings.Contains(string(blocks), `"type":"actions"`) {
		t.Fatalf("Slack body %v", slack)
	}
	teams := body(hitl.ChatTeams)
	actions, _ := json.Marshal(teams["potentialAction"])
	if teams["@type"] != "MessageCard" || teams["text"] != "Deploy v2 to production?" || !strings.Contains(string(actions), approve) {
		t.Fatalf("Teams body %v", teams)
	}
	if text := body(hitl.ChatGoogleChat)["text"].(string); !strings.Contains(text, "<"+approve+"|Approve>") || !strings.Contains(text, "<"+page+"|Open in hitl>") {
		t.Fatalf("Google Chat text %q", text)
	}
	if content := body(hitl.ChatDiscord)["content"].(string); !strings.Contains(content, "[Reject]("+reject+")") {
		t.Fatalf("Discord content %q", content)
	}

	// The inquiry lists its notifications: the Discord one took two attempts. A room may have
	// the post before its delivery is recorded: wait for the record.
	var ns []*hitl.Delivery
	eventually(t, "every notification recorded as delivered", func() bool {
		ns = notificationsOf(t, e.Admin, inq.ID)
		return len(ns) == 4 && !slices.ContainsFunc(ns, func(n *hitl.Delivery) bool { return n.Status != hitl.DeliveryDelivered })
	})
	if len(ns) != 4 {
		t.Fatalf("%d notifications, want one per room", len(ns))
	}
	for _, n := range ns {
		if n.Channel != hitl.ChannelChatWebhook || n.Status != hitl.DeliveryDelivered || n.Reason != hitl.ReasonCreated {
			t.Fatalf("notification %+v", n)
		}
		if n.Recipient == hooks[hitl.ChatDiscord].ID && (n.Attempts != 2 || !strings.Contains(n.LastResponse, "204")) {
			t.Fatalf("the Discord post after a 429: %+v", n)
		}
	}

	// Selection options become links; the answer is posted only where it was subscribed.
	must(t, e.Admin.DeleteChatWebhook(ctx, hooks[hitl.ChatTeams].ID))
	sel := ask(t, agent, hitl.InquiryRequest{Prompt: "Which region?", Options: []hitl.Option{{Value: "eu west", Label: "Europe"}, {Value: "us"}}})
	human := e.principal("vic", []string{"responder"})
	_, err := human.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "")
	must(t, err)
	eventually(t, "the answer in the Slack room", func() bool { return len(rooms[hitl.ChatSlack].requests()) == 3 })
	slackPosts := rooms[hitl.ChatSlack].requests()
	var answered, region map[string]any
	for _, r := range slackPosts[1:] {
		var v map[string]any
		json.Unmarshal(r.body, &v)
		if strings.Contains(v["text"].(string), "answered by vic") {
			answered = v
		} else {
			region = v
		}
	}
	if answered == nil || region == nil {
		t.Fatalf("Slack posts after the first: %d, want the region question and the answer", len(slackPosts)-1)
	}
	regionBlocks, _ := json.Marshal(region["blocks"])
	if !strings.Contains(string(regionBlocks), fmt.Sprintf(`%s/inquiries/%d?answer=%s`, e.URL, sel.ID, url.QueryEscape("eu west"))) || !strings.Contains(string(regionBlocks), `"text":"Europe"`) {
		t.Fatalf("region's buttons %s", regionBlocks)
	}
	if answeredBlocks, _ := json.Marshal(answered["blocks"]); strings.Contains(string(answeredBlocks), `"actions"`) {
		t.Fatalf("the answer notice offers buttons: %s", answeredBlocks)
	}
	eventually(t, "the region question in the Google Chat room", func() bool { return len(rooms[hitl.ChatGoogleChat].requests()) == 2 })
	if n := len(rooms[hitl.ChatTeams].requests()); n != 1 {
		t.Fatalf("the deleted Teams webhook got %d posts, want only the first", n)
	}
	if n := len(rooms[hitl.ChatGoogleChat].requests()); n != 2 {
		t.Fatalf("Google Chat got %d posts: it subscribed to inquiry.created only", n)
	}
	listed, err := e.Admin.ChatWebhooks(ctx)
	must(t, err)
	if len(listed) != 3 {
		t.Fatalf("%d chat webhooks listed after one was deleted", len(listed))
	}
}

func TestChatWebhookBadInput(t *testing.T) {
	e := newEnv(t) // private addresses refused, as in production
	for _, c := range []struct {
		body  string
		paths []string
	}{
		{`{"kind":"irc","url":"ftp://example.com/x","events":["session.updated","inquiry.created"]}`, []string{`"/kind"`, `"/url"`, `"/events/0"`}},
		{`{"kind":"slack","url":"http://127.0.0.1:9/hook"}`, []string{`"/url"`}},
		{`{"kind":"slack"}`, []string{`"/url"`}},
		{`{"kind":"slack","url":"https://example.com/x","extra":1}`, []string{"extra"}},
		{`not json`, nil},
	} {
		r := e.do("POST", "/v1/chat-webhooks", adminToken, c.body)
		if r.status != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", c.body, r.status)
		}
		for _, p := range c.paths {
			if !strings.Contains(r.text, p) {
				t.Errorf("%s: the problem does not name %s: %s", c.body, p, r.text)
			}
		}
	}
	if hooks, err := e.Admin.ChatWebhooks(ctx); err != nil || len(hooks) != 0 {
		t.Fatalf("after refusals: %v, %v", hooks, err)
	}
	wantCode(t, e.Admin.DeleteChatWebhook(ctx, "cwh_nope"), hitl.ENotFound)
	human := e.principal("vic", []string{"responder", "agent"})
	_, err := human.CreateChatWebhook(ctx, &hitl.ChatWebhookRequest{Kind: "slack", URL: "https://example.com/x"})
	wantCode(t, err, hitl.EForbidden)
	_, err = human.ChatWebhooks(ctx)
	wantCode(t, err, hitl.EForbidden)
	if _, err := human.Notifications(ctx, 999); client.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("notifications of an unknown inquiry: %v", err)
	}
}
