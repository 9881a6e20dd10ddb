package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/pushpeer"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// call sends one request with a token ("" for none) and returns the status and the body.
func (e *env) call(method, path, token, contentType string, body []byte) (int, string) {
	e.t.Helper()
	var headers []string
	if contentType != "" {
		headers = []string{"Content-Type", contentType}
	}
	r := e.do(method, path, token, string(body), headers...)
	return r.status, r.text
}

// subscribe turns on notifications for the token's person on a device of the peer.
func (e *env) subscribe(token string, dev *pushpeer.Subscription, want int) {
	e.t.Helper()
	if code, body := e.call("POST", "/v1/me/push-subscriptions", token, "application/json", []byte(dev.JSON())); code != want {
		e.t.Fatalf("subscribe: %d %s, want %d", code, body, want)
	}
}

// nextPush waits for the peer's next message and reads it.
func nextPush(t *testing.T, peer *pushpeer.Peer) (pushpeer.Message, hitl.PushMessage) {
	t.Helper()
	select {
	case m := <-peer.Received():
		var pm hitl.PushMessage
		if err := json.Unmarshal(m.Plaintext, &pm); err != nil {
			t.Fatalf("a push is not a message: %v: %s", err, m.Plaintext)
		}
		return m, pm
	case <-time.After(10 * time.Second):
		t.Fatalf("no push within 10 s; the peer refused: %v", peer.Rejected())
	}
	panic("unreachable")
}

// pushesOf waits for one message to each of the devices, in any order, and no other.
func pushesOf(t *testing.T, peer *pushpeer.Peer, devs ...*pushpeer.Subscription) map[string]hitl.PushMessage {
	t.Helper()
	got := map[string]hitl.PushMessage{}
	for range devs {
		m, pm := nextPush(t, peer)
		if _, twice := got[m.Subscription]; twice {
			t.Fatalf("device %s got two messages: %+v", m.Subscription, pm)
		}
		got[m.Subscription] = pm
	}
	for _, d := range devs {
		if _, ok := got[d.ID]; !ok {
			t.Fatalf("device %s got nothing; got %v", d.ID, got)
		}
	}
	return got
}

// pushWebhooks retries at once, as fastWebhooks does, but gives an attempt time: encrypting
// and posting a push under a loaded test run can take longer than fastWebhooks' 300 ms, and an
// attempt cut short after the push service took the message is sent again (a lost answer
// leaves no other way), which these tests would count as a second message.
var pushWebhooks = func() server.WebhookConfig { w := fastWebhooks; w.AttemptTimeout = 10 * time.Second; return w }()

func pushEnv(t *testing.T, opts ...testserver.Option) (*env, *pushpeer.Peer) {
	peer := pushpeer.New()
	t.Cleanup(peer.Close)
	e := newEnv(t, append(opts, testserver.Webhooks(pushWebhooks))...)
	peer.RestrictTo(e.Engine().VAPIDPublicKey()) // as a browser subscribes with the server's key
	return e, peer
}

func approval(t *testing.T, c *client.Client, assigned ...string) *hitl.Inquiry {
	t.Helper()
	inq, _, err := c.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: "Deploy api v2.5.0 to production?", RequestType: hitl.RequestApproval,
		AssignedTo: assigned, Origin: "deploy-bot"}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return inq
}

func actionBody(token, action string) []byte {
	b, _ := json.Marshal(hitl.PushActionRequest{Token: token, Action: action})
	return b
}

// TestWebPushToEveryDeviceOnceAndApproveFromIt: a new approval reaches each device of its
// assignee once, decrypted by the push service with the device's keys and signed with the
// server's VAPID key; GET on the action URL answers nothing; the Approve button's token answers
// once as the person, a second use is refused; and each device's notification is replaced by
// "answered by alice".
func TestWebPushToEveryDeviceOnceAndApproveFromIt(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testWebPushToEveryDeviceOnce(t) })
	t.Run("postgres", func(t *testing.T) { testWebPushToEveryDeviceOnce(t, testserver.Postgres()) })
}

func testWebPushToEveryDeviceOnce(t *testing.T, opts ...testserver.Option) {
	e, peer := pushEnv(t, opts...)
	_, alice := e.Key(hitl.KeyRequest{Name: "alice", Roles: []string{"responder"}})
	_, bob := e.Key(hitl.KeyRequest{Name: "bob", Roles: []string{"responder"}})
	phone, laptop, bobs := peer.Subscribe(), peer.Subscribe(), peer.Subscribe()
	e.subscribe(alice, phone, http.StatusCreated)
	e.subscribe(alice, laptop, http.StatusCreated)
	e.subscribe(alice, phone, http.StatusOK) // the same device again: idempotent
	e.subscribe(bob, bobs, http.StatusCreated)

	code, body := e.call("GET", "/v1/push/vapid-public-key", alice, "", nil)
	var key struct {
		PublicKey string `json:"public_key"`
	}
	json.Unmarshal([]byte(body), &key)
	if raw, err := base64.RawURLEncoding.DecodeString(key.PublicKey); code != 200 || err != nil || len(raw) != 65 {
		t.Fatalf("VAPID key: %d %s", code, body)
	}

	inq := approval(t, e.Admin, "alice")
	got := pushesOf(t, peer, phone, laptop)
	for id, m := range got {
		if m.Title != "Approval from deploy-bot" || m.Body != inq.Prompt || m.Tag != "hitl-inquiry-"+strconv.FormatInt(inq.ID, 10) || m.InquiryID != inq.ID ||
			len(m.Actions) != 2 || m.Actions[0].Action != "approve" || m.Actions[1].Action != "reject" || m.ActionToken == "" ||
			m.ActionURL != e.URL+"/push/action" || !strings.HasPrefix(m.URL, e.URL+"/a/") {
			t.Fatalf("device %s: %+v", id, m)
		}
	}
	if got[phone.ID].ActionToken == got[laptop.ID].ActionToken {
		t.Fatal("two devices got the same action token")
	}

	// Opening the action's address answers nothing.
	if code, body := e.call("GET", "/push/action?token="+url.QueryEscape(got[phone.ID].ActionToken)+"&action=approve", "", "", nil); code != http.StatusMethodNotAllowed || !strings.Contains(body, "answers nothing") {
		t.Fatalf("GET /push/action: %d %s", code, body)
	}
	if now, _ := e.Admin.Inquiry(context.Background(), inq.ID); now.Status != hitl.StatusPending {
		t.Fatalf("a GET answered: %s", now.Status)
	}

	code, body = e.call("POST", "/push/action", "", "application/json", actionBody(got[phone.ID].ActionToken, "approve"))
	if code != 200 || !strings.Contains(body, `"title":"Approved"`) {
		t.Fatalf("approve: %d %s", code, body)
	}
	done, err := e.Admin.Inquiry(context.Background(), inq.ID)
	if err != nil || done.Status != hitl.StatusResponded || *done.RespondedBy != "alice" || string(done.Response) != `{"approved":true}` {
		t.Fatalf("after approve: %+v %v", done, err)
	}
	code, body = e.call("POST", "/push/action", "", "application/json", actionBody(got[phone.ID].ActionToken, "reject"))
	if code != http.StatusConflict || !strings.Contains(body, "used already") {
		t.Fatalf("the same token again: %d %s", code, body)
	}

	// Answered: each device's notification is replaced (same tag) by who answered.
	for id, m := range pushesOf(t, peer, phone, laptop) {
		if m.Title != "Answered by alice" || m.Tag != got[id].Tag || len(m.Actions) != 0 || m.ActionToken != "" || m.Reason != "resolved" {
			t.Fatalf("device %s after the answer: %+v", id, m)
		}
	}
	// Bob was not asked: his device heard nothing, and nothing more came.
	select {
	case m := <-peer.Received():
		t.Fatalf("an extra push to %s: %s", m.Subscription, m.Plaintext)
	default:
	}
	if r := peer.Rejected(); len(r) > 0 {
		t.Fatalf("the push service refused: %v", r)
	}
}

// TestWebPushRetriesAndForgetsGoneDevices: a 5xx from the push service is retried; a 410
// removes the device, which then gets nothing more and whose tokens stop answering.
func TestWebPushRetriesAndForgetsGoneDevices(t *testing.T) {
	e, peer := pushEnv(t)
	_, alice := e.Key(hitl.KeyRequest{Name: "alice", Roles: []string{"responder"}})
	flaky, gone := peer.Subscribe(), peer.Subscribe()
	e.subscribe(alice, flaky, http.StatusCreated)
	e.subscribe(alice, gone, http.StatusCreated)
	peer.FailNext(flaky, http.StatusServiceUnavailable, http.StatusInternalServerError)
	peer.Forget(gone)

	inq := approval(t, e.Admin, "alice")
	_, m := nextPush(t, peer)
	if m.InquiryID != inq.ID {
		t.Fatalf("push: %+v", m)
	}
	eventually(t, "the gone device's delivery to fail and the device to be removed", func() bool {
		_, err := e.Engine().PushDevice(context.Background(), gone.Endpoint)
		return hitl.ErrorCode(err) == hitl.ENotFound
	})
	var ds []*hitl.Delivery
	eventually(t, "both deliveries to be recorded", func() bool {
		ds = notificationsOf(t, e.Admin, inq.ID)
		done := 0
		for _, d := range ds {
			if d.Status != hitl.DeliveryPending {
				done++
			}
		}
		return done == 2
	})
	var flakyAttempts int
	for _, d := range ds {
		switch {
		case d.Channel != hitl.ChannelWebPush:
			t.Fatalf("a notification by %s: %+v", d.Channel, d)
		case d.Address == flaky.Endpoint:
			flakyAttempts = d.Attempts
			if d.Status != hitl.DeliveryDelivered {
				t.Fatalf("flaky device: %+v", d)
			}
		case d.Address == gone.Endpoint:
			if d.Status != hitl.DeliveryFailed || !strings.Contains(d.LastError, "410") {
				t.Fatalf("gone device: %+v", d)
			}
		}
	}
	if len(ds) != 2 || flakyAttempts != 3 {
		t.Fatalf("deliveries: %d, flaky device's attempts %d, want 3: %+v", len(ds), flakyAttempts, ds)
	}
	// The device that turned notifications off (unsubscribed) and is asked again: no push.
	code, _ := e.call("DELETE", "/v1/me/push-subscriptions?endpoint="+url.QueryEscape(flaky.Endpoint), alice, "", nil)
	if code != http.StatusNoContent {
		t.Fatalf("unsubscribe: %d", code)
	}
	approval(t, e.Admin, "alice")
	next := approval(t, e.Admin, "alice")
	eventually(t, "the next inquiry's outbox to be read", func() bool {
		_, err := e.Admin.Inquiry(context.Background(), next.ID)
		return err == nil
	})
	select {
	case m := <-peer.Received():
		t.Fatalf("a device that turned notifications off got: %s", m.Plaintext)
	default:
	}
}

// TestWebPushActionRefusals: a revoked person's token, a device that turned notifications off,
// a token altered or of another kind, a wrong action, a malformed or oversized body: each is
// refused, saying why, and the inquiry stays pending.
func TestWebPushActionRefusals(t *testing.T) {
	e, peer := pushEnv(t)
	_, alice := e.Key(hitl.KeyRequest{Name: "alice", Roles: []string{"responder"}})
	_, carol := e.Key(hitl.KeyRequest{Name: "carol", Roles: []string{"responder"}})
	aliceDev, carolDev := peer.Subscribe(), peer.Subscribe()
	e.subscribe(alice, aliceDev, http.StatusCreated)
	e.subscribe(carol, carolDev, http.StatusCreated)
	inq := approval(t, e.Admin, "alice", "carol")
	got := pushesOf(t, peer, aliceDev, carolDev)
	aliceToken, carolToken := got[aliceDev.ID].ActionToken, got[carolDev.ID].ActionToken

	post := func(body []byte) (int, string) { return e.call("POST", "/push/action", "", "application/json", body) }
	for _, c := range []struct {
		name string
		body []byte
		code int
		says string
	}{
		{"altered token", actionBody(aliceToken[:len(aliceToken)-2]+"xx", "approve"), 401, "not valid"},
		{"an answer link is no action token", actionBody(strings.TrimPrefix(got[aliceDev.ID].URL, e.URL+"/a/"), "approve"), 401, "not valid"},
		{"unknown action", actionBody(aliceToken, "maybe"), 400, "action must be"},
		{"not JSON", []byte(`token=x`), 400, "cannot be read"},
		{"unknown field", []byte(`{"token":"x","action":"approve","extra":1}`), 400, "cannot be read"},
		{"oversized", actionBody(strings.Repeat("a", 9000), "approve"), 413, "over"},
	} {
		if code, body := post(c.body); code != c.code || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.name, code, body, c.code, c.says)
		}
	}

	// Revoking alice's keys ends her token.
	keys, err := e.Admin.Keys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Name == "alice" {
			if err := e.Admin.RevokeKey(context.Background(), k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if code, body := post(actionBody(aliceToken, "approve")); code != 401 || !strings.Contains(body, "no longer works") || !strings.Contains(body, "revoked") {
		t.Fatalf("revoked person: %d %s", code, body)
	}
	// Carol turned notifications off on her device: its token ends with it.
	if code, _ := e.call("DELETE", "/v1/me/push-subscriptions", carol, "application/json", []byte(`{"endpoint":"`+carolDev.Endpoint+`"}`)); code != 204 {
		t.Fatalf("unsubscribe: %d", code)
	}
	if code, body := post(actionBody(carolToken, "reject")); code != 401 || !strings.Contains(body, "no longer gets notifications") {
		t.Fatalf("device turned off: %d %s", code, body)
	}
	if now, _ := e.Admin.Inquiry(context.Background(), inq.ID); now.Status != hitl.StatusPending {
		t.Fatalf("a refused action answered: %+v", now)
	}
}

// TestPushSubscriptionInput: what POST and DELETE /v1/me/push-subscriptions refuse, each
// with its reason, storing nothing.
func TestPushSubscriptionInput(t *testing.T) {
	e, peer := pushEnv(t)
	_, alice := e.Key(hitl.KeyRequest{Name: "alice", Roles: []string{"responder"}})
	_, agent := e.Key(hitl.KeyRequest{Name: "bot", Roles: []string{"agent"}})
	dev := peer.Subscribe()
	sub := func(endpoint, p256dh, auth string, exp string) []byte {
		return []byte(`{"endpoint":"` + endpoint + `","expirationTime":` + exp + `,"keys":{"p256dh":"` + p256dh + `","auth":"` + auth + `"}}`)
	}
	short := base64.RawURLEncoding.EncodeToString(make([]byte, 10))
	past := strconv.FormatInt(time.Now().Add(-time.Hour).UnixMilli(), 10)
	for _, c := range []struct {
		name, token string
		body        []byte
		code        int
		says        string
	}{
		{"no token", "", []byte(dev.JSON()), 401, "unauthorized"},
		{"an agent", agent, []byte(dev.JSON()), 403, "notifications are for those who answer"},
		{"not JSON", alice, []byte(`{"endpoint":`), 400, "invalid"},
		{"unknown field", alice, []byte(`{"endpoint":"x","keys":{"p256dh":"a","auth":"b"},"extra":true}`), 400, "extra"},
		{"bad base64", alice, sub(dev.Endpoint, "not base64!", dev.Auth, "null"), 400, "/keys/p256dh"},
		{"short key", alice, sub(dev.Endpoint, short, dev.Auth, "null"), 400, "65 bytes"},
		{"short auth", alice, sub(dev.Endpoint, dev.P256DH, short, "null"), 400, "16 bytes"},
		{"no endpoint", alice, sub("", dev.P256DH, dev.Auth, "null"), 400, "/endpoint"},
		{"not a URL of a push service", alice, sub("ftp://push.example/x", dev.P256DH, dev.Auth, "null"), 400, "https://"},
		{"expired", alice, sub(dev.Endpoint, dev.P256DH, dev.Auth, past), 400, "in the past"},
		{"oversized", alice, []byte(`{"endpoint":"` + strings.Repeat("a", 2<<20) + `"}`), 413, "too_large"},
	} {
		if code, body := e.call("POST", "/v1/me/push-subscriptions", c.token, "application/json", c.body); code != c.code || !strings.Contains(body, c.says) {
			t.Errorf("%s: %d %s, want %d saying %q", c.name, code, body, c.code, c.says)
		} else if c.code == 400 && !strings.Contains(body, `"code":"invalid"`) {
			// invalid_response is an answer's failing its inquiry; a bad device is bad input.
			t.Errorf("%s: %s, want the code invalid", c.name, body)
		}
	}
	if _, err := e.Engine().PushDevice(context.Background(), dev.Endpoint); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("a refused subscription was stored: %v", err)
	}
	if code, body := e.call("DELETE", "/v1/me/push-subscriptions?endpoint="+url.QueryEscape(dev.Endpoint), alice, "", nil); code != 404 {
		t.Fatalf("forgetting an unknown device: %d %s", code, body)
	}
	if code, body := e.call("DELETE", "/v1/me/push-subscriptions", alice, "", nil); code != 400 || !strings.Contains(body, "endpoint is required") {
		t.Fatalf("forgetting nothing: %d %s", code, body)
	}
	// Another person's device is not theirs to forget.
	_, bob := e.Key(hitl.KeyRequest{Name: "bob", Roles: []string{"responder"}})
	e.subscribe(alice, dev, http.StatusCreated)
	if code, _ := e.call("DELETE", "/v1/me/push-subscriptions?endpoint="+url.QueryEscape(dev.Endpoint), bob, "", nil); code != 404 {
		t.Fatalf("bob forgot alice's device: %d", code)
	}
	if _, err := e.Engine().PushDevice(context.Background(), dev.Endpoint); err != nil {
		t.Fatalf("alice's device after bob's attempt: %v", err)
	}
}

// TestWebPushForGroupsRemindersAndEscalations: a member's devices hear of what is asked of
// their group, of its reminders, and an escalation reaches the devices of those it adds (the
// timers follow the server's clock); an unassigned inquiry reaches everyone who answers.
func TestWebPushForGroupsRemindersAndEscalations(t *testing.T) {
	peer := pushpeer.New()
	t.Cleanup(peer.Close)
	clk := clock.NewManual(time.Now().UTC().Truncate(time.Second))
	e := newEnv(t, testserver.Webhooks(pushWebhooks), testserver.Configure(func(c *server.Config) { c.Clock = clk }))
	_, alice := e.Key(hitl.KeyRequest{Name: "alice", Roles: []string{"responder"}, Groups: []string{"ops"}})
	_, bob := e.Key(hitl.KeyRequest{Name: "bob", Roles: []string{"responder"}})
	aliceDev, bobDev := peer.Subscribe(), peer.Subscribe()
	e.subscribe(alice, aliceDev, http.StatusCreated)
	e.subscribe(bob, bobDev, http.StatusCreated)

	inq, _, err := e.Admin.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: "Which region?", Options: []hitl.Option{{Value: "eu"}, {Value: "us"}},
		RequestType: hitl.RequestSelection, AssignedTo: []string{"group:ops"}, Origin: "planner", RemindEvery: "90m", EscalateAfter: "2h",
		EscalateTo: []string{"bob"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expect := func(dev *pushpeer.Subscription, title string) hitl.PushMessage {
		t.Helper()
		m, pm := nextPush(t, peer)
		if m.Subscription != dev.ID || pm.Title != title || pm.InquiryID != inq.ID {
			t.Fatalf("push to %s: %+v; want %q to %s", m.Subscription, pm, title, dev.ID)
		}
		return pm
	}
	// Each push is recorded as delivered before the clock jumps: a jump of half an hour
	// ends the lease of a delivery still in flight, and the dispatcher rightly sends it again.
	delivered := func(n int) {
		t.Helper()
		eventually(t, fmt.Sprintf("%d notifications, each delivered", n), func() bool {
			ds := notificationsOf(t, e.Admin, inq.ID)
			done := 0
			for _, d := range ds {
				if d.Status == hitl.DeliveryDelivered && d.Channel == hitl.ChannelWebPush {
					done++
				}
			}
			return len(ds) == n && done == n
		})
	}
	first := expect(aliceDev, "Question from planner")
	if len(first.Actions) != 0 || first.ActionToken != "" || !strings.HasPrefix(first.URL, e.URL+"/a/") {
		t.Fatalf("a choice's notification opens its form, with no buttons: %+v", first)
	}
	delivered(1)
	clk.Advance(90 * time.Minute)
	expect(aliceDev, "Reminder: question from planner")
	delivered(2)
	clk.Advance(30 * time.Minute)
	expect(bobDev, "Escalated to you: question from planner")
	delivered(3)

	// Unassigned: whoever answers may answer it, so every device of those who answer hears of
	// it, but not the asker's own.
	_, admin2 := e.Key(hitl.KeyRequest{Name: "root2", Roles: []string{"admin"}})
	adminDev := peer.Subscribe()
	e.subscribe(admin2, adminDev, http.StatusCreated)
	r := e.do("POST", "/v1/inquiries", admin2, `{"prompt":"Anyone?","request_type":"approval"}`, "Content-Type", "application/json")
	if r.status != 201 {
		t.Fatalf("unassigned: %d %s", r.status, r.text)
	}
	for _, m := range pushesOf(t, peer, aliceDev, bobDev) {
		if m.Body != "Anyone?" || len(m.Actions) != 2 {
			t.Fatalf("unassigned: %+v", m)
		}
	}
	if ds := notificationsOf(t, e.Admin, int64(r.body["id"].(float64))); len(ds) != 2 || ds[0].Address == adminDev.Endpoint || ds[1].Address == adminDev.Endpoint {
		t.Fatalf("the unassigned inquiry's notifications: %+v", ds)
	}
}

// TestVAPIDKeyIsKeptInTheDatabase: the key pair is made once and read again after a restart,
// so that devices subscribed before keep receiving.
func TestVAPIDKeyIsKeptInTheDatabase(t *testing.T) {
	e := newEnv(t)
	before := e.Engine().VAPIDPublicKey()
	private, _ := e.Engine().VAPIDKeys()
	e.Restart()
	if after := e.Engine().VAPIDPublicKey(); after != before || before == "" {
		t.Fatalf("the VAPID key changed across a restart: %q, then %q", before, after)
	}
	if again, _ := e.Engine().VAPIDKeys(); again != private {
		t.Fatal("the VAPID private key changed across a restart")
	}
}

// TestNotifyNarrowsToDevices: an inquiry's notify may list webpush; one that lists other
// channels only reaches no device.
func TestNotifyNarrowsToDevices(t *testing.T) {
	e, peer := pushEnv(t)
	_, alice := e.Key(hitl.KeyRequest{Name: "alice", Roles: []string{"responder"}})
	dev := peer.Subscribe()
	e.subscribe(alice, dev, http.StatusCreated)
	ask := func(notify string) int64 {
		t.Helper()
		r := e.do("POST", "/v1/inquiries", adminToken, `{"prompt":"Ok?","assigned_to":["alice"],"notify":`+notify+`}`, "Content-Type", "application/json")
		if r.status != 201 {
			t.Fatalf("notify %s: %d %s", notify, r.status, r.text)
		}
		return int64(r.body["id"].(float64))
	}
	emailOnly := ask(`["email"]`)
	phones := ask(`["webpush"]`)
	if m, pm := nextPush(t, peer); m.Subscription != dev.ID || pm.InquiryID != phones {
		t.Fatalf("push: %+v", pm)
	}
	if ds := notificationsOf(t, e.Admin, emailOnly); len(ds) != 0 {
		t.Fatalf("an inquiry for email only reached a device: %+v", ds)
	}
	if r := e.do("POST", "/v1/inquiries", adminToken, `{"prompt":"Ok?","notify":["pager"]}`, "Content-Type", "application/json"); r.status != 400 || !strings.Contains(r.text, "email, slack, webpush") {
		t.Fatalf("an unknown channel: %d %s", r.status, r.text)
	}
}

// TestWebPushToTheStandIn: while alice is away, what is asked of her reaches her delegate's
// devices (saying for whom), not hers; his Approve answers for her.
func TestWebPushToTheStandIn(t *testing.T) {
	e, peer := pushEnv(t)
	_, alice := e.Key(hitl.KeyRequest{Name: "alice", Roles: []string{"responder"}})
	_, bob := e.Key(hitl.KeyRequest{Name: "bob", Roles: []string{"responder"}})
	aliceDev, bobDev := peer.Subscribe(), peer.Subscribe()
	e.subscribe(alice, aliceDev, http.StatusCreated)
	e.subscribe(bob, bobDev, http.StatusCreated)
	now := time.Now().UTC()
	absence := `{"from":"` + now.Add(-time.Hour).Format(time.RFC3339) + `","until":"` + now.Add(24*time.Hour).Format(time.RFC3339) + `","delegate":"bob"}`
	if r := e.do("PUT", "/v1/people/alice/absence", alice, absence, "Content-Type", "application/json"); r.status != 200 && r.status != 201 {
		t.Fatalf("absence: %d %s", r.status, r.text)
	}
	inq := approval(t, e.Admin, "alice")
	m, pm := nextPush(t, peer)
	if m.Subscription != bobDev.ID || pm.Title != "Approval from deploy-bot for alice, who is away" || pm.ActionToken == "" {
		t.Fatalf("push: to %s %+v", m.Subscription, pm)
	}
	if code, body := e.call("POST", "/push/action", "", "application/json", actionBody(pm.ActionToken, "approve")); code != 200 {
		t.Fatalf("bob approves for alice: %d %s", code, body)
	}
	done, err := e.Admin.Inquiry(context.Background(), inq.ID)
	if err != nil || done.Status != hitl.StatusResponded || *done.RespondedBy != "bob" || done.OnBehalfOf == nil || *done.OnBehalfOf != "alice" {
		t.Fatalf("after bob's Approve: %+v %v", done, err)
	}
	for _, d := range notificationsOf(t, e.Admin, inq.ID) {
		if d.Address == aliceDev.Endpoint {
			t.Fatalf("alice's device was told while she is away: %+v", d)
		}
	}
}

// TestVAPIDContact: the JWT's sub names --push-contact (a mailto: address or an https:// URL),
// else the public https:// URL; the push service checks the signature it is in.
func TestVAPIDContact(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []testserver.Option
		want string
	}{
		{"mailto", []testserver.Option{testserver.Configure(func(c *server.Config) { c.PushContact = "mailto:ops@example.com" })}, "mailto:ops@example.com"},
		{"https", []testserver.Option{testserver.Configure(func(c *server.Config) { c.PushContact = "https://ops.example.com/contact" })}, "https://ops.example.com/contact"},
		{"public URL", []testserver.Option{testserver.PublicURL("https://hitl.example.com")}, "https://hitl.example.com"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, peer := pushEnv(t, c.opts...)
			_, ada := e.Key(hitl.KeyRequest{Name: "ada", Roles: []string{"responder"}})
			e.subscribe(ada, peer.Subscribe(), http.StatusCreated)
			approval(t, e.Admin, "ada")
			if m, _ := nextPush(t, peer); m.Subject != c.want {
				t.Fatalf("sub %q, want %q", m.Subject, c.want)
			}
		})
	}
}

// TestWebPushToTwentyDevices: a person may have 20 devices, the 21st is refused in words
// (409) and stores nothing, and one question reaches each of the 20 once.
func TestWebPushToTwentyDevices(t *testing.T) {
	e, peer := pushEnv(t)
	_, ada := e.Key(hitl.KeyRequest{Name: "ada", Roles: []string{"responder"}})
	devs := make([]*pushpeer.Subscription, 20)
	for i := range devs {
		devs[i] = peer.Subscribe()
		e.subscribe(ada, devs[i], http.StatusCreated)
	}
	extra := peer.Subscribe()
	if code, body := e.call("POST", "/v1/me/push-subscriptions", ada, "application/json", []byte(extra.JSON())); code != http.StatusConflict || !strings.Contains(body, "20 devices") {
		t.Fatalf("a 21st device: %d %s", code, body)
	}
	if _, err := e.Engine().PushDevice(context.Background(), extra.Endpoint); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("the refused device was stored: %v", err)
	}
	e.subscribe(ada, devs[3], http.StatusOK) // one of the 20 again is no 21st
	approval(t, e.Admin, "ada")
	pushesOf(t, peer, devs...)
	select {
	case m := <-peer.Received():
		t.Fatalf("a device got a second message: %s %s", m.Subscription, m.Plaintext)
	default:
	}
}
