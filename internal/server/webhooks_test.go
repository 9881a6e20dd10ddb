package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/outbound"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/notify"
)

// fastWebhooks are delivery settings for tests: loopback receivers, short waits.
var fastWebhooks = server.WebhookConfig{AllowPrivate: true, AttemptTimeout: 300 * time.Millisecond,
	RetryBase: 20 * time.Millisecond, RetryMax: 100 * time.Millisecond}

func webhookEnv(t *testing.T, w server.WebhookConfig) *env {
	return newEnv(t, testserver.Webhooks(w))
}

// received is one request a receiver got.
type received struct {
	path   string
	header map[string]string
	body   []byte
}

func (r received) event(t *testing.T) notify.CloudEvent {
	t.Helper()
	var ce notify.CloudEvent
	if err := json.Unmarshal(r.body, &ce); err != nil {
		t.Fatalf("the body is not a CloudEvent: %v: %s", err, r.body)
	}
	return ce
}

// receiver is a webhook endpoint on loopback. It records every request and answers the n-th
// (from 1) with the status answer picks; 0 means never answer (until the request ends).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	answer func(n int, r received) int
	// The requests being answered, and the most there were at once.
	inFlight, maxInFlight int
	// release, when set, ends the hanging answers (answer 0) with 200 once it is closed.
	release chan struct{}
}

func newReceiver(t *testing.T, answer func(n int, r received) int) *receiver {
	rc := &receiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h := map[string]string{}
		for _, k := range []string{"webhook-id", "webhook-timestamp", "webhook-signature", "Content-Type", "X-Agent-Session", "traceparent", "tracestate"} {
			h[k] = r.Header.Get(k)
		}
		rc.mu.Lock()
		got := received{r.URL.Path, h, body}
		rc.got = append(rc.got, got)
		status := rc.answer(len(rc.got), got)
		release := rc.release
		rc.inFlight++
		rc.maxInFlight = max(rc.maxInFlight, rc.inFlight)
		rc.mu.Unlock()
		defer func() {
			rc.mu.Lock()
			rc.inFlight--
			rc.mu.Unlock()
		}()
		if status == 0 {
			select {
			case <-r.Context().Done():
				return
			case <-release: // nil, unless the test holds answers to release them later
				status = http.StatusOK
			}
		}
		w.WriteHeader(status)
		fmt.Fprint(w, "answer ", status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

func verify(t *testing.T, secret string, r received) {
	t.Helper()
	if err := notify.Verify(secret, r.header, r.body, time.Now(), 5*time.Minute); err != nil {
		t.Fatalf("signature of %s: %v", r.header["webhook-id"], err)
	}
}

func deliveries(t *testing.T, e *env, o client.DeliveryOptions) []*hitl.Delivery {
	t.Helper()
	o.Limit = 500
	p, err := e.Admin.Deliveries(ctx, o)
	must(t, err)
	return p.Data
}

func TestWebhookRetriedUntilAccepted(t *testing.T) {
	e := webhookEnv(t, fastWebhooks)
	rc := newReceiver(t, func(n int, _ received) int {
		if n <= 3 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	wh, err := e.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: rc.URL + "/hook", Events: []string{"inquiry.created"}, Description: "ops"})
	must(t, err)
	if !strings.HasPrefix(wh.Secret, "whsec_") || outbound.CheckSecret(wh.Secret) != nil {
		t.Fatalf("secret %q", wh.Secret)
	}
	listed, err := e.Admin.Webhooks(ctx)
	must(t, err)
	if len(listed) != 1 || listed[0].Secret != "" || listed[0].ID != wh.ID {
		t.Fatalf("listed %+v: the secret is shown only once", listed)
	}

	agent := e.principal("bot", []string{"agent"})
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval})
	eventually(t, "the delivery", func() bool {
		ds := deliveries(t, e, client.DeliveryOptions{WebhookID: wh.ID})
		return len(ds) == 1 && ds[0].Status == hitl.DeliveryDelivered
	})
	got := rc.requests()
	if len(got) != 4 {
		t.Fatalf("%d requests, want 3 failures and 1 success", len(got))
	}
	d := deliveries(t, e, client.DeliveryOptions{WebhookID: wh.ID})[0]
	for _, r := range got {
		if r.header["webhook-id"] != d.ID {
			t.Fatalf("webhook-id %q, want %q on every attempt", r.header["webhook-id"], d.ID)
		}
		if r.path != "/hook" || r.header["Content-Type"] != "application/cloudevents+json" {
			t.Fatalf("request %+v", r)
		}
		verify(t, wh.Secret, r)
	}
	if d.Attempts != 4 || d.LastStatus != 204 || d.DeliveredAt == nil || d.EventType != hitl.EventInquiryCreated || *d.InquiryID != inq.ID {
		t.Fatalf("delivery %+v", d)
	}
	ce := got[3].event(t)
	var data hitl.Inquiry
	must(t, json.Unmarshal(ce.Data, &data))
	if ce.SpecVersion != "1.0" || ce.Type != "hitl.inquiry.created" || ce.Subject != fmt.Sprintf("inquiries/%d", inq.ID) ||
		ce.ID != d.EventID || ce.Source == "" || data.ID != inq.ID || data.Prompt != "Deploy?" {
		t.Fatalf("CloudEvent %+v", ce)
	}
	// Only the subscribed type is sent. The outbox turns an event into all its deliveries in
	// one transaction: once a webhook subscribed to cancellations has its delivery, the other
	// one would have had its too.
	other := newReceiver(t, func(int, received) int { return http.StatusOK })
	cancels, err := e.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: other.URL, Events: []string{"inquiry.cancelled"}})
	must(t, err)
	_, err = agent.Cancel(ctx, inq.ID, "not needed")
	must(t, err)
	eventually(t, "the cancellation's delivery", func() bool {
		return len(deliveries(t, e, client.DeliveryOptions{WebhookID: cancels.ID})) == 1
	})
	if ds := deliveries(t, e, client.DeliveryOptions{WebhookID: wh.ID}); len(ds) != 1 {
		t.Fatalf("%d deliveries after a cancel the webhook did not subscribe to", len(ds))
	}
	if n := len(rc.requests()); n != 4 {
		t.Fatalf("%d requests after a cancel the webhook did not subscribe to", n)
	}
}

func TestSlowReceiverDoesNotDelayOthers(t *testing.T) {
	w := fastWebhooks
	w.Concurrency, w.PerTarget = 16, 4
	w.AttemptTimeout = time.Minute // the slow receiver's attempts stay in flight until released
	e := webhookEnv(t, w)
	// The slow receiver holds every attempt until the test releases them: it takes all the
	// attempts one target may have at once, and no more.
	slow := newReceiver(t, func(int, received) int { return 0 })
	slow.mu.Lock()
	slow.release = make(chan struct{})
	slow.mu.Unlock()
	fast := newReceiver(t, func(int, received) int { return http.StatusOK })
	slowHook, err := e.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: slow.URL, Events: []string{"*"}})
	must(t, err)
	_, err = e.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: fast.URL, Events: []string{"inquiry.created"}})
	must(t, err)
	agent := e.principal("bot", []string{"agent"})
	for i := range 10 {
		ask(t, agent, hitl.InquiryRequest{Prompt: fmt.Sprintf("q%d", i)})
	}
	eventually(t, "4 attempts held by the slow receiver", func() bool {
		slow.mu.Lock()
		defer slow.mu.Unlock()
		return slow.inFlight == 4
	})
	// The fast receiver is served beside the held attempts, not after them.
	eventually(t, "the fast receiver's 10 events", func() bool { return len(fast.requests()) == 10 })
	if ds := deliveries(t, e, client.DeliveryOptions{WebhookID: slowHook.ID, Status: "delivered"}); len(ds) != 0 {
		t.Fatalf("%d slow deliveries done while the slow receiver held them all", len(ds))
	}
	close(slow.release)
	eventually(t, "the slow receiver's 10 deliveries", func() bool {
		ds := deliveries(t, e, client.DeliveryOptions{WebhookID: slowHook.ID, Status: "delivered"})
		return len(ds) == 10
	})
	slow.mu.Lock()
	most := slow.maxInFlight
	slow.mu.Unlock()
	if most > 4 {
		t.Fatalf("%d attempts at once to one receiver, want at most 4", most)
	}
	ids := map[string]int{}
	for _, r := range slow.requests() {
		ids[r.header["webhook-id"]]++
	}
	if len(ids) != 10 {
		t.Fatalf("%d distinct webhook-ids at the slow receiver, want 10", len(ids))
	}
}

func TestTimedOutAttemptIsRecorded(t *testing.T) {
	e := webhookEnv(t, server.WebhookConfig{AllowPrivate: true, AttemptTimeout: 200 * time.Millisecond, RetryBase: time.Hour})
	hang := newReceiver(t, func(int, received) int { return 0 })
	wh, err := e.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: hang.URL, Events: []string{"inquiry.created"}})
	must(t, err)
	ask(t, e.principal("bot", []string{"agent"}), hitl.InquiryRequest{Prompt: "hello?"})
	eventually(t, "the timed-out attempt", func() bool {
		ds := deliveries(t, e, client.DeliveryOptions{WebhookID: wh.ID})
		return len(ds) == 1 && ds[0].Attempts == 1
	})
	d := deliveries(t, e, client.DeliveryOptions{WebhookID: wh.ID})[0]
	if d.Status != hitl.DeliveryPending || d.LastError != "no answer within 200ms" || d.NextAttemptAt == nil ||
		d.NextAttemptAt.Sub(*d.LastAttemptAt) < 30*time.Minute {
		t.Fatalf("after a timeout: %+v, want pending with the next attempt about an hour later", d)
	}
}

func TestFailedDeliveryRetriedByHand(t *testing.T) {
	// Retries stop at once: the first failure fails the delivery.
	e := webhookEnv(t, server.WebhookConfig{AllowPrivate: true, RetryBase: time.Second, RetryFor: time.Millisecond})
	var ok sync.Mutex
	accept := false
	rc := newReceiver(t, func(int, received) int {
		ok.Lock()
		defer ok.Unlock()
		if accept {
			return http.StatusOK
		}
		return http.StatusServiceUnavailable
	})
	wh, err := e.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: rc.URL, Events: []string{"inquiry.created"}})
	must(t, err)
	ask(t, e.principal("bot", []string{"agent"}), hitl.InquiryRequest{Prompt: "hello?"})
	eventually(t, "the failed delivery", func() bool {
		return len(deliveries(t, e, client.DeliveryOptions{Status: "failed"})) == 1
	})
	d := deliveries(t, e, client.DeliveryOptions{WebhookID: wh.ID, Status: "failed"})[0]
	if d.LastStatus != 503 || d.LastResponse != "answer 503" || d.NextAttemptAt != nil {
		t.Fatalf("failed delivery %+v", d)
	}
	ok.Lock()
	accept = true
	ok.Unlock()
	retried, err := e.Admin.RetryDelivery(ctx, d.ID)
	must(t, err)
	if retried.Status != hitl.DeliveryPending || retried.ID != d.ID {
		t.Fatalf("retried %+v", retried)
	}
	eventually(t, "the delivery sent again", func() bool {
		return len(deliveries(t, e, client.DeliveryOptions{WebhookID: wh.ID, Status: "delivered"})) == 1
	})
	got := rc.requests()
	if len(got) != 2 || got[0].header["webhook-id"] != got[1].header["webhook-id"] || string(got[0].body) != string(got[1].body) {
		t.Fatalf("%d requests; the retry must send the same message with the same webhook-id", len(got))
	}
	// Deleting the webhook deletes its deliveries; its list is then unknown.
	must(t, e.Admin.DeleteWebhook(ctx, wh.ID))
	wantCode(t, e.Admin.DeleteWebhook(ctx, wh.ID), hitl.ENotFound)
	_, err = e.Admin.Deliveries(ctx, client.DeliveryOptions{WebhookID: wh.ID})
	wantCode(t, err, hitl.ENotFound)
	if ds := deliveries(t, e, client.DeliveryOptions{}); len(ds) != 0 {
		t.Fatalf("%d deliveries left after the delete", len(ds))
	}
}

func TestResumeCallbacks(t *testing.T) {
	e := webhookEnv(t, fastWebhooks)
	rc := newReceiver(t, func(int, received) int { return http.StatusOK })
	agent := e.principal("bot", []string{"agent"})
	human := e.principal("ann", []string{"responder"})
	_, err := agent.PutSession(ctx, "deploy-7781", &hitl.SessionRequest{Agent: "deployer",
		State: json.RawMessage(`{"step":3,"plan":["build","test","ship"]}`), CallbackURL: rc.URL + "/session"})
	must(t, err)
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval, Session: "deploy-7781",
		CallbackURL: rc.URL + "/inquiry"})
	if inq.CallbackURL != rc.URL+"/inquiry" {
		t.Fatalf("the inquiry's callback_url is %q", inq.CallbackURL)
	}
	responded, err := human.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "go")
	must(t, err)

	// The session's callback: its update, then the inquiry's creation and answer. The inquiry's
	// callback: its creation and answer.
	eventually(t, "five callbacks", func() bool { return len(rc.requests()) == 5 })
	secret, err := e.Admin.CallbackSecret(ctx)
	must(t, err)
	byPath := map[string][]string{}
	var answered received
	for _, r := range rc.requests() {
		verify(t, secret, r)
		ce := r.event(t)
		byPath[r.path] = append(byPath[r.path], ce.Type)
		if r.path == "/inquiry" && ce.Type == "hitl.inquiry.responded" {
			answered = r
		}
	}
	if len(byPath["/session"]) != 3 || len(byPath["/inquiry"]) != 2 {
		t.Fatalf("callbacks by path: %v", byPath)
	}
	var data struct {
		Inquiry *hitl.Inquiry `json:"inquiry"`
		Session *hitl.Session `json:"session"`
	}
	must(t, json.Unmarshal(answered.event(t).Data, &data))
	if data.Inquiry == nil || data.Inquiry.Status != hitl.StatusResponded || string(data.Inquiry.Response) != `{"approved":true}` ||
		data.Inquiry.Receipt == "" || data.Inquiry.Receipt != responded.Receipt ||
		data.Session == nil || string(data.Session.State) != `{"step":3,"plan":["build","test","ship"]}` || data.Session.Key != "deploy-7781" {
		t.Fatalf("resume data %s: want the answered inquiry and the session's state", answered.event(t).Data)
	}
	ds := deliveries(t, e, client.DeliveryOptions{Session: "deploy-7781"})
	kinds := map[hitl.DeliveryKind]int{}
	for _, d := range ds {
		kinds[d.Kind]++
	}
	if kinds[hitl.DeliverySessionCallback] != 3 || kinds[hitl.DeliveryInquiryCallback] != 2 {
		t.Fatalf("deliveries by kind %v", kinds)
	}
	if ds := deliveries(t, e, client.DeliveryOptions{InquiryID: inq.ID}); len(ds) != 4 {
		t.Fatalf("%d deliveries of the inquiry, want 4", len(ds))
	}
}

func TestWebhookBadInput(t *testing.T) {
	e := webhookEnv(t, server.WebhookConfig{}) // private addresses refused
	admin := adminToken
	agent := e.token("bot", "agent")
	for _, c := range []struct {
		name, body, path string
	}{
		{"loopback", `{"url":"http://127.0.0.1:9/hook","events":["*"]}`, "/url"},
		{"private", `{"url":"https://10.1.2.3/hook","events":["*"]}`, "/url"},
		{"cloud metadata", `{"url":"http://169.254.169.254/latest","events":["*"]}`, "/url"},
		{"IPv6 loopback", `{"url":"http://[::1]/","events":["*"]}`, "/url"},
		{"localhost by name", `{"url":"http://localhost/","events":["*"]}`, "/url"},
		{"not http", `{"url":"ftp://example.com/","events":["*"]}`, "/url"},
		{"relative", `{"url":"/hook","events":["*"]}`, "/url"},
		{"credentials in URL", `{"url":"https://u:p@93.184.215.14/","events":["*"]}`, "/url"},
		{"too long", `{"url":"https://93.184.215.14/` + strings.Repeat("a", 2100) + `","events":["*"]}`, "/url"},
		{"no events", `{"url":"https://93.184.215.14/"}`, "/events"},
		{"unknown event", `{"url":"https://93.184.215.14/","events":["inquiry.created","key.created"]}`, "/events/1"},
		{"long description", `{"url":"https://93.184.215.14/","events":["*"],"description":"` + strings.Repeat("d", 1001) + `"}`, "/description"},
	} {
		r := e.do("POST", "/v1/webhooks", admin, c.body)
		if r.status != 400 || r.code() != hitl.EInvalid || !strings.Contains(r.text, `"`+c.path+`"`) {
			t.Errorf("%s: %d %s, want 400 at %s", c.name, r.status, r.text, c.path)
		}
	}
	if r := e.do("POST", "/v1/webhooks", admin, `{"url":`); r.status != 400 {
		t.Errorf("malformed JSON: %d", r.status)
	}
	if r := e.do("POST", "/v1/webhooks", admin, `{"url":"https://93.184.215.14/","events":["*"],"secret":"mine"}`); r.status != 400 {
		t.Errorf("unknown field: %d %s", r.status, r.text)
	}
	if r := e.do("POST", "/v1/webhooks", agent, `{"url":"https://93.184.215.14/","events":["*"]}`); r.status != 403 {
		t.Errorf("an agent creating a webhook: %d", r.status)
	}
	if r := e.do("POST", "/v1/webhooks", "", `{}`); r.status != 401 {
		t.Errorf("no token: %d", r.status)
	}
	for _, path := range []string{"/v1/webhooks", "/v1/deliveries", "/v1/callback-secret"} {
		if r := e.do("GET", path, agent, ""); r.status != 403 {
			t.Errorf("an agent reading %s: %d", path, r.status)
		}
	}
	if r := e.do("GET", "/v1/deliveries?status=lost", admin, ""); r.status != 400 {
		t.Errorf("unknown status: %d", r.status)
	}
	if r := e.do("GET", "/v1/deliveries?inquiry_id=x", admin, ""); r.status != 400 {
		t.Errorf("bad inquiry_id: %d", r.status)
	}
	if r := e.do("GET", "/v1/webhooks/wh_nope/deliveries", admin, ""); r.status != 404 {
		t.Errorf("deliveries of an unknown webhook: %d", r.status)
	}
	if r := e.do("POST", "/v1/deliveries/msg_nope/retry", admin, ""); r.status != 404 {
		t.Errorf("retrying an unknown delivery: %d", r.status)
	}
	if r := e.do("DELETE", "/v1/webhooks/wh_nope", admin, ""); r.status != 404 {
		t.Errorf("deleting an unknown webhook: %d", r.status)
	}
	// Callback URLs follow the same rule, and a refused one stores nothing.
	if r := e.do("POST", "/v1/inquiries", agent, `{"prompt":"x","callback_url":"http://192.168.1.1/cb"}`); r.status != 400 || !strings.Contains(r.text, `"/callback_url"`) {
		t.Errorf("private inquiry callback: %d %s", r.status, r.text)
	}
	if r := e.do("PUT", "/v1/sessions/s1", agent, `{"callback_url":"http://127.0.0.1/cb"}`); r.status != 400 || !strings.Contains(r.text, `"/callback_url"`) {
		t.Errorf("private session callback: %d %s", r.status, r.text)
	}
	if r := e.do("GET", "/v1/sessions/s1", agent, ""); r.status != 404 {
		t.Errorf("the refused session was stored: %d", r.status)
	}
	if p, err := e.Admin.Inquiries(ctx, client.ListOptions{}); err != nil || len(p.Data) != 0 {
		t.Errorf("the refused inquiry was stored: %v %v", p, err)
	}
	if ws, err := e.Admin.Webhooks(ctx); err != nil || len(ws) != 0 {
		t.Errorf("refused webhooks were stored: %v %v", ws, err)
	}
}

func TestCallbackSecretConfigured(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	e := webhookEnv(t, server.WebhookConfig{CallbackSecret: secret})
	got, err := e.Admin.CallbackSecret(ctx)
	must(t, err)
	if got != secret {
		t.Fatalf("callback secret %q, want the configured one", got)
	}
	for _, bad := range []string{"secret", "whsec_***", "whsec_c2hvcnQ="} {
		_, err := server.Open(context.Background(), server.Config{Addr: "127.0.0.1:0", DB: filepath.Join(t.TempDir(), "x.db"),
			Webhooks: server.WebhookConfig{CallbackSecret: bad}}, nil)
		if err == nil || !strings.Contains(err.Error(), "callback secret") {
			t.Errorf("callback secret %q: %v", bad, err)
		}
	}
}

// TestWebhooksAcrossNodes: every node reads the log for deliveries, and each event is turned
// into one delivery, sent once, whichever node wrote it.
func TestWebhooksAcrossNodes(t *testing.T) {
	c := newCluster(t, 2)
	rc := newReceiver(t, func(int, received) int { return http.StatusOK })
	wh, err := c.nodes[1].Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: rc.URL, Events: []string{"inquiry.created", "inquiry.responded"}})
	must(t, err)
	const n = 20
	for i := range n {
		inq := ask(t, c.agent[i%2], hitl.InquiryRequest{Prompt: fmt.Sprintf("q%d", i)})
		_, err := c.human[(i+1)%2].Respond(ctx, inq.ID, json.RawMessage(`"ok"`), "")
		must(t, err)
	}
	eventually(t, "every event delivered", func() bool {
		return len(deliveries(t, c.nodes[0], client.DeliveryOptions{WebhookID: wh.ID, Status: "delivered"})) >= 2*n
	})
	for i, node := range c.nodes {
		p, err := node.Admin.Deliveries(ctx, client.DeliveryOptions{WebhookID: wh.ID, Limit: 500})
		must(t, err)
		if len(p.Data) != 2*n {
			t.Fatalf("node %d sees %d deliveries, want one per event", i+1, len(p.Data))
		}
	}
	// Stopped, the nodes send nothing more: every attempt they made has ended, and the
	// receiver has all it will ever get.
	for _, node := range c.nodes {
		node.stop()
	}
	events := map[string]int{}
	for _, r := range rc.requests() {
		verify(t, wh.Secret, r)
		events[r.event(t).ID]++
	}
	if len(events) != 2*n || len(rc.requests()) != 2*n {
		t.Fatalf("%d requests for %d distinct events, want %d of each", len(rc.requests()), len(events), 2*n)
	}
}

// TestReceiverSaysGoneOrLater: 410 Gone fails a delivery at once; Retry-After sets the next
// attempt's time.
func TestReceiverSaysGoneOrLater(t *testing.T) {
	e := webhookEnv(t, server.WebhookConfig{AllowPrivate: true, RetryBase: 20 * time.Millisecond, RetryMax: 2 * time.Hour})
	gone := newReceiver(t, func(int, received) int { return http.StatusGone })
	later := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer later.Close()
	goneHook, err := e.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: gone.URL, Events: []string{"inquiry.created"}})
	must(t, err)
	laterHook, err := e.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: later.URL, Events: []string{"inquiry.created"}})
	must(t, err)
	ask(t, e.principal("bot", []string{"agent"}), hitl.InquiryRequest{Prompt: "hello?"})
	eventually(t, "both first attempts", func() bool {
		g := deliveries(t, e, client.DeliveryOptions{WebhookID: goneHook.ID})
		l := deliveries(t, e, client.DeliveryOptions{WebhookID: laterHook.ID})
		return len(g) == 1 && g[0].Attempts == 1 && len(l) == 1 && l[0].Attempts == 1
	})
	if d := deliveries(t, e, client.DeliveryOptions{WebhookID: goneHook.ID})[0]; d.Status != hitl.DeliveryFailed || d.LastStatus != 410 || d.NextAttemptAt != nil {
		t.Fatalf("after 410: %+v, want failed with no next attempt", d)
	}
	d := deliveries(t, e, client.DeliveryOptions{WebhookID: laterHook.ID})[0]
	if wait := d.NextAttemptAt.Sub(*d.LastAttemptAt); d.Status != hitl.DeliveryPending || wait < time.Hour-time.Second || wait > time.Hour+time.Second {
		t.Fatalf("after Retry-After 3600: %+v, next attempt %s later, want 1h", d, wait)
	}
}
