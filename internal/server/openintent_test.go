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
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// openIntentRespond posts to OpenIntent's respond route as the seed's operator does: the key
// in X-API-Key, the seed's body.
func (e *env) openIntentRespond(intent, apiKey, body string) reply {
	e.t.Helper()
	return e.do("POST", "/api/v1/intents/"+intent+"/suspend/respond", "", body, "X-API-Key", apiKey, "Content-Type", "application/json")
}

// TestOpenIntentSuspendRespond drives hitl as RFC-0025's SDK and operator do: the agent
// suspends its intent with a question, polls GET /api/v1/intents/{id} until
// state._suspension.resolution changes, and the operator answers with POST
// /suspend/respond and X-API-Key. The stream shows intent.suspended and intent.resumed at
// the seqs of the inquiry events they stand for.
func TestOpenIntentSuspendRespond(t *testing.T) {
	e := newEnv(t)
	agentKey := e.token("approvals-agent", "agent")
	operatorKey := e.token("test-operator", "responder")
	agent := e.Client(agentKey)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := agent.Events(sctx, client.StreamOptions{Types: []string{hitl.EventInquiryCreated, hitl.EventIntentSuspended, hitl.EventInquiryResponded, hitl.EventIntentResumed}})
	must(t, err)

	timeout := int64(3600)
	conf := 0.55
	inq := ask(t, agent, hitl.InquiryRequest{Session: "intent-uuid", Prompt: "Should we issue a refund for order #12345?",
		Context:     json.RawMessage(`{"order_id":"12345","amount":499.99,"currency":"USD","customer":"alice@example.com"}`),
		ChannelHint: "slack", TimeoutSeconds: &timeout, FallbackPolicy: hitl.FallbackCompleteWithFallback,
		FallbackValue: json.RawMessage(`"deny"`), Confidence: &conf})

	r := e.do("GET", "/api/v1/intents/intent-uuid", "", "", "X-API-Key", agentKey)
	if r.status != http.StatusOK || r.body["status"] != "suspended_awaiting_input" {
		t.Fatalf("GET intent: %d %s", r.status, r.text)
	}
	susp := r.body["state"].(map[string]any)["_suspension"].(map[string]any)
	if susp["id"] != float64(inq.ID) || susp["question"] != "Should we issue a refund for order #12345?" || susp["channel_hint"] != "slack" ||
		susp["timeout_seconds"] != float64(3600) || susp["fallback_policy"] != "complete_with_fallback" || susp["resolution"] != "pending" ||
		susp["context"].(map[string]any)["customer"] != "alice@example.com" {
		t.Fatalf("_suspension: %s", r.text)
	}

	// The operator answers with the seed's body; suspension_id as a string.
	r = e.openIntentRespond("intent-uuid", operatorKey, fmt.Sprintf(`{"suspension_id": "%d", "value": "approve", "responded_by": "test-operator"}`, inq.ID))
	if r.status != http.StatusOK || r.body["resolution"] != "responded" || r.body["value"] != "approve" || r.body["responded_by"] != "test-operator" ||
		r.body["intent_id"] != "intent-uuid" || r.body["suspension_id"] != fmt.Sprint(inq.ID) || r.body["responded_at"] == nil {
		t.Fatalf("respond: %d %s", r.status, r.text)
	}
	r = e.do("GET", "/api/v1/intents/intent-uuid", "", "", "X-API-Key", agentKey)
	susp = r.body["state"].(map[string]any)["_suspension"].(map[string]any)
	if r.body["status"] != "active" || susp["resolution"] != "responded" || susp["value"] != "approve" || susp["responded_by"] != "test-operator" {
		t.Fatalf("after the answer: %s", r.text)
	}

	// Each alias follows its inquiry event at the same seq.
	for _, pair := range [][2]string{{hitl.EventInquiryCreated, hitl.EventIntentSuspended}, {hitl.EventInquiryResponded, hitl.EventIntentResumed}} {
		ev, alias := next(t, stream), next(t, stream)
		if ev.Type != pair[0] || alias.Type != pair[1] || alias.Seq != ev.Seq || alias.ID == ev.ID || *alias.InquiryID != inq.ID || alias.Session != "intent-uuid" {
			t.Fatalf("got %s@%d then %s@%d, want %s then %s at one seq", ev.Type, ev.Seq, alias.Type, alias.Seq, pair[0], pair[1])
		}
	}
	// A stream that asks for the alias only receives it, replayed from the log.
	only, err := agent.Events(sctx, client.StreamOptions{Types: []string{hitl.EventIntentResumed}})
	must(t, err)
	if ev := next(t, only); ev.Type != hitl.EventIntentResumed || *ev.InquiryID != inq.ID {
		t.Fatalf("alias-only stream: %s", ev.Type)
	}
}

// TestOpenIntentBadInput: unknown, foreign and closed suspensions, a forged responded_by, and
// the relay role that may name the person it carries the answer of.
func TestOpenIntentBadInput(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("refund-agent", []string{"agent"})
	operatorKey := e.token("ops", "responder")
	relayKey := e.token("ops-bot", "responder", "relay")
	e.token("alice@example.com", "responder") // a relay carries the answers of people hitl knows
	a := ask(t, agent, hitl.InquiryRequest{Session: "intent-a", Prompt: "Approve refund A?"})
	b := ask(t, agent, hitl.InquiryRequest{Session: "intent-b", Prompt: "Approve refund B?"})
	problem := func(r reply, status int, words string) {
		t.Helper()
		if r.status != status || !strings.HasPrefix(r.header.Get("Content-Type"), "application/problem+json") || !strings.Contains(r.text, words) {
			t.Fatalf("got %d %s, want %d with %q", r.status, r.text, status, words)
		}
	}
	problem(e.openIntentRespond("intent-a", operatorKey, `{"suspension_id": "susp-uuid", "value": "approve"}`), 404, "suspension susp-uuid not found")
	problem(e.openIntentRespond("intent-a", operatorKey, `{"suspension_id": 999999, "value": "approve"}`), 404, "not found")
	problem(e.openIntentRespond("intent-a", operatorKey, fmt.Sprintf(`{"suspension_id": %d, "value": "approve"}`, b.ID)), 404, fmt.Sprintf("inquiry %d is not in session intent-a", b.ID))
	problem(e.openIntentRespond("intent-a", operatorKey, fmt.Sprintf(`{"suspension_id": %d}`, a.ID)), 400, "value is required")
	problem(e.openIntentRespond("intent-a", operatorKey, `{"value": "approve"}`), 400, "suspension_id is required")
	problem(e.openIntentRespond("intent-a", operatorKey, fmt.Sprintf(`{"suspension_id": %d, "value": "approve", "respondedBy": "x"}`, a.ID)), 400, "respondedBy")
	// Without the relay role, responded_by must name the caller.
	problem(e.openIntentRespond("intent-a", operatorKey, fmt.Sprintf(`{"suspension_id": %d, "value": "approve", "responded_by": "alice@example.com"}`, a.ID)), 403, "ops may answer only as itself, not as alice@example.com")
	problem(e.do("GET", "/api/v1/intents/no-such-intent", operatorKey, ""), 404, "no-such-intent")

	// The relay records the person, via itself, in the inquiry, the event and the inbox.
	r := e.openIntentRespond("intent-a", relayKey, fmt.Sprintf(`{"suspension_id": %d, "value": "approve", "responded_by": "alice@example.com"}`, a.ID))
	if r.status != http.StatusOK || r.body["responded_by"] != "alice@example.com" || r.body["relayed_by"] != "ops-bot" {
		t.Fatalf("relay: %d %s", r.status, r.text)
	}
	got, err := agent.Inquiry(ctx, a.ID)
	must(t, err)
	if got.RespondedBy == nil || *got.RespondedBy != "alice@example.com" || got.RelayedBy == nil || *got.RelayedBy != "ops-bot" {
		t.Fatalf("the inquiry records %v via %v", got.RespondedBy, got.RelayedBy)
	}
	page, err := agent.EventPage(ctx, client.EventOptions{Types: []string{hitl.EventInquiryResponded}})
	must(t, err)
	if len(page.Data) != 1 || page.Data[0].Actor != "alice@example.com via ops-bot" {
		t.Fatalf("responded events: %+v", page.Data)
	}
	// The same answer again is the same success; another is a conflict, in words.
	again := e.openIntentRespond("intent-a", relayKey, fmt.Sprintf(`{"suspension_id": %d, "value": "approve", "responded_by": "alice@example.com"}`, a.ID))
	if again.status != http.StatusOK {
		t.Fatalf("replayed answer: %d %s", again.status, again.text)
	}
	problem(e.openIntentRespond("intent-a", relayKey, fmt.Sprintf(`{"suspension_id": "%d", "value": "deny", "responded_by": "alice@example.com"}`, a.ID)), 409, "already answered")
	// A cancelled suspension is closed too, and the intent says so.
	_, err = agent.Cancel(ctx, b.ID, "order withdrawn")
	must(t, err)
	problem(e.openIntentRespond("intent-b", operatorKey, fmt.Sprintf(`{"suspension_id": %d, "value": "approve"}`, b.ID)), 409, "already cancelled")
	r = e.do("GET", "/api/v1/intents/intent-b", "", "", "X-API-Key", operatorKey)
	if susp := r.body["state"].(map[string]any)["_suspension"].(map[string]any); susp["resolution"] != "cancelled" {
		t.Fatalf("cancelled suspension: %s", r.text)
	}
}

// TestAnswersToAnEndedSessionAreRefusedAlike: OpenIntent and the async agent questions
// protocol both name the session their answer is for, and one engine rule refuses an answer
// to a run that has ended: the same 404 and words from both, for an answer given before the
// end (which OpenIntent replayed as a success) and for one the end cancelled.
func TestAnswersToAnEndedSessionAreRefusedAlike(t *testing.T) {
	e, agent, human := agentQuestionsEnv(t)
	answered := askInSession(t, e, agent, `{"prompt": "Ship it?", "session": "run-9"}`)
	pending := askInSession(t, e, agent, `{"prompt": "And the docs?", "session": "run-9"}`)
	must(t, e.do("POST", "/agent/answer/run-9", human, `{"question_id": "`+answered+`", "answer": "yes"}`).err())
	must(t, e.do("POST", "/v1/sessions/run-9/complete", agent, `{}`).err())
	for _, id := range []string{answered, pending} {
		agentQuestions := e.do("POST", "/agent/answer/run-9", human, `{"question_id": "`+id+`", "answer": "yes"}`)
		openIntent := e.openIntentRespond("run-9", human, `{"suspension_id": "`+id+`", "value": "yes"}`)
		for _, r := range []reply{agentQuestions, openIntent} {
			if r.status != http.StatusNotFound || r.body["detail"] != "session run-9 has completed and takes no more answers" {
				t.Errorf("an answer to question %s of the completed session: %d %s", id, r.status, r.text)
			}
		}
	}
}

// TestOpenIntentFallbackValueUnderFail: OpenIntent's SDK sends a fallback_value whatever the
// policy and uses it only under complete_with_fallback; hitl takes it under fail too and
// ignores it as the SDK does: the inquiry has none, and its deadline ends it with no answer.
func TestOpenIntentFallbackValueUnderFail(t *testing.T) {
	clk := clock.NewManual(time.Now())
	e := newEnv(t, testserver.Configure(func(c *server.Config) { c.Clock = clk }))
	agent := e.token("refund-agent", "agent")
	// request_input(intent_id, question="Approve?", timeout_seconds=300, fallback_policy="fail",
	// fallback_value="deny"), as the SDK's request asks it.
	// One intent each: the first to expire under fail would end the intent, and the other
	// question with it.
	ids := map[string]any{}
	for intent, policy := range map[string]string{"refund-9": `"fallback_policy": "fail", `, "refund-10": ""} { // named, or the server's default
		r := e.do("POST", "/v1/inquiries", agent, `{"prompt": "Approve?", "session": "`+intent+`", "timeout_seconds": 300, `+policy+`"fallback_value": "deny"}`)
		if r.status != http.StatusCreated || r.body["fallback_policy"] != "fail" || r.body["fallback_value"] != nil {
			t.Fatalf("fallback_value under fail (%s): %d %s", policy, r.status, r.text)
		}
		ids[intent] = r.body["id"]
	}
	clk.Advance(300 * time.Second)
	for intent, id := range ids {
		if r := e.do("GET", fmt.Sprintf("/v1/inquiries/%v/wait?timeout=10s", id), agent, ""); r.body["status"] != "timeout" {
			t.Fatalf("the deadline passed: %s", r.text)
		}
		r := e.do("GET", "/api/v1/intents/"+intent, "", "", "X-API-Key", agent)
		susp, _ := r.body["state"].(map[string]any)["_suspension"].(map[string]any)
		if susp["resolution"] != "expired" || susp["value"] != nil || susp["fallback_applied"] != false || susp["fallback_value"] != nil {
			t.Fatalf("at the deadline: %s", r.text)
		}
	}
}

// TestOpenIntentLogAndAbandon: the seed's agent, when nobody answers, logs to its intent and
// abandons it — log(intent_id, message) posts a comment to POST /intents/{id}/events, and
// abandon(intent_id, reason) ends it through POST /intents/{id}/status. Both are the engine's:
// a session.logged event that changes nothing, and the session failing with the reason.
func TestOpenIntentLogAndAbandon(t *testing.T) {
	e := newEnv(t)
	agentKey := e.token("refund-agent", "agent")
	operatorKey := e.token("ops", "responder")
	agent := e.Client(agentKey)
	oi := func(method, path, key, body string) reply {
		t.Helper()
		return e.do(method, "/api/v1/intents/"+path, "", body, "X-API-Key", key, "Content-Type", "application/json")
	}
	suspension := ask(t, agent, hitl.InquiryRequest{Session: "refund-3", Prompt: "Approve the refund?"})

	r := oi("POST", "refund-3/events", agentKey, fmt.Sprintf(`{"event_type": "comment", "actor": "refund-agent", "payload": {"message": "Suspension %d expired", "suspension_id": %d}}`, suspension.ID, suspension.ID))
	payload, _ := r.body["payload"].(map[string]any)
	if r.status != http.StatusOK || r.body["event_type"] != "comment" || r.body["intent_id"] != "refund-3" || r.body["actor"] != "refund-agent" ||
		payload["message"] != fmt.Sprintf("Suspension %d expired", suspension.ID) || r.body["id"] == "" || r.body["created_at"] == nil {
		t.Fatalf("log: %d %s", r.status, r.text)
	}
	// A note changes nothing: the intent still waits for its answer.
	if r := oi("GET", "refund-3", agentKey, ""); r.body["status"] != "suspended_awaiting_input" {
		t.Fatalf("after the note: %s", r.text)
	}

	r = oi("POST", "refund-3/status", agentKey, `{"status": "abandoned", "reason": "No operator response"}`)
	susp, _ := r.body["state"].(map[string]any)["_suspension"].(map[string]any)
	if r.status != http.StatusOK || r.body["status"] != "abandoned" || r.body["abandonment_reason"] != "No operator response" || susp["resolution"] != "cancelled" {
		t.Fatalf("abandon: %d %s", r.status, r.text)
	}
	sess, err := agent.Session(ctx, "refund-3")
	must(t, err)
	if sess.Status != hitl.SessionFailed || sess.Error == nil || *sess.Error != "No operator response" {
		t.Fatalf("the session: %+v", sess)
	}
	// Abandoned already (as a question that timed out under fail leaves it): the same intent,
	// with the reason it ended for. A note after the end is kept with the rest.
	r = oi("POST", "refund-3/status", agentKey, `{"status": "abandoned", "reason": "Still nobody"}`)
	if r.status != http.StatusOK || r.body["status"] != "abandoned" || r.body["abandonment_reason"] != "No operator response" {
		t.Fatalf("abandoned again: %d %s", r.status, r.text)
	}
	if r := oi("POST", "refund-3/events", agentKey, `{"event_type": "comment", "payload": {"message": "customer told"}}`); r.status != http.StatusOK {
		t.Fatalf("a note after the end: %d %s", r.status, r.text)
	}

	// The intent's event log: its suspension and what became of it under OpenIntent's names,
	// the notes as logged, and its end; a page at a time.
	r = oi("GET", "refund-3/events", agentKey, "")
	// Each type is one of the SDK's EventType (it parses every one), hitl's beside it.
	var types, hitlTypes []string
	var events []any
	must(t, json.Unmarshal([]byte(r.text), &events))
	for _, ev := range events {
		types = append(types, ev.(map[string]any)["event_type"].(string))
		hitlTypes = append(hitlTypes, ev.(map[string]any)["hitl_type"].(string))
	}
	if r.status != http.StatusOK || strings.Join(types, " ") != "intent_created intent.suspended comment intent.resumed status_changed comment" ||
		strings.Join(hitlTypes, " ") != "session.updated inquiry.created session.logged inquiry.cancelled session.failed session.logged" {
		t.Fatalf("the intent's events: %d %v %s", r.status, types, r.text)
	}
	second := events[1].(map[string]any)
	r = oi("GET", fmt.Sprintf("refund-3/events?limit=2&after=%v", second["seq"]), agentKey, "")
	if !strings.HasPrefix(r.text, `[{"id":`) || strings.Count(r.text, `"event_type"`) != 2 || !strings.Contains(r.text, `"event_type":"comment"`) {
		t.Fatalf("the page after the suspension: %s", r.text)
	}
	// hitl's own log has the entry beside the session it changed nothing of.
	page, err := agent.EventPage(ctx, client.EventOptions{Session: "refund-3", Types: []string{hitl.EventSessionLogged}})
	must(t, err)
	var data struct {
		Status string               `json:"status"`
		Entry  hitl.SessionLogEntry `json:"entry"`
	}
	if len(page.Data) != 2 || json.Unmarshal(page.Data[0].Data, &data) != nil || data.Status != "awaiting_input" || data.Entry.EventType != "comment" ||
		!strings.Contains(string(data.Entry.Payload), "expired") || page.Data[0].Actor != "refund-agent" {
		t.Fatalf("session.logged: %+v", page.Data)
	}

	// Completing, and what cannot be done.
	ask(t, agent, hitl.InquiryRequest{Session: "refund-4", Prompt: "Approve?"})
	if r := oi("POST", "refund-4/status", agentKey, `{"status": "completed"}`); r.status != http.StatusOK || r.body["status"] != "completed" {
		t.Fatalf("complete: %d %s", r.status, r.text)
	}
	problem := func(r reply, status int, words string) {
		t.Helper()
		if r.status != status || !strings.HasPrefix(r.header.Get("Content-Type"), "application/problem+json") || !strings.Contains(r.text, words) {
			t.Errorf("got %d %s, want %d with %q", r.status, r.text, status, words)
		}
	}
	problem(oi("POST", "refund-4/status", agentKey, `{"status": "abandoned"}`), 409, "intent refund-4 is completed: an intent that reached its goal cannot be abandoned")
	problem(oi("POST", "refund-4/status", agentKey, `{"status": "completed"}`), 409, "intent refund-4 is completed and can no longer change")
	problem(oi("POST", "refund-3/status", agentKey, `{"status": "active"}`), 409, "intent refund-3 is abandoned (No operator response) and can no longer change")
	problem(oi("POST", "refund-3/status", agentKey, `{"status": "paused"}`), 400, "status must be one of active, suspended_awaiting_input, completed, abandoned")
	problem(oi("POST", "refund-3/status", agentKey, `{"status": "completed", "reason": "done"}`), 400, "reason is kept for an abandoned intent only")
	problem(oi("POST", "refund-3/status", agentKey, `{}`), 400, "status must be one of active, suspended_awaiting_input, completed, abandoned")
	problem(oi("POST", "no-such-intent/status", agentKey, `{"status": "abandoned"}`), 404, "no-such-intent")
	problem(oi("POST", "refund-3/status", operatorKey, `{"status": "abandoned"}`), 403, "only the session's creator or an admin")
	problem(oi("POST", "refund-3/events", agentKey, `{"payload": {}}`), 400, "/event_type")
	problem(oi("POST", "refund-3/events", agentKey, `{"event_type": "comment", "payload": "hello"}`), 400, "must be a JSON object")
	problem(oi("POST", "refund-3/events", agentKey, `{"event_type": "a comment"}`), 400, "must be 1 to 100 characters")
	problem(oi("POST", "refund-3/events", agentKey, `{"event_type": "comment", "trace": "t1"}`), 400, "trace")
	problem(oi("POST", "refund-3/events", operatorKey, `{"event_type": "comment"}`), 403, "only the session's creator or an admin")
	problem(oi("POST", "no-such-intent/events", agentKey, `{"event_type": "comment"}`), 404, "no-such-intent")
	problem(oi("GET", "no-such-intent/events", agentKey, ""), 404, "no-such-intent")
	problem(oi("GET", "refund-3/events?limit=0", agentKey, ""), 400, "limit must be a whole number from 1 to 1000")
	problem(oi("GET", "refund-3/events?offset=5", agentKey, ""), 400, "offset")
}
