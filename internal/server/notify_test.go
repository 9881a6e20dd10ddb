package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/pgtest"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/notify"
)

// recorder stands in for a channel's sender (email, Slack: their own packages test them
// against real protocol peers): it records what it is asked to send and answers as told.
type recorder struct {
	mu     sync.Mutex
	sent   []*notify.Notification
	answer func(n *notify.Notification) error
}

func (r *recorder) Send(_ context.Context, n *notify.Notification) (notify.SendResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent = append(r.sent, n)
	if r.answer != nil {
		if err := r.answer(n); err != nil {
			return notify.SendResult{}, err
		}
	}
	return notify.SendResult{Thread: "thread of " + n.ID, Response: "queued"}, nil
}

func (r *recorder) all() []*notify.Notification {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.sent)
}

// notifyEnv is a server that sends email and Slack through rec.
func notifyEnv(t *testing.T, rec *recorder, configure ...func(*server.Config)) *env {
	return newEnv(t, testserver.Configure(func(c *server.Config) {
		c.Webhooks = fastWebhooks
		c.Notify.Senders = map[string]notify.Sender{hitl.ChannelEmail: rec, hitl.ChannelSlack: rec}
		for _, f := range configure {
			f(c)
		}
	}))
}

func notificationsOf(t *testing.T, c *client.Client, id int64) []*hitl.Delivery {
	t.Helper()
	ns, err := c.Notifications(ctx, id)
	must(t, err)
	return ns
}

func TestPeopleAndGroupsByAdmins(t *testing.T) {
	e := newEnv(t)
	ada, err := e.Admin.PutPerson(ctx, "ada", &hitl.PersonRequest{DisplayName: "Ada L.", Email: "ada@example.com", SlackUserID: "U012AB3CD", Channels: []string{"slack"}})
	must(t, err)
	if ada.Name != "ada" || !slices.Equal(ada.Channels, []string{"slack"}) || ada.UpdatedAt.IsZero() {
		t.Fatalf("set %+v", ada)
	}
	got, err := e.Admin.Person(ctx, "ada")
	must(t, err)
	if got.Email != "ada@example.com" || got.DisplayName != "Ada L." {
		t.Fatalf("read %+v", got)
	}
	// PUT replaces: what the body leaves out is gone.
	_, err = e.Admin.PutPerson(ctx, "ada", &hitl.PersonRequest{Email: "ada@example.org"})
	must(t, err)
	if got, _ := e.Admin.Person(ctx, "ada"); got.SlackUserID != "" || len(got.Channels) != 0 || got.Email != "ada@example.org" {
		t.Fatalf("after replace %+v", got)
	}
	_, err = e.Admin.PutGroup(ctx, "ops", &hitl.GroupRequest{Email: "ops@example.com", SlackChannel: "C012AB3CD"})
	must(t, err)
	people, err := e.Admin.People(ctx)
	must(t, err)
	groups, err := e.Admin.Groups(ctx)
	must(t, err)
	if len(people) != 1 || len(groups) != 1 || groups[0].SlackChannel != "C012AB3CD" {
		t.Fatalf("people %+v groups %+v", people, groups)
	}

	// Bad input: every problem with its path, and nothing stored.
	r := e.do("PUT", "/v1/people/ada", adminToken, `{"email":"ada at example","channels":["fax","email","email","slack"]}`)
	if r.status != http.StatusBadRequest {
		t.Fatalf("bad person: %d %s", r.status, r.text)
	}
	for _, want := range []string{`"/email"`, `"/channels/0"`, `"/channels/2"`, `"/channels/3"`, "is not an email address", `\"fax\" is not a channel`, "slack needs the person's slack_user_id"} {
		if !strings.Contains(r.text, want) {
			t.Errorf("bad person's problem does not say %s: %s", want, r.text)
		}
	}
	if got, _ := e.Admin.Person(ctx, "ada"); got.Email != "ada@example.org" {
		t.Fatalf("a refused PUT changed the person: %+v", got)
	}
	for _, c := range []struct{ method, path, body, want string }{
		{"PUT", "/v1/people/ada", `{"slack_user_id":"ada"}`, `is not a Slack user ID`},
		{"PUT", "/v1/groups/ops", `{"slack_channel":"U012AB3CD"}`, `"/slack_channel"`},
		{"PUT", "/v1/groups/ops", `{"email":"@example.com"}`, `"/email"`},
		{"PUT", "/v1/people/ada", `{"emial":"ada@example.com"}`, "emial"},
		{"PUT", "/v1/people/ada", `{"email":"a@example.com","email":"b@example.com"}`, "email"},
		{"PUT", "/v1/people/a%20b", `{}`, "a person's name"},
		{"PUT", "/v1/groups/a%20b", `{}`, "a group's name"},
	} {
		if r := e.do(c.method, c.path, adminToken, c.body); r.status != http.StatusBadRequest || !strings.Contains(r.text, c.want) {
			t.Errorf("%s %s %s: %d %s, want 400 naming %s", c.method, c.path, c.body, r.status, r.text, c.want)
		}
	}
	// Not found, and not for others than admins.
	wantCode(t, e.Admin.DeletePerson(ctx, "nobody"), hitl.ENotFound)
	wantCode(t, e.Admin.DeleteGroup(ctx, "nobody"), hitl.ENotFound)
	if r := e.do("GET", "/v1/people/nobody", adminToken, ""); r.status != http.StatusNotFound {
		t.Fatalf("unknown person: %d", r.status)
	}
	human := e.principal("vic", []string{"responder", "agent"})
	_, err = human.PutPerson(ctx, "vic", &hitl.PersonRequest{Email: "vic@example.com"})
	wantCode(t, err, hitl.EForbidden)
	_, err = human.People(ctx)
	wantCode(t, err, hitl.EForbidden)

	// Changes are events that admins see, and others do not.
	must(t, e.Admin.DeletePerson(ctx, "ada"))
	must(t, e.Admin.DeleteGroup(ctx, "ops"))
	types := []string{hitl.EventPersonUpdated, hitl.EventPersonDeleted, hitl.EventGroupUpdated, hitl.EventGroupDeleted}
	page, err := e.Admin.EventPage(ctx, client.EventOptions{Types: types, Limit: 100})
	must(t, err)
	if len(page.Data) != 5 {
		t.Fatalf("admin sees %d people and group events, want 5", len(page.Data))
	}
	page, err = human.EventPage(ctx, client.EventOptions{Types: types, Limit: 100})
	must(t, err)
	if len(page.Data) != 0 {
		t.Fatalf("a responder sees %d people events", len(page.Data))
	}
}

// TestNotificationsReachAssignees: a created inquiry makes one notification per recipient
// and channel, each sent once with that person's answer link; the answer follows up in the
// same thread; the inquiry's notifications are listed with their status to who may see it.
func TestNotificationsReachAssignees(t *testing.T) {
	rec := &recorder{}
	e := notifyEnv(t, rec)
	_, err := e.Admin.PutPerson(ctx, "ada", &hitl.PersonRequest{Email: "ada@example.com", SlackUserID: "U0ADA"})
	must(t, err)
	agent := e.principal("bot", []string{"agent"})
	adaClient := e.principal("ada", []string{"responder"})
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}})
	eventually(t, "both messages sent", func() bool {
		ns := notificationsOf(t, adaClient, inq.ID)
		return len(ns) == 2 && ns[0].Status == hitl.DeliveryDelivered && ns[1].Status == hitl.DeliveryDelivered
	})
	sent := rec.all()
	if len(sent) != 2 {
		t.Fatalf("%d messages sent, want 2", len(sent))
	}
	for _, n := range sent {
		if n.Recipient != "ada" || n.Reason != hitl.ReasonCreated || n.Inquiry.Prompt != "Ship it?" || n.Thread != "" || n.Attempt != 1 {
			t.Fatalf("sent %+v", n)
		}
		// The answer link opens the inquiry for ada, without a key.
		if r := e.do("GET", strings.TrimPrefix(n.AnswerURL, e.URL), "", ""); r.status != http.StatusOK || !strings.Contains(r.text, "Ship it?") {
			t.Fatalf("answer link %s: %d", n.AnswerURL, r.status)
		}
		if n.InboxURL != fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID) {
			t.Fatalf("inbox URL %q", n.InboxURL)
		}
	}
	// A responder who may see the inquiry sees where it went in words, not the addresses.
	for _, d := range notificationsOf(t, adaClient, inq.ID) {
		if d.Address != "" || d.Recipient != "ada" || d.Reason != hitl.ReasonCreated || d.Kind != hitl.DeliveryNotification {
			t.Fatalf("ada's view %+v", d)
		}
	}
	if ns := notificationsOf(t, e.Admin, inq.ID); ns[0].Address == "" {
		t.Fatalf("admins see the address: %+v", ns[0])
	}
	other := e.principal("zed", []string{"responder"})
	if _, err := other.Notifications(ctx, inq.ID); client.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("someone who may not see the inquiry: %v, want not found", err)
	}
	if r := e.do("GET", "/v1/inquiries/x/notifications", adminToken, ""); r.status != http.StatusNotFound {
		t.Fatalf("a bad id: %d", r.status)
	}

	_, err = adaClient.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "")
	must(t, err)
	eventually(t, "the follow-ups", func() bool { return len(rec.all()) == 4 })
	for _, n := range rec.all()[2:] {
		if n.Reason != hitl.ReasonResolved || n.Inquiry.Status != hitl.StatusResponded || n.AnswerToken != "" {
			t.Fatalf("follow-up %+v", n)
		}
		// The thread is the one the first message to that address returned.
		i := slices.IndexFunc(sent, func(s *notify.Notification) bool { return s.Channel == n.Channel })
		if n.Thread != "thread of "+sent[i].ID {
			t.Fatalf("follow-up by %s in thread %q, want %q", n.Channel, n.Thread, "thread of "+sent[i].ID)
		}
	}
}

// TestNotificationRetries: a failed send is retried with backoff; a RetryAfter sets the next
// attempt no sooner than asked; a PermanentError fails at once.
func TestNotificationRetries(t *testing.T) {
	rec := &recorder{answer: func(n *notify.Notification) error {
		switch {
		case n.Channel == hitl.ChannelEmail && n.Attempt < 3:
			return errors.New("the relay said 451, try again")
		case n.Channel == hitl.ChannelSlack && n.Address == "U0ADA":
			return &notify.RetryAfter{Wait: time.Hour, Err: errors.New("Slack says ratelimited")}
		case n.Channel == hitl.ChannelSlack:
			return &notify.PermanentError{Err: errors.New("Slack says channel_not_found")}
		}
		return nil
	}}
	e := notifyEnv(t, rec, func(c *server.Config) { c.Webhooks.RetryMax = 2 * time.Hour })
	_, err := e.Admin.PutPerson(ctx, "ada", &hitl.PersonRequest{Email: "ada@example.com", SlackUserID: "U0ADA"})
	must(t, err)
	_, err = e.Admin.PutGroup(ctx, "ops", &hitl.GroupRequest{SlackChannel: "C0GONE"})
	must(t, err)
	inq := ask(t, e.principal("bot", []string{"agent"}), hitl.InquiryRequest{Prompt: "Ship?", AssignedTo: []string{"ada", "group:ops"}})
	byAddress := func() map[string]*hitl.Delivery {
		out := map[string]*hitl.Delivery{}
		for _, d := range notificationsOf(t, e.Admin, inq.ID) {
			out[d.Address] = d
		}
		return out
	}
	eventually(t, "email delivered on the third attempt, Slack waiting, the channel failed", func() bool {
		ds := byAddress()
		return len(ds) == 3 && ds["ada@example.com"].Status == hitl.DeliveryDelivered && ds["U0ADA"].Attempts == 1 && ds["C0GONE"].Status == hitl.DeliveryFailed
	})
	ds := byAddress()
	if d := ds["ada@example.com"]; d.Attempts != 3 || d.LastError != "" || d.LastResponse != "queued" {
		t.Fatalf("email %+v", d)
	}
	d := ds["U0ADA"]
	if wait := d.NextAttemptAt.Sub(*d.LastAttemptAt); d.Status != hitl.DeliveryPending || wait < time.Hour-time.Second || !strings.Contains(d.LastError, "ratelimited") {
		t.Fatalf("after RetryAfter 1h: %+v, next attempt %s later", d, wait)
	}
	if d := ds["C0GONE"]; d.Attempts != 1 || d.NextAttemptAt != nil || !strings.Contains(d.LastError, "channel_not_found") {
		t.Fatalf("permanent failure %+v", d)
	}
}

func TestDefaultTimeoutAndFallback(t *testing.T) {
	e := newEnv(t, testserver.Configure(func(c *server.Config) {
		c.DefaultTimeout = 90 * time.Minute
		c.DefaultFallbackPolicy = hitl.FallbackCompleteWithFallback
	}))
	agent := e.principal("bot", []string{"agent"})
	before := time.Now()
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "no deadline given"})
	if inq.TimeoutAt == nil || inq.TimeoutAt.Before(before.Add(90*time.Minute-time.Second)) || inq.TimeoutAt.After(time.Now().Add(90*time.Minute)) {
		t.Fatalf("timeout_at %v, want 90 minutes from now", inq.TimeoutAt)
	}
	if inq.FallbackPolicy != hitl.FallbackFail {
		t.Fatalf("no fallback value given: policy %s, want fail", inq.FallbackPolicy)
	}
	own := int64(30)
	inq = ask(t, agent, hitl.InquiryRequest{Prompt: "own deadline", TimeoutSeconds: &own, FallbackValue: json.RawMessage(`"later"`)})
	if inq.TimeoutAt.After(time.Now().Add(31*time.Second)) || inq.FallbackPolicy != hitl.FallbackCompleteWithFallback {
		t.Fatalf("own deadline %v and policy %s", inq.TimeoutAt, inq.FallbackPolicy)
	}

	for _, c := range []struct {
		cfg  func(*server.Config)
		want string
	}{
		{func(c *server.Config) { c.DefaultTimeout = -time.Second }, "default timeout (--default-timeout"},
		{func(c *server.Config) { c.IdempotencyTTL = time.Second }, "idempotency key lifetime (--idempotency-ttl"},
		{func(c *server.Config) { c.DefaultFallbackPolicy = "shrug" }, `default fallback policy (--default-fallback-policy, HITL_DEFAULT_FALLBACK_POLICY) "shrug"`},
		{func(c *server.Config) { c.Notify.Default = "slack:ops" }, `(--notify-default, HITL_NOTIFY_DEFAULT): destination 1 (slack:ops): "ops" is not a Slack channel ID`},
	} {
		cfg := server.Config{Addr: "127.0.0.1:0", DB: "x.db", MaxBodyBytes: 1 << 20}
		c.cfg(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate: %v, want it to say %s", err, c.want)
		}
	}
}

// TestNotificationsOnceAcrossNodes: two nodes read one log; each created inquiry yields exactly
// one notification per recipient and channel, sent once, whichever node wrote it.
func TestNotificationsOnceAcrossNodes(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	db := pgtest.Schema(t) + "&pool_max_conns=4"
	var nodes []*env
	for range 2 {
		nodes = append(nodes, startConfig(t, server.Config{DB: db, Webhooks: fastWebhooks,
			Notify: server.NotifyConfig{Senders: map[string]notify.Sender{hitl.ChannelEmail: rec, hitl.ChannelSlack: rec}}}))
	}
	_, err := nodes[0].Admin.PutPerson(ctx, "ada", &hitl.PersonRequest{Email: "ada@example.com", SlackUserID: "U0ADA"})
	must(t, err)
	_, err = nodes[1].Admin.PutGroup(ctx, "ops", &hitl.GroupRequest{SlackChannel: "C0OPS"})
	must(t, err)
	token := nodes[0].token("bot", "agent")
	agents := []*client.Client{nodes[0].Client(token), nodes[1].Client(token)}
	const n = 10
	var ids []int64
	for i := range n {
		inq := ask(t, agents[i%2], hitl.InquiryRequest{Prompt: fmt.Sprintf("q%d", i), AssignedTo: []string{"ada", "group:ops"}})
		ids = append(ids, inq.ID)
	}
	eventually(t, "three messages per inquiry", func() bool { return len(rec.all()) >= 3*n })
	for _, node := range nodes {
		node.stop()
	}
	seen := map[string]int{}
	for _, s := range rec.all() {
		seen[fmt.Sprintf("%d %s %s", s.Inquiry.ID, s.Channel, s.Address)]++
	}
	if len(rec.all()) != 3*n || len(seen) != 3*n {
		t.Fatalf("%d messages to %d distinct (inquiry, channel, address), want %d of each", len(rec.all()), len(seen), 3*n)
	}
	for _, id := range ids {
		for _, want := range []string{"email ada@example.com", "slack U0ADA", "slack C0OPS"} {
			if seen[fmt.Sprintf("%d %s", id, want)] != 1 {
				t.Fatalf("inquiry %d: %q sent %d times", id, want, seen[fmt.Sprintf("%d %s", id, want)])
			}
		}
	}
}

// TestFollowUpWaitsForTheFirstMessage: an answer that comes before the first message is sent
// waits for it, so that the follow-up lands in its thread.
func TestFollowUpWaitsForTheFirstMessage(t *testing.T) {
	var mu sync.Mutex
	relayUp := false
	rec := &recorder{answer: func(n *notify.Notification) error {
		mu.Lock()
		defer mu.Unlock()
		if !relayUp {
			return errors.New("the relay is down")
		}
		return nil
	}}
	e := notifyEnv(t, rec)
	_, err := e.Admin.PutPerson(ctx, "ada", &hitl.PersonRequest{Email: "ada@example.com"})
	must(t, err)
	inq := ask(t, e.principal("bot", []string{"agent"}), hitl.InquiryRequest{Prompt: "Ship?", AssignedTo: []string{"ada"}})
	eventually(t, "the first attempt", func() bool { return len(rec.all()) > 0 })
	_, err = e.principal("ada", []string{"responder"}).Respond(ctx, inq.ID, json.RawMessage(`"yes"`), "")
	must(t, err)
	eventually(t, "the follow-up waiting", func() bool {
		ns := notificationsOf(t, e.Admin, inq.ID)
		return len(ns) == 2 && ns[1].Attempts > 0 && strings.Contains(ns[1].LastError, "waiting for the first message to ada by email")
	})
	for _, n := range rec.all() {
		if n.Reason != hitl.ReasonCreated {
			t.Fatalf("the follow-up was sent before the first message: %+v", n)
		}
	}
	mu.Lock()
	relayUp = true
	mu.Unlock()
	eventually(t, "both sent", func() bool {
		ns := notificationsOf(t, e.Admin, inq.ID)
		return len(ns) == 2 && ns[0].Status == hitl.DeliveryDelivered && ns[1].Status == hitl.DeliveryDelivered
	})
	sent := rec.all()
	last := sent[len(sent)-1]
	if last.Reason != hitl.ReasonResolved || last.Thread != "thread of "+sent[0].ID {
		t.Fatalf("follow-up %+v in thread %q, want the first message's", last.Notification, last.Thread)
	}
}
