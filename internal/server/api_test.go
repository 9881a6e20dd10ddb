package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/buildinfo"
	"github.com/hitl-dev/hitl/internal/testserver"
)

var ctx = context.Background()

func TestAskAssignAnswerWithSeveralPrincipals(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("deploy-bot", []string{"agent"})
	alice := e.principal("alice", []string{"responder"}, "sre")
	bob := e.principal("bob", []string{"responder"})
	other := e.principal("other-bot", []string{"agent"})

	inq := ask(t, agent, hitl.InquiryRequest{
		Prompt: "Approve deployment of api v2.5.0 to production?", RequestType: hitl.RequestApproval,
		Context: json.RawMessage(`{"deployment_plan":{"target":"production","version":"v2.5.0"}}`),
		Session: "deploy-7781", Origin: "deploy-agent", AssignedTo: []string{"group:sre"},
	})
	if inq.Status != hitl.StatusPending || inq.CreatedBy != "deploy-bot" || string(inq.ResponseSchema) == "" {
		t.Fatalf("created inquiry: %+v", inq)
	}

	// Visibility: the assignee and the creator see it; another responder and another agent do not.
	if _, err := alice.Inquiry(ctx, inq.ID); err != nil {
		t.Fatalf("assignee cannot see the inquiry: %v", err)
	}
	wantCode(t, second(bob.Inquiry(ctx, inq.ID)), hitl.ENotFound)
	wantCode(t, second(other.Inquiry(ctx, inq.ID)), hitl.ENotFound)
	page, err := bob.Inquiries(ctx, client.ListOptions{})
	must(t, err)
	if len(page.Data) != 0 {
		t.Fatalf("bob lists %d inquiries, want 0", len(page.Data))
	}
	page, err = alice.Inquiries(ctx, client.ListOptions{AssignedTo: []string{"me"}, Status: "pending"})
	must(t, err)
	if len(page.Data) != 1 || page.Data[0].ID != inq.ID {
		t.Fatalf("alice's assigned list: %+v", page.Data)
	}

	// An agent waits while the humans answer.
	waited := make(chan *hitl.Inquiry, 1)
	go func() {
		got, err := agent.Wait(ctx, inq.ID, 30*time.Second)
		if err != nil {
			t.Error(err)
		}
		waited <- got
	}()

	// Wrong people (bob may not even see it), then a wrong answer, then the right one.
	wantCode(t, second(bob.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "")), hitl.ENotFound)
	wantCode(t, second(e.Admin.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "")), hitl.EForbidden)
	wantCode(t, second(agent.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "")), hitl.EForbidden)
	ce := wantCode(t, second(alice.Respond(ctx, inq.ID, json.RawMessage(`{"approved":"yes","extra":1}`), "")), hitl.EInvalidResponse)
	paths := map[string]bool{}
	for _, fe := range ce.Errors {
		paths[fe.Path] = true
	}
	if !paths["/approved"] || !paths[""] || len(ce.Errors) != 2 {
		t.Fatalf("422 errors = %+v, want /approved and the additional property at the root", ce.Errors)
	}
	got, err := alice.Respond(ctx, inq.ID, json.RawMessage(`{"approved": true, "comment": "LGTM"}`), "all tests passed")
	must(t, err)
	if got.Status != hitl.StatusResponded || *got.RespondedBy != "alice" || string(got.Response) != `{"approved":true,"comment":"LGTM"}` || *got.Comment != "all tests passed" {
		t.Fatalf("responded inquiry: %+v", got)
	}
	select {
	case w := <-waited:
		if w.Status != hitl.StatusResponded || string(w.Response) != string(got.Response) {
			t.Fatalf("waiter got %+v", w)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiter was not woken")
	}

	// Retrying the same answer is safe; a different one is a conflict that carries the state.
	again, err := alice.Respond(ctx, inq.ID, json.RawMessage(`{"comment":"LGTM","approved":true}`), "")
	must(t, err)
	if again.Status != hitl.StatusResponded {
		t.Fatalf("idempotent retry: %+v", again)
	}
	ce = wantCode(t, second(alice.Respond(ctx, inq.ID, json.RawMessage(`{"approved":false}`), "")), hitl.EConflict)
	if ce.Inquiry == nil || ce.Inquiry.Status != hitl.StatusResponded {
		t.Fatalf("conflict without the current state: %+v", ce)
	}
	wantCode(t, second(agent.Cancel(ctx, inq.ID, "too late")), hitl.EConflict)

	// The log has the creation, the answer and, a moment after its wait returned, the agent's
	// resumption; the agent sees them.
	var evs *client.Page[*hitl.Event]
	var types []string
	eventually(t, "the inquiry's three events", func() bool {
		evs, err = agent.EventPage(ctx, client.EventOptions{InquiryID: inq.ID})
		must(t, err)
		types = types[:0]
		for _, ev := range evs.Data {
			types = append(types, ev.Type)
		}
		return len(types) == 3
	})
	if strings.Join(types, ",") != "inquiry.created,inquiry.responded,inquiry.resumed" {
		t.Fatalf("events = %v", types)
	}
	var data hitl.Inquiry
	must(t, json.Unmarshal(evs.Data[1].Data, &data))
	if data.Status != hitl.StatusResponded || evs.Data[1].Actor != "alice" || evs.Data[1].Session != "deploy-7781" {
		t.Fatalf("responded event: %+v", evs.Data[1])
	}
	// bob may see no event of it.
	bobEvents, err := bob.EventPage(ctx, client.EventOptions{})
	must(t, err)
	if len(bobEvents.Data) != 0 {
		t.Fatalf("bob sees %d events", len(bobEvents.Data))
	}
}

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }

func TestSelectionOptions(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("planner", []string{"agent"})
	human := e.principal("carol", []string{"responder"})
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Which venue?", RequestType: hitl.RequestSelection,
		Options: []hitl.Option{{Value: "hall", Label: "Town hall"}, {Value: "garden"}, {Value: "roof", Description: "weather permitting"}}})
	wantCode(t, second(human.Respond(ctx, inq.ID, json.RawMessage(`"moon"`), "")), hitl.EInvalidResponse)
	got, err := human.Respond(ctx, inq.ID, json.RawMessage(`"garden"`), "")
	must(t, err)
	if string(got.Response) != `"garden"` {
		t.Fatalf("response %s", got.Response)
	}
	multi := ask(t, agent, hitl.InquiryRequest{Prompt: "Which days?", Options: []hitl.Option{{Value: "mon"}, {Value: "tue"}, {Value: "wed"}}, Multiple: true})
	if multi.RequestType != hitl.RequestSelection {
		t.Fatalf("options without a request_type made a %s", multi.RequestType)
	}
	for _, bad := range []string{`[]`, `["mon","mon"]`, `"mon"`, `["sun"]`} {
		wantCode(t, second(human.Respond(ctx, multi.ID, json.RawMessage(bad), "")), hitl.EInvalidResponse)
	}
	if _, err := human.Respond(ctx, multi.ID, json.RawMessage(`["mon","wed"]`), ""); err != nil {
		t.Fatal(err)
	}
}

func TestFiftyConcurrentAnswersOneWins(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	human := e.principal("dave", []string{"responder"})
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Pick a number"})
	ok, conflicts, other := answerRace(50, func(i int) error {
		_, err := human.Respond(ctx, inq.ID, json.RawMessage(fmt.Sprintf(`"answer %d"`, i)), "")
		return err
	})
	if ok != 1 || conflicts != 49 || len(other) != 0 {
		t.Fatalf("%d succeeded, %d conflicts, others %v; want 1 and 49", ok, conflicts, other)
	}
	evs, err := e.Admin.EventPage(ctx, client.EventOptions{InquiryID: inq.ID, Types: []string{hitl.EventInquiryResponded}})
	must(t, err)
	if len(evs.Data) != 1 {
		t.Fatalf("%d inquiry.responded events, want 1", len(evs.Data))
	}
}

func TestTimeoutAppliesFallbackAndToolResult(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	deadline := time.Now().Add(time.Second) // room for both creations on a busy machine
	withFallback := ask(t, agent, hitl.InquiryRequest{Prompt: "Refund order 12345?", Options: []hitl.Option{{Value: "approve"}, {Value: "deny"}},
		TimeoutAt: &deadline, FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`"deny"`),
		ToolCall: &hitl.ToolCall{ID: "call_7", Name: "request_user_input"}})
	failing := ask(t, agent, hitl.InquiryRequest{Prompt: "Anything to add?", TimeoutAt: &deadline, ToolCall: &hitl.ToolCall{ID: "call_8", Name: "request_user_input"}})

	got, err := agent.Wait(ctx, withFallback.ID, 10*time.Second)
	must(t, err)
	if got.Status != hitl.StatusTimeout || !got.FallbackApplied || string(got.Response) != `"deny"` {
		t.Fatalf("fallback inquiry after deadline: %+v", got)
	}
	if got.ToolResult == nil || got.ToolResult.ToolCallID != "call_7" || !strings.Contains(got.ToolResult.Content, `"deny"`) {
		t.Fatalf("tool result: %+v", got.ToolResult)
	}
	_, err = agent.Ask(ctx, &hitl.InquiryRequest{Prompt: "Anything to add?", TimeoutAt: &deadline, ToolCall: &hitl.ToolCall{ID: "call_8", Name: "request_user_input"}}, client.AskOptions{})
	if err == nil {
		// The deadline may already have passed when Ask created it; then creation is refused.
		t.Fatal("Ask with a passed deadline succeeded")
	}
	got, err = agent.Wait(ctx, failing.ID, 10*time.Second)
	must(t, err)
	if got.Status != hitl.StatusTimeout || got.FallbackApplied || !hitl.IsNull(got.Response) {
		t.Fatalf("fail-policy inquiry after deadline: %+v", got)
	}
	if got.ToolResult == nil || !strings.Contains(got.ToolResult.Content, "did not answer") {
		t.Fatalf("tool result: %+v", got.ToolResult)
	}
	if err := client.Outcome(got); err == nil {
		t.Fatal("Outcome of a timeout under fail is nil")
	} else if _, ok := err.(*client.TimeoutError); !ok {
		t.Fatalf("Outcome = %T, want *client.TimeoutError", err)
	}
	human := e.principal("erin", []string{"responder"})
	ce := wantCode(t, second(human.Respond(ctx, failing.ID, json.RawMessage(`"late"`), "")), hitl.EConflict)
	if ce.Inquiry.Status != hitl.StatusTimeout {
		t.Fatalf("late answer conflict state: %+v", ce.Inquiry)
	}
}

func TestAskSurvivesAServerRestart(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	human := e.principal("fay", []string{"responder"})

	type result struct {
		inq *hitl.Inquiry
		err error
	}
	created := make(chan int64, 1)
	done := make(chan result, 1)
	go func() {
		inq, err := agent.Ask(ctx, &hitl.InquiryRequest{Prompt: "Still there?"}, client.AskOptions{
			PollWait: 2 * time.Second, OnCreated: func(i *hitl.Inquiry) { created <- i.ID }})
		done <- result{inq, err}
	}()
	id := testserver.Receive(t, created, 20*time.Second, "the inquiry Ask created")
	eventually(t, "the long poll to park", func() bool { return e.Engine().Waiting() == 1 })
	// A graceful stop: the parked long poll returns, and the client retries until the server
	// is back, at the same address.
	e.Restart()
	if _, err := human.Respond(ctx, id, json.RawMessage(`"yes"`), ""); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		must(t, r.err)
		if r.inq.ID != id || string(r.inq.Response) != `"yes"` {
			t.Fatalf("Ask returned %+v", r.inq)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Ask did not return after the restart")
	}
	page, err := e.Admin.Inquiries(ctx, client.ListOptions{})
	must(t, err)
	if len(page.Data) != 1 {
		t.Fatalf("%d inquiries after the restart, want 1", len(page.Data))
	}
}

func TestIdempotencyKey(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	other := e.principal("bot2", []string{"agent"})
	req := &hitl.InquiryRequest{Prompt: "Continue?"}
	a, created, err := agent.CreateInquiry(ctx, req, client.CreateOptions{IdempotencyKey: "run-1-step-3"})
	must(t, err)
	if !created {
		t.Fatal("first create did not create")
	}
	b, created, err := agent.CreateInquiry(ctx, req, client.CreateOptions{IdempotencyKey: "run-1-step-3"})
	must(t, err)
	if created || b.ID != a.ID {
		t.Fatalf("retry created %v, id %d vs %d", created, b.ID, a.ID)
	}
	// Same after it is answered: the retrying agent gets the answer.
	human := e.principal("gus", []string{"responder"})
	_, err = human.Respond(ctx, a.ID, json.RawMessage(`"yes"`), "")
	must(t, err)
	c, created, err := agent.CreateInquiry(ctx, req, client.CreateOptions{IdempotencyKey: "run-1-step-3"})
	must(t, err)
	if created || c.Status != hitl.StatusResponded {
		t.Fatalf("retry after the answer: created %v status %s", created, c.Status)
	}
	wantCode(t, second3(agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Something else?"}, client.CreateOptions{IdempotencyKey: "run-1-step-3"})), hitl.EConflict)
	// Keys belong to their principal.
	d, created, err := other.CreateInquiry(ctx, req, client.CreateOptions{IdempotencyKey: "run-1-step-3"})
	must(t, err)
	if !created || d.ID == a.ID {
		t.Fatal("another principal's key returned the first inquiry")
	}
}

func second3[A, B any](_ A, _ B, err error) error { return err }

func TestSessions(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	stranger := e.principal("bot2", []string{"agent"})
	human := e.principal("hal", []string{"responder"})

	r := e.do("PUT", "/v1/sessions/run-42", e.token("bot3", "agent"), `{"agent":"researcher","state":{"step":1}}`)
	if r.status != http.StatusCreated || r.body["status"] != "running" {
		t.Fatalf("PUT new session: %d %s", r.status, r.text)
	}
	s, err := agent.PutSession(ctx, "run-7", &hitl.SessionRequest{Agent: "writer", State: json.RawMessage(`{"draft":1}`)})
	must(t, err)
	if s.Status != hitl.SessionRunning || s.CreatedBy != "bot" {
		t.Fatalf("session: %+v", s)
	}
	s, err = agent.PutSession(ctx, "run-7", &hitl.SessionRequest{State: json.RawMessage(`{"draft":2}`)})
	must(t, err)
	if string(s.State) != `{"draft":2}` || s.Agent != "writer" {
		t.Fatalf("updated session: %+v", s)
	}
	wantCode(t, second(stranger.PutSession(ctx, "run-7", &hitl.SessionRequest{Agent: "x"})), hitl.ENotFound)

	q1 := ask(t, agent, hitl.InquiryRequest{Prompt: "Tone?", Session: "run-7", Exclusive: true})
	wantCode(t, second3(agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Length?", Session: "run-7"}, client.CreateOptions{})), hitl.EConflict)
	s, err = agent.Session(ctx, "run-7")
	must(t, err)
	if s.Status != hitl.SessionAwaitingInput || s.PendingInquiries != 1 || s.InquiriesAsked != 1 {
		t.Fatalf("session while asking: %+v", s)
	}
	_, err = human.Respond(ctx, q1.ID, json.RawMessage(`"friendly"`), "")
	must(t, err)
	q2 := ask(t, agent, hitl.InquiryRequest{Prompt: "Length?", Session: "run-7"})
	q3 := ask(t, agent, hitl.InquiryRequest{Prompt: "Title?", Session: "run-7"})
	hist, err := human.SessionInquiries(ctx, "run-7")
	must(t, err)
	if len(hist) != 3 || hist[0].ID != q1.ID || hist[2].ID != q3.ID {
		t.Fatalf("history: %d entries", len(hist))
	}
	s, err = agent.CancelSession(ctx, "run-7")
	must(t, err)
	if s.Status != hitl.SessionCancelled || s.CompletedAt == nil {
		t.Fatalf("cancelled session: %+v", s)
	}
	for _, id := range []int64{q2.ID, q3.ID} {
		inq, err := agent.Inquiry(ctx, id)
		must(t, err)
		if inq.Status != hitl.StatusCancelled {
			t.Fatalf("inquiry %d of the cancelled session is %s", id, inq.Status)
		}
	}
	wantCode(t, second(agent.CompleteSession(ctx, "run-7", json.RawMessage(`{}`))), hitl.EConflict)
	wantCode(t, second(agent.PutSession(ctx, "run-7", &hitl.SessionRequest{Agent: "x"})), hitl.EConflict)
	wantCode(t, second3(agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "More?", Session: "run-7"}, client.CreateOptions{})), hitl.EConflict)
	wantCode(t, second(agent.CompleteSession(ctx, "nope", nil)), hitl.ENotFound)

	_, err = agent.PutSession(ctx, "run-8", &hitl.SessionRequest{})
	must(t, err)
	s, err = agent.CompleteSession(ctx, "run-8", json.RawMessage(`{"summary":"done"}`))
	must(t, err)
	if s.Status != hitl.SessionCompleted || string(s.Result) != `{"summary":"done"}` {
		t.Fatalf("completed: %+v", s)
	}
	_, err = agent.PutSession(ctx, "run-9", &hitl.SessionRequest{})
	must(t, err)
	s, err = agent.FailSession(ctx, "run-9", "tool crashed")
	must(t, err)
	if s.Status != hitl.SessionFailed || *s.Error != "tool crashed" {
		t.Fatalf("failed: %+v", s)
	}
	list, err := agent.Sessions(ctx, "cancelled", "", 0)
	must(t, err)
	if len(list.Data) != 1 || list.Data[0].Key != "run-7" {
		t.Fatalf("cancelled sessions: %+v", list.Data)
	}
	list, err = stranger.Sessions(ctx, "", "", 0)
	must(t, err)
	if len(list.Data) != 0 {
		t.Fatalf("a stranger agent lists %d sessions", len(list.Data))
	}
	evs, err := agent.EventPage(ctx, client.EventOptions{Session: "run-9"})
	must(t, err)
	if n := len(evs.Data); n != 2 || evs.Data[1].Type != hitl.EventSessionFailed {
		t.Fatalf("run-9 events: %d", n)
	}
}

func TestKeysAndAuth(t *testing.T) {
	e := newEnv(t)
	me, err := e.Admin.Me(ctx)
	must(t, err)
	if me.Name != "admin" || !me.IsAdmin() {
		t.Fatalf("admin principal: %+v", me)
	}
	k, err := e.Admin.CreateKey(ctx, &hitl.KeyRequest{Name: "ivy", Roles: []string{"responder", "agent"}, Groups: []string{"ops"}})
	must(t, err)
	if len(k.Token) < 40 || k.ID == "" {
		t.Fatalf("key: %+v", k)
	}
	ivy := client.New(e.URL, k.Token, nil)
	p, err := ivy.Me(ctx)
	must(t, err)
	if p.Name != "ivy" || len(p.Roles) != 2 || p.Groups[0] != "ops" {
		t.Fatalf("ivy: %+v", p)
	}
	wantCode(t, second(ivy.Keys(ctx)), hitl.EForbidden)
	keys, err := e.Admin.Keys(ctx)
	must(t, err)
	for _, key := range keys {
		if key.Token != "" {
			t.Fatal("key list shows a token")
		}
	}
	must(t, e.Admin.RevokeKey(ctx, k.ID))
	wantCode(t, second(ivy.Me(ctx)), hitl.EUnauthorized)
	wantCode(t, e.Admin.RevokeKey(ctx, "key_nope"), hitl.ENotFound)
	for _, h := range [][]string{{}, {"Authorization", "Bearer nope"}, {"Authorization", "Basic YWxpY2U6eA=="}, {"X-API-Key", "nope"}} {
		r := e.do("GET", "/v1/me", "", "", h...)
		if r.status != http.StatusUnauthorized || r.code() != "unauthorized" || r.header.Get("WWW-Authenticate") == "" {
			t.Fatalf("GET /v1/me with %v: %d %s", h, r.status, r.text)
		}
	}
	if r := e.do("GET", "/v1/me", "", "", "X-API-Key", adminToken); r.status != http.StatusOK {
		t.Fatalf("X-API-Key: %d", r.status)
	}
}

func TestEngagementDecision(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		c, r, rev float64
		mode      string
		ask       bool
	}{
		{0.55, 0.7, 0.8, "require_input", true},
		{0.9, 0.05, 0.95, "autonomous", false},
		{0.7, 0.4, 0.6, "request_input", true},
		{0.9, 0.95, 0.9, "defer", false},
		{0.9, 0.2, 0.05, "defer", false},
	}
	for _, tc := range cases {
		d, err := e.Admin.Decide(ctx, tc.c, tc.r, tc.rev)
		must(t, err)
		if d.Mode != tc.mode || d.ShouldAsk != tc.ask || d.Rationale == "" {
			t.Errorf("decide(%v, %v, %v) = %+v, want %s", tc.c, tc.r, tc.rev, d, tc.mode)
		}
	}
	r := e.do("POST", "/v1/engagement/decide", adminToken, `{"confidence": 1.5, "risk": 0.1}`)
	if r.status != 400 || len(r.body["errors"].([]any)) != 2 {
		t.Fatalf("bad signals: %d %s", r.status, r.text)
	}
}

func TestOperationalEndpoints(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/healthz", "/readyz", "/v1/openapi.json"} {
		if r := e.do("GET", path, "", ""); r.status != 200 {
			t.Fatalf("%s: %d", path, r.status)
		}
	}
	agent := e.principal("bot", []string{"agent"})
	human := e.principal("jo", []string{"responder"})
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "ok?"})
	woken := make(chan struct{})
	go func() {
		agent.Wait(ctx, inq.ID, 10*time.Second)
		close(woken)
	}()
	eventually(t, "the waiter parked, in the metrics", func() bool {
		return strings.Contains(e.do("GET", "/metrics", "", "").text, "\nhitl_waiters 1\n")
	})
	_, err := human.Respond(ctx, inq.ID, json.RawMessage(`"ok"`), "")
	must(t, err)
	<-woken
	ask(t, agent, hitl.InquiryRequest{Prompt: "still pending"})
	m := e.do("GET", "/metrics", "", "").text
	bi := buildinfo.Get() // (devel) and unknown in a test binary: the metric says so too
	for _, want := range []string{
		"hitl_inquiries_created_total 2", `hitl_inquiries_resolved_total{status="responded"} 1`, "hitl_inquiries_pending 1",
		"hitl_human_response_seconds_count 1", "hitl_wake_latency_seconds_count 1", "\nhitl_waiters 0\n", "\nhitl_streams 0\n",
		`hitl_http_requests_total{route="POST /v1/inquiries",status="201"} 2`,
		fmt.Sprintf(`hitl_build_info{go_version=%q,revision=%q,version=%q} 1`, bi.GoVersion, bi.Revision, bi.Version),
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if r := e.do("GET", "/v1/nothing", adminToken, ""); r.status != 404 || r.code() != "not_found" {
		t.Fatalf("unknown route: %d %s", r.status, r.text)
	}
	if r := e.do("DELETE", "/v1/inquiries", adminToken, ""); r.status != 405 || r.header.Get("Allow") != "GET, POST" || r.code() != "method_not_allowed" {
		t.Fatalf("wrong method: %d %s", r.status, r.text)
	}
}

func TestClientHangingUpIsNoServerError(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "anyone?"})
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := agent.Wait(short, inq.ID, time.Minute); err == nil {
		t.Fatal("a wait whose context ended returned no error")
	}
	// The server counts it as a client that went away, not as a 500.
	var m string
	eventually(t, "the hang-up recorded in the metrics", func() bool {
		m = e.do("GET", "/metrics", "", "").text
		return strings.Contains(m, `hitl_http_requests_total{route="GET /v1/inquiries/{id}/wait",status="499"} 1`)
	})
	if strings.Contains(m, `status="500"`) {
		t.Fatal("a hung-up client was counted as a 500")
	}
}

func TestCreateAndWaitInOneRequest(t *testing.T) {
	e := newEnv(t)
	agentTok := e.token("bot", "agent")
	human := e.principal("uma", []string{"responder"})
	done := make(chan reply, 1)
	go func() {
		done <- e.do("POST", "/v1/inquiries?wait=10s", agentTok, `{"prompt":"Proceed?","request_type":"approval"}`)
	}()
	id := pendingByPrompt(t, human, "Proceed?").ID
	_, err := human.Respond(ctx, id, json.RawMessage(`{"approved":false}`), "")
	must(t, err)
	r := <-done
	if r.status != http.StatusCreated || r.body["status"] != "responded" || r.header.Get("Location") != fmt.Sprintf("/v1/inquiries/%d", id) {
		t.Fatalf("create with wait: %d %s", r.status, r.text)
	}
	// With nobody answering, it answers at the end of the wait with the pending inquiry.
	r = e.do("POST", "/v1/inquiries?wait=100ms", agentTok, `{"prompt":"Anyone?"}`)
	if r.status != http.StatusCreated || r.body["status"] != "pending" {
		t.Fatalf("create with an unanswered wait: %d %s", r.status, r.text)
	}
}
