package hitltemporal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	hitlclient "github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/notify"
	hitltemporal "github.com/hitl-dev/hitl/temporal"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"go.temporal.io/server/temporaltest"
)

const wait = 60 * time.Second

// askOnce asks one question and returns the inquiry.
func askOnce(ctx workflow.Context, req hitl.InquiryRequest) (*hitl.Inquiry, error) {
	return hitltemporal.AskHuman(ctx, req)
}

// askTwice asks two questions one after the other and returns both answers.
func askTwice(ctx workflow.Context, first, second hitl.InquiryRequest) ([]*hitl.Inquiry, error) {
	a, err := hitltemporal.AskHuman(ctx, first)
	if err != nil {
		return nil, err
	}
	b, err := hitltemporal.AskHuman(ctx, second)
	if err != nil {
		return nil, err
	}
	return []*hitl.Inquiry{a, b}, nil
}

// askLate asks with a short grace, for the test where the signal never comes.
func askLate(ctx workflow.Context, req hitl.InquiryRequest) (*hitl.Inquiry, error) {
	return hitltemporal.AskHumanWith(ctx, req, hitltemporal.Options{Grace: 500 * time.Millisecond})
}

// gate stands in front of the callback handler: it can refuse deliveries (503, as an
// application that is down), and keeps the last signed delivery of an answer it let through,
// to send again.
type gate struct {
	next     http.Handler
	refuse   atomic.Bool
	refused  atomic.Int64
	mu       sync.Mutex
	lastBody []byte
	lastHdr  http.Header
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.refuse.Load() {
		g.refused.Add(1)
		http.Error(w, "down for the test", http.StatusServiceUnavailable)
		return
	}
	body, _ := io.ReadAll(r.Body)
	if bytes.Contains(body, []byte(`"type":"hitl.inquiry.responded"`)) {
		g.mu.Lock()
		g.lastBody, g.lastHdr = body, r.Header.Clone()
		g.mu.Unlock()
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	g.next.ServeHTTP(w, r)
}

// last returns the last delivery of an answer let through.
func (g *gate) last() ([]byte, http.Header) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lastBody, g.lastHdr
}

type env struct {
	t        *testing.T
	hitl     *testserver.Server
	agent    *hitlclient.Client
	temporal *temporaltest.TestServer
	tc       client.Client
	gate     *gate
	callback string
	queue    string
}

// start runs a hitl server (retrying callbacks quickly), a Temporal server, and the callback
// handler behind a gate.
func start(t *testing.T) *env {
	t.Helper()
	srv := testserver.Start(t, testserver.Webhooks(server.WebhookConfig{
		AllowPrivate: true, RetryBase: 100 * time.Millisecond, RetryMax: 300 * time.Millisecond,
	}))
	agent, _ := srv.Key(hitl.KeyRequest{Name: "workflow-bot", Roles: []string{hitl.RoleAgent}})
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	tc := ts.GetDefaultClient()
	secret, err := srv.Admin.CallbackSecret(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h, err := hitltemporal.CallbackHandler(tc, secret)
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{next: h}
	hs := httptest.NewServer(g)
	t.Cleanup(hs.Close)
	return &env{t: t, hitl: srv, agent: agent, temporal: ts, tc: tc, gate: g, callback: hs.URL + "/hitl/callback", queue: "hitl-" + strings.ReplaceAll(t.Name(), "/", "-")}
}

// worker starts a worker with the workflows of these tests and AskHuman's activities.
func (e *env) worker() worker.Worker {
	e.t.Helper()
	return e.temporal.NewWorker(e.queue, func(r worker.Registry) {
		r.RegisterWorkflow(askOnce)
		r.RegisterWorkflow(askTwice)
		r.RegisterWorkflow(askLate)
		if err := hitltemporal.Register(r, e.agent, e.callback); err != nil {
			e.t.Fatal(err)
		}
	})
}

func (e *env) run(id string, wf any, args ...any) client.WorkflowRun {
	e.t.Helper()
	run, err := e.tc.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: e.queue}, wf, args...)
	if err != nil {
		e.t.Fatal(err)
	}
	return run
}

// pending waits until the workflow has n inquiries and returns the pending one.
func (e *env) pending(run client.WorkflowRun, n int) *hitl.Inquiry {
	e.t.Helper()
	var found *hitl.Inquiry
	testserver.Eventually(e.t, wait, "the workflow's inquiry", func() bool {
		page, err := e.hitl.Admin.Inquiries(context.Background(), hitlclient.ListOptions{Metadata: map[string]string{hitltemporal.MetaWorkflowID: run.GetID()}})
		if err != nil || len(page.Data) != n {
			return false
		}
		for _, inq := range page.Data {
			if inq.Status == hitl.StatusPending {
				found = inq
				return true
			}
		}
		return false
	})
	return found
}

func (e *env) answer(inq *hitl.Inquiry, response string) {
	e.t.Helper()
	if _, err := e.hitl.Admin.Respond(context.Background(), inq.ID, json.RawMessage(response), ""); err != nil {
		e.t.Fatal(err)
	}
}

// history counts the events of a workflow's history by type.
func (e *env) history(run client.WorkflowRun) map[enumspb.EventType]int {
	e.t.Helper()
	n := map[enumspb.EventType]int{}
	it := e.tc.GetWorkflowHistory(context.Background(), run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			e.t.Fatal(err)
		}
		n[ev.GetEventType()]++
	}
	return n
}

// oneActivity checks that the run scheduled one activity, the create: want says why.
func (e *env) oneActivity(run client.WorkflowRun, want string) {
	e.t.Helper()
	if n := e.history(run)[enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED]; n != 1 {
		e.t.Errorf("%d activities ran; want %s", n, want)
	}
}

func (e *env) signalled(run client.WorkflowRun, n int) {
	e.t.Helper()
	testserver.Eventually(e.t, wait, "the callback's signal in the workflow's history", func() bool {
		return e.history(run)[enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED] >= n
	})
}

func result[T any](t *testing.T, run client.WorkflowRun) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var v T
	if err := run.Get(ctx, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

var approval = hitl.InquiryRequest{Prompt: "Deploy v2 to production?", RequestType: hitl.RequestApproval, TimeoutSeconds: ptr(int64(3600))}

func ptr[T any](v T) *T { return &v }

func TestApprove(t *testing.T) {
	e := start(t)
	e.worker()
	run := e.run("approve", askOnce, approval)
	inq := e.pending(run, 1)
	if inq.CallbackURL != e.callback || inq.Metadata[hitltemporal.MetaRunID] != run.GetRunID() {
		t.Fatalf("the inquiry's callback_url %q and metadata %v do not name the handler and the run %s", inq.CallbackURL, inq.Metadata, run.GetRunID())
	}
	e.answer(inq, `{"approved": true}`)
	got := result[*hitl.Inquiry](t, run)
	if got.ID != inq.ID || got.Status != hitl.StatusResponded || string(got.Response) != `{"approved":true}` {
		t.Fatalf("the workflow got inquiry %d %s %s; want %d responded {\"approved\":true}", got.ID, got.Status, got.Response, inq.ID)
	}
	e.oneActivity(run, "the one that created the inquiry")
}

// TestWorkerRestartedMidWait: the answer comes while no worker runs; a new worker replays the
// workflow, which takes the answer once and creates no second inquiry.
func TestWorkerRestartedMidWait(t *testing.T) {
	e := start(t)
	w := e.worker()
	run := e.run("worker-restart", askOnce, approval)
	inq := e.pending(run, 1)
	w.Stop()
	worker.PurgeStickyWorkflowCache()
	e.answer(inq, `{"approved": false}`)
	e.signalled(run, 1) // Temporal keeps the signal while no worker runs
	e.worker()
	got := result[*hitl.Inquiry](t, run)
	if got.ID != inq.ID || string(got.Response) != `{"approved":false}` {
		t.Fatalf("the workflow got inquiry %d %s; want %d {\"approved\":false}", got.ID, got.Response, inq.ID)
	}
	page, err := e.hitl.Admin.Inquiries(context.Background(), hitlclient.ListOptions{Metadata: map[string]string{hitltemporal.MetaWorkflowID: run.GetID()}})
	if err != nil || len(page.Data) != 1 {
		t.Fatalf("the workflow has %d inquiries (%v); want 1", len(page.Data), err)
	}
	e.oneActivity(run, "the one that created the inquiry")
}

// TestHitlRestartedMidWait: the callback fails while the application is down, hitl restarts,
// and the stored delivery is retried after the restart until it gets through.
func TestHitlRestartedMidWait(t *testing.T) {
	e := start(t)
	e.worker()
	run := e.run("hitl-restart", askOnce, approval)
	inq := e.pending(run, 1)
	e.gate.refuse.Store(true)
	e.answer(inq, `{"approved": true}`)
	testserver.Eventually(t, wait, "a refused delivery of the answer", func() bool { return e.gate.refused.Load() > 0 })
	e.hitl.Restart()
	e.gate.refuse.Store(false)
	got := result[*hitl.Inquiry](t, run)
	if got.ID != inq.ID || got.Status != hitl.StatusResponded {
		t.Fatalf("the workflow got inquiry %d %s; want %d responded", got.ID, got.Status, inq.ID)
	}
	e.oneActivity(run, "only the create: the answer came by the callback")
}

// TestTimeoutWithFallback: hitl times the inquiry out and its outcome, with the fallback value,
// reaches the workflow by the callback before the workflow's own timer.
func TestTimeoutWithFallback(t *testing.T) {
	e := start(t)
	e.worker()
	req := approval
	req.TimeoutSeconds = ptr(int64(1))
	req.FallbackPolicy = hitl.FallbackCompleteWithFallback
	req.FallbackValue = json.RawMessage(`{"approved": false}`)
	run := e.run("timeout", askOnce, req)
	got := result[*hitl.Inquiry](t, run)
	if got.Status != hitl.StatusTimeout || !got.FallbackApplied || string(got.Response) != `{"approved":false}` {
		t.Fatalf("the workflow got %s, fallback applied %v, response %s; want timed out with the fallback", got.Status, got.FallbackApplied, got.Response)
	}
	e.oneActivity(run, "only the create: the outcome came by the callback")
}

// TestTimeoutUnderPolicyFail: the workflow gets *client.TimeoutError's message.
func TestTimeoutUnderPolicyFail(t *testing.T) {
	e := start(t)
	e.worker()
	req := approval
	req.TimeoutSeconds = ptr(int64(1))
	run := e.run("timeout-fail", askOnce, req)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	err := run.Get(ctx, nil)
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !strings.Contains(app.Error(), "timed out with no answer") {
		t.Fatalf("the workflow ended with %v; want the inquiry's timeout", err)
	}
}

// TestSignalNeverComes: every callback is refused; Grace after hitl's deadline the workflow
// fetches the inquiry itself and gets hitl's outcome.
func TestSignalNeverComes(t *testing.T) {
	e := start(t)
	e.gate.refuse.Store(true)
	e.worker()
	req := approval
	req.TimeoutSeconds = ptr(int64(1))
	req.FallbackPolicy = hitl.FallbackCompleteWithFallback
	req.FallbackValue = json.RawMessage(`{"approved": false}`)
	run := e.run("no-signal", askLate, req)
	got := result[*hitl.Inquiry](t, run)
	if got.Status != hitl.StatusTimeout || !got.FallbackApplied {
		t.Fatalf("the workflow got %s, fallback applied %v; want timed out with the fallback", got.Status, got.FallbackApplied)
	}
	h := e.history(run)
	if h[enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED] < 2 || h[enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED] != 0 {
		t.Errorf("history %v; want the create and a fetch, and no signal", h)
	}
}

// TestDuplicateDeliveryIgnored: the same signed callback delivered twice signals the workflow
// twice; the workflow takes the answer once and goes on to its next question.
func TestDuplicateDeliveryIgnored(t *testing.T) {
	e := start(t)
	w := e.worker()
	second := approval
	second.Prompt = "And to the second region?"
	run := e.run("duplicate", askTwice, approval, second)
	first := e.pending(run, 1)
	w.Stop()
	e.answer(first, `{"approved": true}`)
	e.signalled(run, 1)
	body, hdr := e.gate.last()
	req, _ := http.NewRequest(http.MethodPost, e.callback, bytes.NewReader(body))
	req.Header = hdr
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the repeated delivery got %s; want 200", resp.Status)
	}
	e.signalled(run, 2)
	e.worker()
	next := e.pending(run, 2)
	e.answer(next, `{"approved": false}`)
	got := result[[]*hitl.Inquiry](t, run)
	if len(got) != 2 || got[0].ID != first.ID || got[1].ID != next.ID || string(got[1].Response) != `{"approved":false}` {
		t.Fatalf("the workflow got %+v; want inquiry %d approved, then %d rejected", got, first.ID, next.ID)
	}
	if n := e.history(run)[enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED]; n != 3 {
		t.Errorf("%d signals; want 3 (the first answer twice, the second once)", n)
	}
}

// TestBadCallbacksRefused: what is not a signed callback of hitl's is refused, and says why.
func TestBadCallbacksRefused(t *testing.T) {
	e := start(t)
	secret, err := e.hitl.Admin.CallbackSecret(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"type":"hitl.inquiry.responded","data":{"inquiry":{"id":1,"status":"responded","metadata":{"temporal_workflow_id":"x"}}}}`)
	signed := func(secret string, body []byte, at time.Time) http.Header {
		h, err := notify.Headers(secret, "msg_test", at, body)
		if err != nil {
			t.Fatal(err)
		}
		out := http.Header{}
		for k, v := range h {
			out.Set(k, v)
		}
		return out
	}
	other := "whsec_" + strings.Repeat("QUJD", 8)
	for _, c := range []struct {
		name   string
		method string
		header http.Header
		body   []byte
		status int
		says   string
	}{
		{"unsigned", http.MethodPost, http.Header{}, body, 401, "no webhook-id header"},
		{"signed with another secret", http.MethodPost, signed(other, body, time.Now()), body, 401, "signature does not verify"},
		{"an old signature", http.MethodPost, signed(secret, body, time.Now().Add(-time.Hour)), body, 401, "away from now"},
		{"not JSON", http.MethodPost, signed(secret, []byte("hello"), time.Now()), []byte("hello"), 400, "not a hitl callback"},
		{"no workflow", http.MethodPost, signed(secret, []byte(`{"type":"hitl.inquiry.responded","data":{"inquiry":{"id":1,"status":"responded"}}}`), time.Now()), []byte(`{"type":"hitl.inquiry.responded","data":{"inquiry":{"id":1,"status":"responded"}}}`), 422, "not asked by hitltemporal.AskHuman"},
		{"a GET", http.MethodGet, http.Header{}, nil, 405, "POSTs"},
	} {
		req, _ := http.NewRequest(c.method, e.callback, bytes.NewReader(c.body))
		req.Header = c.header
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(text), c.says) {
			t.Errorf("%s: got %d %s; want %d saying %q", c.name, resp.StatusCode, text, c.status, c.says)
		}
	}
	if _, err := hitltemporal.CallbackHandler(e.tc, "not-a-secret"); err == nil || !strings.Contains(err.Error(), "whsec_") {
		t.Errorf("a handler with a wrong secret: %v; want an error naming whsec_", err)
	}
	if err := hitltemporal.Register(worker.New(e.tc, "unused", worker.Options{}), e.agent, "/callback"); err == nil || !strings.Contains(err.Error(), "absolute http(s) URL") {
		t.Errorf("registering with a relative callback URL: %v; want an error saying it must be absolute", err)
	}
}

// TestCancelledWorkflowCancelsInquiry: nobody is left answering a question no workflow asks.
func TestCancelledWorkflowCancelsInquiry(t *testing.T) {
	e := start(t)
	e.worker()
	run := e.run("cancel", askOnce, approval)
	inq := e.pending(run, 1)
	if err := e.tc.CancelWorkflow(context.Background(), run.GetID(), run.GetRunID()); err != nil {
		t.Fatal(err)
	}
	testserver.Eventually(t, wait, "the inquiry cancelled", func() bool {
		now, err := e.hitl.Admin.Inquiry(context.Background(), inq.ID)
		return err == nil && now.Status == hitl.StatusCancelled
	})
}

// TestWorkflowCancelledWhileAskingCancelsInquiry: a workflow cancelled while hitl stores its
// question (the create's answer still on its way to the worker) cancels the inquiry too, rather
// than leaving a question nobody asks.
func TestWorkflowCancelledWhileAskingCancelsInquiry(t *testing.T) {
	e := start(t)
	_, token := e.hitl.Key(hitl.KeyRequest{Name: "held-bot", Roles: []string{hitl.RoleAgent}})
	upstream, err := url.Parse(e.hitl.URL)
	if err != nil {
		t.Fatal(err)
	}
	stored, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	proxy := httputil.NewSingleHostReverseProxy(upstream)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method == http.MethodPost && resp.Request.URL.Path == "/v1/inquiries" {
			once.Do(func() { close(stored) })
			<-release
		}
		return nil
	}
	held := httptest.NewServer(proxy)
	t.Cleanup(held.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	e.temporal.NewWorker(e.queue, func(r worker.Registry) {
		r.RegisterWorkflow(askOnce)
		if err := hitltemporal.Register(r, hitlclient.New(held.URL, token, nil), e.callback); err != nil {
			t.Fatal(err)
		}
	})
	run := e.run("cancel-while-asking", askOnce, approval)
	select {
	case <-stored:
	case <-time.After(wait):
		t.Fatal("the inquiry was never created")
	}
	if err := e.tc.CancelWorkflow(context.Background(), run.GetID(), run.GetRunID()); err != nil {
		t.Fatal(err)
	}
	// The workflow has seen its cancellation once a workflow task completes after it.
	testserver.Eventually(t, wait, "the workflow to take in its cancellation", func() bool {
		it := e.tc.GetWorkflowHistory(context.Background(), run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		requested := false
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				return false
			}
			switch ev.GetEventType() {
			case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED:
				requested = true
			case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
				if requested {
					return true
				}
			}
		}
		return false
	})
	close(release)
	testserver.Eventually(t, wait, "the inquiry cancelled", func() bool {
		page, err := e.hitl.Admin.Inquiries(context.Background(), hitlclient.ListOptions{Metadata: map[string]string{hitltemporal.MetaWorkflowID: run.GetID()}})
		return err == nil && len(page.Data) == 1 && page.Data[0].Status == hitl.StatusCancelled
	})
}

// TestInvalidRequestFailsAtOnce: a question hitl refuses fails the workflow at once with hitl's
// words, rather than retrying what cannot succeed.
func TestInvalidRequestFailsAtOnce(t *testing.T) {
	e := start(t)
	e.worker()
	run := e.run("invalid", askOnce, hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval, TimeoutSeconds: ptr(int64(-5))})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	err := run.Get(ctx, nil)
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !app.NonRetryable() || !strings.Contains(err.Error(), "timeout_seconds") {
		t.Fatalf("the workflow ended with %v; want hitl's refusal, naming timeout_seconds, not retried", err)
	}
	if n := e.history(run)[enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED]; n != 1 {
		t.Errorf("the activity started %d times; want once", n)
	}
}
