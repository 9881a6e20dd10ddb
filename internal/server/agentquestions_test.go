package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// The async agent questions protocol (seed 002), driven as its clients drive it: the paths,
// bodies and headers are those of the seed's examples.

// agentQuestionsEnv is a server whose callbacks reach loopback fast, with an agent (bot) and
// a person who answers (ann).
func agentQuestionsEnv(t *testing.T, opts ...testserver.Option) (e *env, agent, human string) {
	e = newEnv(t, append([]testserver.Option{testserver.Webhooks(fastWebhooks)}, opts...)...)
	return e, e.token("bot", "agent"), e.token("ann", "responder")
}

// askInSession asks a question in a session as an agent over /v1 and returns its id.
func askInSession(t *testing.T, e *env, agent, body string) string {
	t.Helper()
	r := e.do("POST", "/v1/inquiries", agent, body)
	if r.status != http.StatusCreated {
		t.Fatalf("asking: %d %s", r.status, r.text)
	}
	return fmt.Sprint(int64(r.body["id"].(float64)))
}

// TestAgentQuestionsAsTheSeedsClient runs on both stores: the session's callback_format is a
// column of each.
func TestAgentQuestionsAsTheSeedsClient(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { seedAgentQuestions(t) })
	t.Run("postgres", func(t *testing.T) { seedAgentQuestions(t, testserver.Postgres()) })
}

func seedAgentQuestions(t *testing.T, opts ...testserver.Option) {
	e, agent, human := agentQuestionsEnv(t, opts...)
	rc := newReceiver(t, func(int, received) int { return http.StatusOK })

	// The agent's run: a session whose callback takes the protocol's format.
	put := e.do("PUT", "/v1/sessions/sess-456", agent,
		`{"agent": "write-poem", "callback_url": "`+rc.URL+`/agent-questions", "callback_format": "agent-questions"}`)
	if put.status != http.StatusCreated || put.body["callback_format"] != "agent-questions" {
		t.Fatalf("PUT session: %d %s", put.status, put.text)
	}
	status := e.do("GET", "/agent/session/sess-456", human, "")
	if status.status != http.StatusOK || status.body["status"] != "running" || status.body["questions_asked"] != 0.0 {
		t.Fatalf("GET /agent/session before a question: %d %s", status.status, status.text)
	}
	id := askInSession(t, e, agent, `{"prompt": "What style would you prefer?", "session": "sess-456",
		"options": ["free verse", "rhyming", "sonnet", "haiku"], "context": {"topic": "love"}}`)

	// The callback, as the seed shows it: signed, X-Agent-Session, the question_pending body.
	secret, err := e.Admin.CallbackSecret(ctx)
	must(t, err)
	// callbackIs checks the nth callback: signed, to the session's URL, and its body.
	callbackIs := func(n int, body string) {
		t.Helper()
		eventually(t, fmt.Sprintf("callback %d", n+1), func() bool { return len(rc.requests()) > n })
		cb := rc.requests()[n]
		verify(t, secret, cb)
		if cb.path != "/agent-questions" || cb.header["X-Agent-Session"] != "sess-456" || cb.header["Content-Type"] != "application/json" {
			t.Fatalf("callback %d: path %s, headers %v", n+1, cb.path, cb.header)
		}
		var got, want any
		must(t, json.Unmarshal(cb.body, &got))
		must(t, json.Unmarshal([]byte(body), &want))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("callback %d's body:\n got %s\nwant %s", n+1, cb.body, body)
		}
	}
	question := `{"id": "` + id + `", "text": "What style would you prefer?",
		"options": ["free verse", "rhyming", "sonnet", "haiku"], "context": {"topic": "love"}}`
	const answerPath = "/agent/answer/sess-456"
	callbackIs(0, `{"event": "question_pending", "session_id": "sess-456", "agent_name": "write-poem",
		"question": `+question+`, "answer_url": "`+e.URL+answerPath+`"}`)

	// GET /agent/questions?status=pending
	list := e.do("GET", "/agent/questions?status=pending", human, "")
	questions, _ := list.body["questions"].([]any)
	if list.status != http.StatusOK || len(questions) != 1 {
		t.Fatalf("GET /agent/questions: %d %s", list.status, list.text)
	}
	q := questions[0].(map[string]any)
	if q["id"] != id || q["session_id"] != "sess-456" || q["agent_name"] != "write-poem" || q["question"] != "What style would you prefer?" ||
		q["status"] != "pending" || q["asked_at"] == nil || !reflect.DeepEqual(q["context"], map[string]any{"topic": "love"}) ||
		!reflect.DeepEqual(q["options"], []any{"free verse", "rhyming", "sonnet", "haiku"}) {
		t.Fatalf("question: %v", q)
	}
	if s := e.do("GET", "/agent/session/sess-456", human, ""); s.body["status"] != "pending_input" {
		t.Fatalf("GET /agent/session with a question pending: %s", s.text)
	}

	// POST the answer to the callback's answer_url, as the seed does.
	answer := e.do("POST", answerPath, human, `{"question_id": "`+id+`", "answer": "haiku"}`, "Content-Type", "application/json")
	if answer.status != http.StatusOK || !reflect.DeepEqual(answer.body, map[string]any{"ok": true, "status": "resumed", "session_id": "sess-456"}) {
		t.Fatalf("POST /agent/answer: %d %s", answer.status, answer.text)
	}
	// The agent, waiting on /v1, has the answer; the same answer again is accepted again.
	waited := e.do("GET", "/v1/inquiries/"+id+"/wait?timeout=5s", agent, "")
	if waited.body["status"] != "responded" || waited.body["response"] != "haiku" || waited.body["responded_by"] != "ann" {
		t.Fatalf("the agent's wait: %s", waited.text)
	}
	if again := e.do("POST", answerPath, human, `{"question_id": "`+id+`", "answer": "haiku"}`); again.status != http.StatusOK {
		t.Fatalf("the same answer again: %d %s", again.status, again.text)
	}

	// The callback announces the answer too, in question_pending's shape, signed the same way.
	callbackIs(1, `{"event": "question_answered", "session_id": "sess-456", "agent_name": "write-poem",
		"question": `+question+`, "answer": "haiku", "answered_by": "ann",
		"answered_at": "`+waited.body["responded_at"].(string)+`", "default_answer": false}`)

	// The agent finishes; the session shows the seed's completed shape (its result to its
	// owner only, as on /v1).
	must(t, e.do("POST", "/v1/sessions/sess-456/complete", agent, `{"result": {"poem_path": "poem/love-haiku-2024.md"}}`).err())
	done := e.do("GET", "/agent/session/sess-456", agent, "")
	if done.status != http.StatusOK || done.body["id"] != "sess-456" || done.body["agent_name"] != "write-poem" || done.body["status"] != "completed" ||
		!reflect.DeepEqual(done.body["result"], map[string]any{"poem_path": "poem/love-haiku-2024.md"}) || done.body["questions_asked"] != 1.0 ||
		done.body["created_at"] == nil || done.body["completed_at"] == nil {
		t.Fatalf("GET /agent/session when completed: %s", done.text)
	}
	// A completed session takes no answers: 404, as the seed says.
	if late := e.do("POST", answerPath, human, `{"question_id": "`+id+`", "answer": "haiku"}`); late.status != http.StatusNotFound ||
		late.header.Get("Content-Type") != "application/problem+json" || !strings.Contains(late.body["detail"].(string), "completed") {
		t.Fatalf("an answer to a completed session: %d %s", late.status, late.text)
	}
	// Only the question and its answer were posted (the same answer again made no second
	// one): the session's other events are not the protocol's.
	if n := len(rc.requests()); n != 2 {
		t.Fatalf("%d callbacks; want only question_pending and question_answered", n)
	}
}

func (r reply) err() error {
	if r.status >= 300 {
		return fmt.Errorf("%d %s", r.status, r.text)
	}
	return nil
}

func TestAgentAnswerWithoutQuestionID(t *testing.T) {
	e, agent, human := agentQuestionsEnv(t)
	id := askInSession(t, e, agent, `{"prompt": "Which topic?", "session": "run-1"}`)
	r := e.do("POST", "/agent/answer/run-1", human, `{"answer": "love"}`)
	if r.status != http.StatusOK || r.body["session_id"] != "run-1" {
		t.Fatalf("answer without question_id: %d %s", r.status, r.text)
	}
	if got := e.do("GET", "/v1/inquiries/"+id, agent, ""); got.body["response"] != "love" {
		t.Fatalf("the single pending question was not answered: %s", got.text)
	}
	// None pending now, then two: both say so in words.
	if r := e.do("POST", "/agent/answer/run-1", human, `{"answer": "love"}`); r.status != http.StatusConflict ||
		!strings.Contains(r.body["detail"].(string), "no pending question") {
		t.Fatalf("nothing pending: %d %s", r.status, r.text)
	}
	a := askInSession(t, e, agent, `{"prompt": "Rhyme?", "session": "run-1"}`)
	b := askInSession(t, e, agent, `{"prompt": "Length?", "session": "run-1"}`)
	r = e.do("POST", "/agent/answer/run-1", human, `{"answer": "yes"}`)
	if r.status != http.StatusConflict || !strings.Contains(r.body["detail"].(string), "2 pending questions ("+a+", "+b+"): say which one with question_id") {
		t.Fatalf("two pending: %d %s", r.status, r.text)
	}
	// question_id as a number, as a client that kept the JSON value sends it back.
	if r := e.do("POST", "/agent/answer/run-1", human, `{"question_id": `+b+`, "answer": "short"}`); r.status != http.StatusOK {
		t.Fatalf("question_id as a number: %d %s", r.status, r.text)
	}
}

func TestAgentQuestionsBadInput(t *testing.T) {
	e, agent, human := agentQuestionsEnv(t)
	other := e.token("other-bot", "agent")
	id := askInSession(t, e, agent, `{"prompt": "Style?", "session": "sess-1", "options": ["haiku", "sonnet"]}`)
	elsewhere := askInSession(t, e, agent, `{"prompt": "Other?", "session": "sess-2"}`)
	must(t, e.do("PUT", "/v1/sessions/sess-done", agent, `{"agent": "write-poem"}`).err())
	must(t, e.do("POST", "/v1/sessions/sess-done/fail", agent, `{"error": "gave up"}`).err())

	for _, c := range []struct {
		name, method, path, token, body string
		status                          int
		detail                          string
	}{
		{"no token", "GET", "/agent/questions", "", "", 401, ""},
		{"unknown query parameter", "GET", "/agent/questions?state=pending", human, "", 400, `unknown query parameter "state"`},
		{"unknown status", "GET", "/agent/questions?status=waiting", human, "", 400, "status"},
		{"unknown route", "GET", "/agent/nothing", human, "", 404, "no such route"},
		{"unknown session", "POST", "/agent/answer/sess-nope", human, `{"question_id": "` + id + `", "answer": "haiku"}`, 404, "session sess-nope not found"},
		{"unknown session status", "GET", "/agent/session/sess-nope", human, "", 404, "session sess-nope not found"},
		{"unknown question", "POST", "/agent/answer/sess-1", human, `{"question_id": "999999", "answer": "haiku"}`, 404, "not found"},
		{"question id of another shape", "POST", "/agent/answer/sess-1", human, `{"question_id": "q-123", "answer": "haiku"}`, 404, "question q-123 not found"},
		{"question of another session", "POST", "/agent/answer/sess-1", human, `{"question_id": "` + elsewhere + `", "answer": "x"}`, 404, "is not in session sess-1"},
		{"question of another session, by the agent that asked it", "POST", "/agent/answer/sess-1", agent, `{"question_id": "` + elsewhere + `", "answer": "x"}`, 404, "is not in session sess-1"},
		{"failed session", "POST", "/agent/answer/sess-done", human, `{"answer": "x"}`, 404, "has failed"},
		{"foreign session, answered", "POST", "/agent/answer/sess-1", other, `{"question_id": "` + id + `", "answer": "haiku"}`, 404, "session sess-1 not found"},
		{"foreign session, read", "GET", "/agent/session/sess-1", other, "", 404, "session sess-1 not found"},
		{"no answer", "POST", "/agent/answer/sess-1", human, `{"question_id": "` + id + `"}`, 400, "answer is required"},
		{"unknown field", "POST", "/agent/answer/sess-1", human, `{"question_id": "` + id + `", "answer": "haiku", "comment": "x"}`, 400, "comment"},
		{"not an option", "POST", "/agent/answer/sess-1", human, `{"question_id": "` + id + `", "answer": "limerick"}`, 422, ""},
		{"callback_format unknown", "PUT", "/v1/sessions/sess-3", agent, `{"callback_format": "slack"}`, 400, "cloudevents or agent-questions"},
		{"callback_format without a URL", "PUT", "/v1/sessions/sess-4", agent, `{"callback_format": "agent-questions"}`, 400, "needs a callback_url"},
	} {
		r := e.do(c.method, c.path, c.token, c.body)
		if r.status != c.status || r.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s %s; want %d as problem+json", c.name, r.status, r.header.Get("Content-Type"), r.text, c.status)
			continue
		}
		if detail, _ := r.body["detail"].(string); !strings.Contains(detail, c.detail) {
			t.Errorf("%s: detail %q; want it to say %q", c.name, detail, c.detail)
		}
	}

	// Replayed answers: the same one is accepted again, another is 409.
	body := `{"question_id": "` + id + `", "answer": "haiku"}`
	for range 2 {
		if r := e.do("POST", "/agent/answer/sess-1", human, body); r.status != http.StatusOK {
			t.Fatalf("answer: %d %s", r.status, r.text)
		}
	}
	r := e.do("POST", "/agent/answer/sess-1", human, `{"question_id": "`+id+`", "answer": "sonnet"}`)
	if r.status != http.StatusConflict || !strings.Contains(r.body["detail"].(string), "already answered") {
		t.Fatalf("another answer: %d %s", r.status, r.text)
	}
	// The other agent's list does not show sess-1's questions.
	if l := e.do("GET", "/agent/questions", other, ""); l.status != http.StatusOK || len(l.body["questions"].([]any)) != 0 {
		t.Fatalf("another agent's list: %s", l.text)
	}
}

// The server's --agent-question-callback-url: every session's new questions, whatever the
// session's own callback.
func TestAgentQuestionCallbackURLOfTheServer(t *testing.T) {
	rc := newReceiver(t, func(int, received) int { return http.StatusOK })
	e, agent, _ := agentQuestionsEnv(t, testserver.Configure(func(c *server.Config) { c.AgentQuestionCallbackURL = rc.URL + "/all" }))
	must(t, e.do("PUT", "/v1/sessions/deploy-1", agent, `{"agent": "deployer", "callback_url": "`+rc.URL+`/own"}`).err())
	id := askInSession(t, e, agent, `{"prompt": "Ship it?", "request_type": "approval", "session": "deploy-1"}`)
	askInSession(t, e, agent, `{"prompt": "Outside any session"}`)

	// The session's own callback: its update and the question, as CloudEvents. The server's
	// URL: the question, in the protocol's format.
	eventually(t, "three callbacks", func() bool { return len(rc.requests()) == 3 })
	var all []received
	for _, r := range rc.requests() {
		if r.path == "/all" {
			all = append(all, r)
		} else if r.header["Content-Type"] != "application/cloudevents+json" {
			t.Fatalf("the session's own callback: %v", r.header)
		}
	}
	if len(all) != 1 || all[0].header["X-Agent-Session"] != "deploy-1" {
		t.Fatalf("the server's agent question callbacks: %v", all)
	}
	var body struct {
		Event     string `json:"event"`
		AgentName string `json:"agent_name"`
		Question  struct {
			ID      string   `json:"id"`
			Options []string `json:"options"`
		} `json:"question"`
	}
	must(t, json.Unmarshal(all[0].body, &body))
	if body.Event != "question_pending" || body.AgentName != "deployer" || body.Question.ID != id || body.Question.Options == nil {
		t.Fatalf("body: %s", all[0].body)
	}
	if _, err := server.Open(ctx, server.Config{AgentQuestionCallbackURL: "hooks.example.com/q"}, nil); err == nil ||
		!strings.Contains(err.Error(), "agent question callback URL") {
		t.Fatalf("a callback URL that is not absolute: %v", err)
	}
}

// Microsoft Agent Framework's selection (seed 001): the choices only in the context.
func TestSelectionWithItsChoicesInTheContext(t *testing.T) {
	e, agent, human := agentQuestionsEnv(t)
	// request_user_input(prompt="I found 3 venues. Which do you prefer?",
	//     context={"venues": [venue_a, venue_b, venue_c]}, request_type="selection")
	r := e.do("POST", "/v1/inquiries", agent, `{"prompt": "I found 3 venues. Which do you prefer?",
		"context": {"venues": ["Venue A", "Venue B", "Venue C"]}, "request_type": "selection"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("the seed's selection: %d %s", r.status, r.text)
	}
	if opts := r.body["options"].([]any); len(opts) != 3 || opts[1].(map[string]any)["value"] != "Venue B" {
		t.Fatalf("options: %v", r.body["options"])
	}
	id := fmt.Sprint(int64(r.body["id"].(float64)))
	if bad := e.do("POST", "/v1/inquiries/"+id+"/respond", human, `{"response": "Venue D"}`); bad.status != http.StatusUnprocessableEntity {
		t.Fatalf("a venue not offered: %d %s", bad.status, bad.text)
	}
	if ok := e.do("POST", "/v1/inquiries/"+id+"/respond", human, `{"response": "Venue B"}`); ok.status != http.StatusOK {
		t.Fatalf("Venue B: %d %s", ok.status, ok.text)
	}
	// The same through the tool call the framework's agent makes.
	tool := e.do("POST", "/v1/inquiries", agent, `{"prompt": "How many guests?", "request_type": "selection",
		"context": {"counts": [20, 30, 40], "note": "a party"},
		"tool_call": {"id": "call_1", "name": "request_user_input", "arguments": "{}"}}`)
	if tool.status != http.StatusCreated || len(tool.body["options"].([]any)) != 3 {
		t.Fatalf("numbers as choices: %d %s", tool.status, tool.text)
	}

	const fix = "a selection needs options: give options (2 to 50), or a context with one list of 2 to 50 distinct choices"
	for name, context := range map[string]string{
		"no context":          `null`,
		"two lists":           `{"venues": ["A", "B"], "dates": ["Fri", "Sat"]}`,
		"one choice":          `{"venues": ["A"]}`,
		"a choice twice":      `{"venues": ["A", "A"]}`,
		"the list not at top": `{"found": {"venues": ["A", "B"]}}`,
	} {
		r := e.do("POST", "/v1/inquiries", agent, `{"prompt": "Which?", "request_type": "selection", "context": `+context+`}`)
		if r.status != http.StatusBadRequest || !strings.Contains(r.text, fix) {
			t.Errorf("%s: %d %s", name, r.status, r.text)
		}
	}
}

// A question that times out under the fail policy fails its session (the design: "fail the
// session or use a default answer"): the run cannot go on without the answer. The session's
// other pending questions end with it; two that time out at once fail it once.
func TestQuestionTimeoutFailsItsSession(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Now())
	rc := newReceiver(t, func(int, received) int { return http.StatusOK })
	e := startServer(t, testserver.Webhooks(fastWebhooks), testserver.Configure(func(c *server.Config) { c.Clock = clk }))
	agent, human := e.token("bot", "agent"), e.token("ann", "responder")
	must(t, e.do("PUT", "/v1/sessions/sess-9", agent,
		`{"agent": "write-poem", "callback_url": "`+rc.URL+`/q", "callback_format": "agent-questions"}`).err())
	style := askInSession(t, e, agent, `{"prompt": "Style?", "session": "sess-9", "timeout_seconds": 60, "fallback_policy": "fail"}`)
	length := askInSession(t, e, agent, `{"prompt": "Length?", "session": "sess-9", "timeout_seconds": 3600}`)
	both := []string{
		askInSession(t, e, agent, `{"prompt": "Rhyme?", "session": "sess-both", "timeout_seconds": 60}`),
		askInSession(t, e, agent, `{"prompt": "Metre?", "session": "sess-both", "timeout_seconds": 60}`),
	}
	eventually(t, "the question_pending callbacks", func() bool { return len(rc.requests()) == 2 })

	clk.Advance(61 * time.Second)
	eventually(t, "the sessions fail", func() bool {
		a := e.do("GET", "/agent/session/sess-9", human, "")
		b := e.do("GET", "/agent/session/sess-both", human, "")
		return a.body["status"] == "failed" && b.body["status"] == "failed"
	})
	s := e.do("GET", "/v1/sessions/sess-9", agent, "")
	if s.body["status"] != "failed" || s.body["error"] != "question "+style+" timed out" || s.body["completed_at"] == nil {
		t.Fatalf("the session after its question timed out: %s", s.text)
	}
	if q := e.do("GET", "/v1/inquiries/"+style, agent, ""); q.body["status"] != "timeout" {
		t.Fatalf("the question that timed out: %s", q.text)
	}
	if q := e.do("GET", "/v1/inquiries/"+length, agent, ""); q.body["status"] != "cancelled" || q.body["cancel_reason"] != "the session was failed" {
		t.Fatalf("the session's other question: %s", q.text)
	}
	failed, err := e.Admin.EventPage(ctx, client.EventOptions{Session: "sess-9", Types: []string{hitl.EventSessionFailed}})
	must(t, err)
	if len(failed.Data) != 1 || failed.Data[0].Actor != "system" {
		t.Fatalf("session.failed events: %+v", failed.Data)
	}

	// Two questions of one session timing out together: one times out and fails the session,
	// which cancels the other, in one transaction.
	statuses := map[string]int{}
	for _, id := range both {
		statuses[e.do("GET", "/v1/inquiries/"+id, agent, "").body["status"].(string)]++
	}
	if statuses["timeout"] != 1 || statuses["cancelled"] != 1 {
		t.Fatalf("two questions that timed out together: %v", statuses)
	}
	failed, err = e.Admin.EventPage(ctx, client.EventOptions{Session: "sess-both", Types: []string{hitl.EventSessionFailed}})
	must(t, err)
	if len(failed.Data) != 1 {
		t.Fatalf("%d session.failed events for two questions that timed out together", len(failed.Data))
	}

	// The failed run takes no answers (404, as the design says of a finished run), and a
	// question that timed out with no answer makes no question_answered.
	if r := e.do("POST", "/agent/answer/sess-9", human, `{"question_id": "`+length+`", "answer": "short"}`); r.status != http.StatusNotFound ||
		!strings.Contains(r.body["detail"].(string), "has failed") {
		t.Fatalf("an answer to the failed session: %d %s", r.status, r.text)
	}
	for _, r := range rc.requests() {
		if strings.Contains(string(r.body), "question_answered") {
			t.Fatalf("a question_answered for a question nobody answered: %s", r.body)
		}
	}
}

// The server's defaults decide at the deadline too (--default-timeout,
// --default-fallback-policy): a default policy that answers with the question's fallback_value
// keeps its run going, and announces the default answer; a question without a fallback_value
// has the fail policy, and its run fails.
func TestServerDefaultPolicyAtTheDeadline(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Now())
	rc := newReceiver(t, func(int, received) int { return http.StatusOK })
	e := startServer(t, testserver.Webhooks(fastWebhooks), testserver.Configure(func(c *server.Config) {
		c.Clock, c.DefaultTimeout, c.DefaultFallbackPolicy = clk, time.Minute, hitl.FallbackCompleteWithFallback
		c.AgentQuestionCallbackURL = rc.URL + "/all"
	}))
	agent := e.token("bot", "agent")
	defaulted := askInSession(t, e, agent, `{"prompt": "Style?", "session": "run-a", "options": ["haiku", "sonnet"], "fallback_value": "sonnet"}`)
	unanswered := askInSession(t, e, agent, `{"prompt": "Topic?", "session": "run-b"}`)
	eventually(t, "the question_pending callbacks", func() bool { return len(rc.requests()) == 2 })

	clk.Advance(61 * time.Second)
	eventually(t, "run-b fails", func() bool { return e.do("GET", "/v1/sessions/run-b", agent, "").body["status"] == "failed" })
	if s := e.do("GET", "/v1/sessions/run-b", agent, ""); s.body["error"] != "question "+unanswered+" timed out" {
		t.Fatalf("run-b: %s", s.text)
	}
	if s := e.do("GET", "/v1/sessions/run-a", agent, ""); s.body["status"] != "running" {
		t.Fatalf("run-a, whose question took its default answer: %s", s.text)
	}
	eventually(t, "the question_answered callback", func() bool { return len(rc.requests()) == 3 })
	var body map[string]any
	for _, r := range rc.requests() {
		if strings.Contains(string(r.body), "question_answered") {
			must(t, json.Unmarshal(r.body, &body))
		}
	}
	q := body["question"].(map[string]any)
	if body["session_id"] != "run-a" || q["id"] != defaulted || body["answer"] != "sonnet" || body["answered_by"] != nil ||
		body["default_answer"] != true || body["answered_at"] == nil {
		t.Fatalf("the default answer's callback: %v", body)
	}
}
