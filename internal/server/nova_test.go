package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// novaMsg is a message of Nova's WebSocket protocol (seed 004).
type novaMsg struct {
	Type          string          `json:"type"`
	Subscription  string          `json:"subscription"`
	InteractionID int64           `json:"interaction_id"`
	Question      string          `json:"question"`
	Schema        json.RawMessage `json:"schema"`
	OriginName    string          `json:"origin_name"`
	ThreadID      string          `json:"thread_id"`
	Status        string          `json:"status"`
	Message       string          `json:"message"`
	TaskID        string          `json:"task_id"`
}

func novaRead(t *testing.T, c *websocket.Conn) novaMsg {
	t.Helper()
	return wsReadAs[novaMsg](t, c)
}

// novaSubscribe opens /v1/ws as a person and subscribes with Nova's protocol to a thread.
func novaSubscribe(t *testing.T, e *env, token, thread string) *websocket.Conn {
	t.Helper()
	c := dialWS(t, e, token)
	wsSend(t, c, fmt.Sprintf(`{"type":"subscribe","id":"nova","protocol":"nova","filters":{"session":%q}}`, thread))
	if m := wsRead(t, c); m.Type != "subscribed" {
		t.Fatalf("subscribe: %+v", m)
	}
	return c
}

// resumedEvents counts the inquiry.resumed events of an inquiry.
func resumedEvents(t *testing.T, c *client.Client, id int64) int {
	t.Helper()
	page, err := c.EventPage(ctx, client.EventOptions{Types: []string{hitl.EventInquiryResumed}, InquiryID: id, Limit: 100})
	must(t, err)
	return len(page.Data)
}

// TestNovaInteractions drives hitl as Nova's client does: the question card comes by
// user_prompt on the WebSocket, the answer goes to /api/interactions/{id}/answer, and the card
// follows interaction_update ANSWERED then RESUMING once the waiting agent has the answer; a
// declined question fails its task (session.failed, Nova's task_error).
func TestNovaInteractions(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("nova-agent", []string{hitl.RoleAgent})
	aliceTok := e.token("alice", hitl.RoleResponder)
	ws := novaSubscribe(t, e, aliceTok, "thread-7")

	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Which day suits you for the review?", Session: "thread-7",
		Origin: "Calendar agent", RequestType: hitl.RequestInput, ResponseSchema: json.RawMessage(`{"type":"string"}`)})
	prompt := novaRead(t, ws)
	if prompt.Type != "user_prompt" || prompt.InteractionID != inq.ID || prompt.Question != inq.Prompt ||
		prompt.OriginName != "Calendar agent" || prompt.ThreadID != "thread-7" || string(prompt.Schema) != `{"type":"string"}` {
		t.Fatalf("user_prompt: %+v", prompt)
	}

	// Rehydration on reload: the pending interactions of the thread.
	r := e.do("GET", "/api/interactions/pending?thread_id=thread-7", aliceTok, "")
	list, _ := r.body["interactions"].([]any)
	if r.status != 200 || len(list) != 1 {
		t.Fatalf("pending: %d %s", r.status, r.text)
	}
	card := list[0].(map[string]any)
	if card["id"] != float64(inq.ID) || card["status"] != "PENDING" || card["question"] != inq.Prompt ||
		card["origin_name"] != "Calendar agent" || card["thread_id"] != "thread-7" || card["cancellable_by_responder"] != true {
		t.Fatalf("pending interaction: %s", r.text)
	}
	if r := e.do("GET", "/api/interactions/pending?thread_id=another", aliceTok, ""); r.status != 200 || !strings.Contains(r.text, `"interactions":[]`) {
		t.Fatalf("another thread: %d %s", r.status, r.text)
	}

	// The agent waits; the person answers.
	waited := make(chan *hitl.Inquiry, 1)
	go func() {
		got, err := agent.Wait(ctx, inq.ID, 20*time.Second)
		if err != nil {
			t.Error(err)
		}
		waited <- got
	}()
	eventually(t, "the agent waits", func() bool { return e.Engine().Waiting() == 1 })
	r = e.do("POST", fmt.Sprintf("/api/interactions/%d/answer", inq.ID), aliceTok, `{"answer": "Tuesday at 10"}`)
	if r.status != 200 || r.body["status"] != "ANSWERED" || r.body["answer"] != "Tuesday at 10" {
		t.Fatalf("answer: %d %s", r.status, r.text)
	}
	if got := testserver.Receive(t, waited, 10*time.Second, "the agent's wait"); got.Status != hitl.StatusResponded {
		t.Fatalf("the agent got %s", got.Status)
	}
	if m := novaRead(t, ws); m.Type != "interaction_update" || m.InteractionID != inq.ID || m.Status != "ANSWERED" {
		t.Fatalf("after the answer: %+v", m)
	}
	if m := novaRead(t, ws); m.Type != "interaction_update" || m.InteractionID != inq.ID || m.Status != "RESUMING" {
		t.Fatalf("after the agent's wait: %+v", m)
	}
	if n := resumedEvents(t, agent, inq.ID); n != 1 {
		t.Fatalf("%d inquiry.resumed events", n)
	}
	if r := e.do("GET", "/api/interactions/pending?thread_id=thread-7", aliceTok, ""); !strings.Contains(r.text, `"interactions":[]`) {
		t.Fatalf("pending after the answer: %s", r.text)
	}

	// The agent asks again, without saying whether the person may decline (they may, by
	// default), and the person does: the task fails with the reason.
	again := ask(t, agent, hitl.InquiryRequest{Prompt: "Book the large room?", Session: "thread-7", Origin: "Calendar agent",
		RequestType: hitl.RequestApproval})
	if m := novaRead(t, ws); m.Type != "user_prompt" || m.InteractionID != again.ID {
		t.Fatalf("second user_prompt: %+v", m)
	}
	r = e.do("POST", fmt.Sprintf("/api/interactions/%d/cancel", again.ID), aliceTok, `{"reason": "I do not book rooms"}`)
	if r.status != 200 || r.body["status"] != "CANCELED" {
		t.Fatalf("cancel: %d %s", r.status, r.text)
	}
	if m := novaRead(t, ws); m.Type != "interaction_update" || m.InteractionID != again.ID || m.Status != "CANCELED" {
		t.Fatalf("after the cancel: %+v", m)
	}
	if m := novaRead(t, ws); m.Type != "task_error" || m.InteractionID != again.ID || m.TaskID != "thread-7" || m.ThreadID != "thread-7" ||
		m.Message != "I do not book rooms" {
		t.Fatalf("the task's error after the cancel: %+v", m)
	}
	s, err := agent.Session(ctx, "thread-7")
	must(t, err)
	if s.Status != hitl.SessionFailed || s.Error == nil || *s.Error != "I do not book rooms" {
		t.Fatalf("session after the decline: %s %v", s.Status, s.Error)
	}
	page, err := agent.EventPage(ctx, client.EventOptions{Session: "thread-7", Types: []string{hitl.EventSessionFailed}})
	must(t, err)
	if len(page.Data) != 1 || page.Data[0].Actor != "alice" {
		t.Fatalf("session.failed events: %+v", page.Data)
	}
	got, err := agent.Inquiry(ctx, again.ID)
	must(t, err)
	if got.Status != hitl.StatusCancelled || got.CancelReason == nil || *got.CancelReason != "I do not book rooms" ||
		got.DeclinedBy == nil || *got.DeclinedBy != "alice" {
		t.Fatalf("declined inquiry: %s %v %v", got.Status, got.CancelReason, got.DeclinedBy)
	}
}

// TestNovaBadInput: what Nova's routes refuse, and how.
func TestNovaBadInput(t *testing.T) {
	e := newEnv(t)
	agentTok := e.token("nova-agent", hitl.RoleAgent)
	agent := clientFor(e, agentTok)
	aliceTok := e.token("alice", hitl.RoleResponder)
	e.token("bob", hitl.RoleResponder)
	plain := ask(t, agent, hitl.InquiryRequest{Prompt: "Proceed?", Session: "t-1", CancellableByResponder: new(false)})
	forBob := ask(t, agent, hitl.InquiryRequest{Prompt: "Bob, proceed?", Session: "t-2", AssignedTo: hitl.Assignees{"bob"}})
	open := ask(t, agent, hitl.InquiryRequest{Prompt: "Anyone?", Session: "t-3"})

	cases := []struct {
		name, path, token, body string
		status                  int
		says                    string
	}{
		{"decline when the agent set cancellable_by_responder false", fmt.Sprintf("/api/interactions/%d/cancel", plain.ID), aliceTok, `{"reason":"no"}`, 403,
			fmt.Sprintf("inquiry %d may not be declined: the agent that asked set cancellable_by_responder to false; answer it instead", plain.ID)},
		{"decline by someone it is not assigned to", fmt.Sprintf("/api/interactions/%d/cancel", forBob.ID), aliceTok, `{}`, 404, "not found"}, // who may not see it does not learn it exists
		{"decline by an agent", fmt.Sprintf("/api/interactions/%d/cancel", open.ID), agentTok, `{}`, 403, "responder role"},
		{"unknown interaction", "/api/interactions/999999/cancel", aliceTok, `{}`, 404, "not found"},
		{"interaction id that is no number", "/api/interactions/abc/answer", aliceTok, `{"answer":"x"}`, 404, "not found"},
		{"answer to an unknown interaction", "/api/interactions/999999/answer", aliceTok, `{"answer":"x"}`, 404, "not found"},
		{"answer missing", fmt.Sprintf("/api/interactions/%d/answer", open.ID), aliceTok, `{}`, 400, "answer is required"},
		{"unknown field", fmt.Sprintf("/api/interactions/%d/answer", open.ID), aliceTok, `{"answer":"x","value":"y"}`, 400, "value"},
		{"answer that is no JSON", fmt.Sprintf("/api/interactions/%d/answer", open.ID), aliceTok, `{"answer":`, 400, ""},
	}
	for _, c := range cases {
		r := e.do("POST", c.path, c.token, c.body)
		if r.status != c.status || !strings.Contains(r.text, c.says) {
			t.Errorf("%s: %d %s", c.name, r.status, r.text)
		}
	}
	if r := e.do("GET", "/api/interactions/pending?thread=t-1", aliceTok, ""); r.status != 400 || !strings.Contains(r.text, "thread_id") {
		t.Errorf("misspelt filter: %d %s", r.status, r.text)
	}
	// The failed declines changed nothing.
	for _, key := range []string{"t-1", "t-2", "t-3"} {
		s, err := agent.Session(ctx, key)
		must(t, err)
		if s.Status.Finished() {
			t.Errorf("session %s is %s", key, s.Status)
		}
	}
	// A second, different answer is a conflict; a decline after the answer too.
	if r := e.do("POST", fmt.Sprintf("/api/interactions/%d/answer", open.ID), aliceTok, `{"answer":"yes"}`); r.status != 200 {
		t.Fatalf("answer: %d %s", r.status, r.text)
	}
	if r := e.do("POST", fmt.Sprintf("/api/interactions/%d/answer", open.ID), aliceTok, `{"answer":"no"}`); r.status != 409 {
		t.Errorf("second answer: %d %s", r.status, r.text)
	}
	if r := e.do("POST", fmt.Sprintf("/api/interactions/%d/cancel", open.ID), aliceTok, `{}`); r.status != 409 {
		t.Errorf("decline after the answer: %d %s", r.status, r.text)
	}
	// A subscription with a protocol hitl does not speak is refused in words.
	c := dialWS(t, e, aliceTok)
	wsSend(t, c, `{"type":"subscribe","protocol":"django"}`)
	if m := wsRead(t, c); m.Type != "error" || !strings.Contains(m.Message, "nova") {
		t.Errorf("unknown protocol: %+v", m)
	}
}

// TestInquiryResumedOnce: several agents' waits, a fetch of the tool result and an
// acknowledged resume callback make one inquiry.resumed between them.
func TestInquiryResumedOnce(t *testing.T) {
	received := make(chan struct{}, 10)
	callbacks := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { received <- struct{}{} })
	cbServer := httptest.NewServer(callbacks)
	t.Cleanup(cbServer.Close)
	cb := cbServer.URL
	e := newEnv(t, testserver.AllowPrivate())
	agent := e.principal("nova-agent", []string{hitl.RoleAgent})
	responder := e.principal("alice", []string{hitl.RoleResponder})
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Go?", ToolCall: &hitl.ToolCall{ID: "call-1", Name: "ask_user"}, CallbackURL: cb})

	// receiptsWritten returns once every receipt so far is written: one writer writes them in
	// order, so once a new inquiry's receipt has its event, the earlier ones have theirs.
	receiptsWritten := func() {
		t.Helper()
		later := ask(t, agent, hitl.InquiryRequest{Prompt: "And then?"})
		if _, err := responder.Respond(ctx, later.ID, json.RawMessage(`"go"`), ""); err != nil {
			t.Fatal(err)
		}
		if _, err := agent.Wait(ctx, later.ID, 0); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the later inquiry resumes", func() bool { return resumedEvents(t, agent, later.ID) == 1 })
	}

	const waiters = 5
	var wg sync.WaitGroup
	for range waiters {
		wg.Go(func() {
			if got, err := agent.Wait(ctx, inq.ID, 20*time.Second); err != nil || got.Status != hitl.StatusResponded {
				t.Errorf("wait: %v %v", got, err)
			}
		})
	}
	eventually(t, "the agents wait", func() bool { return e.Engine().Waiting() == waiters })
	if _, err := responder.Respond(ctx, inq.ID, json.RawMessage(`"go"`), ""); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	testserver.Receive(t, received, 10*time.Second, "the resume callback")
	if _, err := agent.Inquiry(ctx, inq.ID); err != nil { // fetches the tool result
		t.Fatal(err)
	}
	receiptsWritten()
	if n := resumedEvents(t, agent, inq.ID); n != 1 {
		t.Fatalf("%d inquiry.resumed events, want 1", n)
	}
	got, err := agent.Inquiry(ctx, inq.ID)
	must(t, err)
	if got.ResumedAt == nil || got.ResumedAt.Before(*got.RespondedAt) {
		t.Fatalf("resumed_at %v, responded_at %v", got.ResumedAt, got.RespondedAt)
	}
	// A resume callback acknowledged is enough on its own.
	byCallback := ask(t, agent, hitl.InquiryRequest{Prompt: "Called back?", CallbackURL: cb})
	if _, err := responder.Respond(ctx, byCallback.ID, json.RawMessage(`"go"`), ""); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the callback's receipt", func() bool { return resumedEvents(t, agent, byCallback.ID) == 1 })

	// A person reading the answered inquiry is no agent resuming.
	other := ask(t, agent, hitl.InquiryRequest{Prompt: "Once more?", ToolCall: &hitl.ToolCall{ID: "call-2", Name: "ask_user"}})
	if _, err := responder.Respond(ctx, other.ID, json.RawMessage(`"go"`), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := responder.Inquiry(ctx, other.ID); err != nil {
		t.Fatal(err)
	}
	receiptsWritten()
	if n := resumedEvents(t, agent, other.ID); n != 0 {
		t.Fatalf("a person's read made %d inquiry.resumed events", n)
	}
}

// TestWebSocketBrowserAuth: a page's JavaScript cannot set headers, so /v1/ws takes the inbox's
// cookie from the server's own pages, and a token as the subprotocol hitl.bearer.TOKEN.
func TestWebSocketBrowserAuth(t *testing.T) {
	e := newEnv(t)
	aliceTok := e.token("alice", hitl.RoleResponder)
	session, _, err := e.Engine().SignIn(ctx, aliceTok)
	must(t, err)
	wsURL := "ws" + strings.TrimPrefix(e.URL, "http") + "/v1/ws"
	cookie := (&http.Cookie{Name: "hitl_session", Value: session}).String()

	c, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Cookie": {cookie}, "Origin": {e.URL}}})
	must(t, err)
	defer c.CloseNow()
	wsSend(t, c, `{"type":"subscribe","protocol":"nova"}`)
	if m := wsRead(t, c); m.Type != "subscribed" {
		t.Fatalf("with the cookie: %+v", m)
	}

	for _, origin := range []string{"https://evil.example", ""} {
		_, resp, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Cookie": {cookie}, "Origin": {origin}}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("cookie from origin %q: %v %v", origin, resp, err)
		}
	}

	// The token as a subprotocol, from any page: the chosen subprotocol is echoed.
	for _, offered := range [][]string{{"hitl.bearer." + aliceTok}, {"hitl", "hitl.bearer." + aliceTok}} {
		c, resp, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{Subprotocols: offered, HTTPHeader: http.Header{"Origin": {"https://elsewhere.example"}}})
		must(t, err)
		if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != offered[0] || c.Subprotocol() != offered[0] {
			t.Fatalf("offered %v, chosen %q", offered, got)
		}
		wsSend(t, c, `{"type":"subscribe"}`)
		if m := wsRead(t, c); m.Type != "subscribed" {
			t.Fatalf("with the token as subprotocol: %+v", m)
		}
		c.CloseNow()
	}
	_, resp, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{Subprotocols: []string{"hitl.bearer.wrong"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a wrong token as subprotocol: %v %v", resp, err)
	}
}

// TestNovaInteractionExpires: an interaction whose deadline passes under the fail policy is
// CANCELED and its task FAILED, with task_error on Nova's socket, as Nova's seed planned for
// expires_at; one whose fallback answers it is ANSWERED and the task goes on.
func TestNovaInteractionExpires(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Now())
	e := startServer(t, testserver.Configure(func(c *server.Config) { c.Clock = clk }))
	agent := e.principal("nova-agent", []string{hitl.RoleAgent})
	aliceTok := e.token("alice", hitl.RoleResponder)
	ws := novaSubscribe(t, e, aliceTok, "thread-8")
	timeout := int64(60)

	fallback := ask(t, agent, hitl.InquiryRequest{Prompt: "Room size?", Session: "thread-8", Origin: "Calendar agent",
		TimeoutSeconds: &timeout, FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`"small"`)})
	if m := novaRead(t, ws); m.Type != "user_prompt" || m.InteractionID != fallback.ID {
		t.Fatalf("user_prompt: %+v", m)
	}
	clk.Advance(61 * time.Second)
	if m := novaRead(t, ws); m.Type != "interaction_update" || m.InteractionID != fallback.ID || m.Status != "ANSWERED" {
		t.Fatalf("after the fallback answered: %+v", m)
	}

	expiring := ask(t, agent, hitl.InquiryRequest{Prompt: "Which day suits you?", Session: "thread-8", Origin: "Calendar agent",
		TimeoutSeconds: &timeout})
	// The next message is the new question's: the fallback's answer made no task_error.
	if m := novaRead(t, ws); m.Type != "user_prompt" || m.InteractionID != expiring.ID {
		t.Fatalf("user_prompt after a fallback answer: %+v", m)
	}
	if r := e.do("GET", "/api/interactions/pending?thread_id=thread-8", aliceTok, ""); !strings.Contains(r.text, `"expires_at":"`) {
		t.Fatalf("pending interaction without its expires_at: %s", r.text)
	}
	clk.Advance(61 * time.Second)
	if m := novaRead(t, ws); m.Type != "interaction_update" || m.InteractionID != expiring.ID || m.Status != "CANCELED" {
		t.Fatalf("after the deadline: %+v", m)
	}
	want := fmt.Sprintf("question %d timed out", expiring.ID)
	if m := novaRead(t, ws); m.Type != "task_error" || m.InteractionID != expiring.ID || m.TaskID != "thread-8" || m.ThreadID != "thread-8" ||
		m.Message != want {
		t.Fatalf("task_error after the deadline: %+v", m)
	}
	s, err := agent.Session(ctx, "thread-8")
	must(t, err)
	if s.Status != hitl.SessionFailed || s.Error == nil || *s.Error != want {
		t.Fatalf("the task after the deadline: %s %v", s.Status, s.Error)
	}
	if r := e.do("GET", "/api/interactions/pending?thread_id=thread-8", aliceTok, ""); !strings.Contains(r.text, `"interactions":[]`) {
		t.Fatalf("pending after the deadline: %s", r.text)
	}
	if r := e.do("POST", fmt.Sprintf("/api/interactions/%d/answer", expiring.ID), aliceTok, `{"answer":"Tuesday"}`); r.status != http.StatusConflict {
		t.Fatalf("an answer after the deadline: %d %s", r.status, r.text)
	}
}

// TestNovaAnswerSizeLimit: a Nova answer is bounded (--nova-max-answer-bytes, 32 KB by
// default), as its seed asks; a larger one is 413 in words, and nothing is recorded.
func TestNovaAnswerSizeLimit(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("nova-agent", []string{hitl.RoleAgent})
	aliceTok := e.token("alice", hitl.RoleResponder)
	text := hitl.InquiryRequest{Prompt: "Paste the log?", Session: "thread-1", ResponseSchema: json.RawMessage(`{"type":"string"}`)}
	inq := ask(t, agent, text)
	answer := func(id int64, size int) reply { // a JSON string of size bytes, quotes included
		return e.do("POST", fmt.Sprintf("/api/interactions/%d/answer", id), aliceTok, `{"answer":"`+strings.Repeat("x", size-2)+`"}`)
	}
	r := answer(inq.ID, 40<<10)
	if r.status != http.StatusRequestEntityTooLarge || r.header.Get("Content-Type") != "application/problem+json" || r.code() != hitl.ETooLarge ||
		r.body["detail"] != "the answer is 40 KB; Nova answers are limited to 32 KB" {
		t.Fatalf("a 40 KB answer: %d %s", r.status, r.text)
	}
	if r := answer(inq.ID, 32<<10+1); r.status != http.StatusRequestEntityTooLarge || r.body["detail"] != "the answer is 33 KB; Nova answers are limited to 32 KB" {
		t.Fatalf("an answer a byte over: %d %s", r.status, r.text)
	}
	if got, err := agent.Inquiry(ctx, inq.ID); err != nil || got.Status != hitl.StatusPending {
		t.Fatalf("after the refused answers: %v %v", got, err)
	}
	if r := answer(inq.ID, 32<<10); r.status != http.StatusOK || r.body["status"] != "ANSWERED" {
		t.Fatalf("an answer of 32 KB exactly: %d %.200s", r.status, r.text)
	}
	// hitl's own API is not Nova's: its answers are bounded by the request body only.
	other := ask(t, agent, text)
	if r := e.do("POST", fmt.Sprintf("/v1/inquiries/%d/respond", other.ID), aliceTok, `{"response":"`+strings.Repeat("x", 40<<10)+`"}`); r.status != http.StatusOK {
		t.Fatalf("a 40 KB answer on /v1: %d %.200s", r.status, r.text)
	}

	// The limit is the server's to set; one that is no whole number of KB reads in bytes.
	small := startServer(t, testserver.Configure(func(c *server.Config) { c.NovaMaxAnswerBytes = 1000 }))
	smallAgent := small.principal("nova-agent", []string{hitl.RoleAgent})
	bobTok := small.token("bob", hitl.RoleResponder)
	id := ask(t, smallAgent, text).ID
	r = small.do("POST", fmt.Sprintf("/api/interactions/%d/answer", id), bobTok, `{"answer":"`+strings.Repeat("x", 1000)+`"}`)
	if r.status != http.StatusRequestEntityTooLarge || r.body["detail"] != "the answer is 1002 bytes; Nova answers are limited to 1000 bytes" {
		t.Fatalf("over a limit of 1000 bytes: %d %s", r.status, r.text)
	}
	if _, err := server.Open(ctx, server.Config{NovaMaxAnswerBytes: -1}, nil); err == nil || !strings.Contains(err.Error(), "--nova-max-answer-bytes") {
		t.Fatalf("a negative limit: %v", err)
	}
}

// TestNovaCancelByDefault: an interaction the agent asked without cancellable_by_responder
// reads as cancellable, on hitl's API and Nova's, and the person asked may cancel it; one
// with false reads false and is 403 in words; a template's false holds for what it asks.
func TestNovaCancelByDefault(t *testing.T) {
	e := newEnv(t)
	agentTok := e.token("nova-agent", hitl.RoleAgent)
	aliceTok := e.token("alice", hitl.RoleResponder)
	asked := e.do("POST", "/v1/inquiries", agentTok, `{"prompt": "Which day?", "session": "thread-20"}`)
	kept := e.do("POST", "/v1/inquiries", agentTok, `{"prompt": "Which room?", "session": "thread-21", "cancellable_by_responder": false}`)
	if asked.status != http.StatusCreated || asked.body["cancellable_by_responder"] != true ||
		kept.status != http.StatusCreated || kept.body["cancellable_by_responder"] != false {
		t.Fatalf("created: %s\n%s", asked.text, kept.text)
	}
	pending := e.do("GET", "/api/interactions/pending", aliceTok, "")
	cancellable := map[float64]any{}
	for _, it := range pending.body["interactions"].([]any) {
		card := it.(map[string]any)
		cancellable[card["id"].(float64)] = card["cancellable_by_responder"]
	}
	if cancellable[asked.body["id"].(float64)] != true || cancellable[kept.body["id"].(float64)] != false {
		t.Fatalf("Nova's pending interactions: %s", pending.text)
	}

	r := e.do("POST", fmt.Sprintf("/api/interactions/%v/cancel", kept.body["id"]), aliceTok, `{}`)
	if r.status != http.StatusForbidden || r.header.Get("Content-Type") != "application/problem+json" ||
		r.body["detail"] != fmt.Sprintf("inquiry %v may not be declined: the agent that asked set cancellable_by_responder to false; answer it instead", kept.body["id"]) {
		t.Fatalf("cancel of one the agent kept to answers: %d %s", r.status, r.text)
	}
	r = e.do("POST", fmt.Sprintf("/api/interactions/%v/cancel", asked.body["id"]), aliceTok, `{}`)
	if r.status != http.StatusOK || r.body["status"] != "CANCELED" {
		t.Fatalf("cancel by default: %d %s", r.status, r.text)
	}
	s := e.do("GET", "/v1/sessions/thread-20", agentTok, "")
	if s.body["status"] != "failed" || s.body["error"] != "declined by alice" {
		t.Fatalf("the task after the cancel: %s", s.text)
	}
	if got := e.do("GET", fmt.Sprintf("/v1/inquiries/%v", asked.body["id"]), agentTok, ""); got.body["declined_by"] != "alice" {
		t.Fatalf("the declined inquiry: %s", got.text)
	}

	must(t, e.do("PUT", "/v1/templates/book", adminToken, `{"prompt": "Book {{.room}}?", "cancellable_by_responder": false}`).err())
	fromTemplate := e.do("POST", "/v1/inquiries", agentTok, `{"template": "book", "vars": {"room": "the hall"}}`)
	if fromTemplate.status != http.StatusCreated || fromTemplate.body["cancellable_by_responder"] != false {
		t.Fatalf("asked with a template that says false: %d %s", fromTemplate.status, fromTemplate.text)
	}
}
