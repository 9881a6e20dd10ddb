package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl/internal/testserver"
)

// The HTTP calls of OpenIntent's Python SDK 0.17.0 (openintent/client.py, AsyncOpenIntentClient
// and OpenIntentClient alike, and agents.py), made here as it makes them: every request with
// X-API-Key, X-Agent-ID and Content-Type: application/json; update_state and set_status with
// If-Match: <version>. What it parses is checked as it parses it (Intent.from_dict,
// IntentEvent.from_dict, _handle_response's errors). docs/openintent.md says how the SDK itself
// was run against hitl.

// sdkClient sends requests as the SDK's client does, with its key and agent id.
type sdkClient struct {
	e            *env
	key, agentID string
}

func (c sdkClient) call(method, path, body string, headers ...string) reply {
	c.e.t.Helper()
	h := append([]string{"X-API-Key", c.key, "X-Agent-ID", c.agentID, "Content-Type", "application/json"}, headers...)
	return c.e.do(method, path, "", body, h...)
}

// createIntent is create_intent(title, description, initial_state=state).
func (c sdkClient) createIntent(title, description, state string) reply {
	c.e.t.Helper()
	return c.call("POST", "/api/v1/intents", fmt.Sprintf(`{"title": %q, "description": %q, "constraints": {}, "state": %s, "created_by": %q}`,
		title, description, state, c.agentID))
}

// updateState is update_state(intent_id, version, state_patch): a set for each key.
func (c sdkClient) updateState(id string, version int64, patches string) reply {
	c.e.t.Helper()
	return c.call("POST", "/api/v1/intents/"+id+"/state", `{"patches": `+patches+`}`, "If-Match", fmt.Sprint(version))
}

// setStatus is set_status(intent_id, version, status, reason).
func (c sdkClient) setStatus(id string, version int64, status string) reply {
	c.e.t.Helper()
	return c.call("POST", "/api/v1/intents/"+id+"/status", `{"status": "`+status+`"}`, "If-Match", fmt.Sprint(version))
}

// pythonTime is a time datetime.fromisoformat reads on every Python the SDK supports (3.10
// takes neither Z nor more than six digits of a second).
var pythonTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$`)

// sdkIntent checks r as Intent.from_dict reads it, and returns it.
func sdkIntent(t *testing.T, r reply, status int) map[string]any {
	t.Helper()
	b := r.body
	if r.status != status || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("got %d %s, want %d and an intent", r.status, r.text, status)
	}
	_, isString := b["id"].(string)
	_, hasTitle := b["title"].(string)
	_, hasDescription := b["description"].(string)
	_, isVersion := b["version"].(float64)
	_, isState := b["state"].(map[string]any)
	_, isConstraints := b["constraints"].(map[string]any)
	_, isDependsOn := b["depends_on"].([]any)
	_, isConfidence := b["confidence"].(float64)
	_, isCreator := b["created_by"].(string)
	created, _ := b["created_at"].(string)
	updated, _ := b["updated_at"].(string)
	if !isString || !hasTitle || !hasDescription || !isVersion || !isState || !isConstraints || !isDependsOn || !isConfidence || !isCreator ||
		b["parent_intent_id"] != nil || b["governance_policy"] != nil || !pythonTime.MatchString(created) || !pythonTime.MatchString(updated) {
		t.Fatalf("not an intent Intent.from_dict reads: %s", r.text)
	}
	if !slices.Contains([]string{"draft", "active", "blocked", "suspended_awaiting_input", "completed", "abandoned"}, b["status"].(string)) {
		t.Fatalf("status %v is none of the SDK's IntentStatus", b["status"])
	}
	return b
}

func version(intent map[string]any) int64 { return int64(intent["version"].(float64)) }

func suspensionIn(t *testing.T, intent map[string]any) map[string]any {
	t.Helper()
	s, ok := intent["state"].(map[string]any)["_suspension"].(map[string]any)
	if !ok {
		t.Fatalf("no _suspension in %v", intent)
	}
	return s
}

// sdkEventTypes are the values of the SDK's EventType that hitl's intents show; it parses
// every event's type into the enum, and fails on any other.
var sdkEventTypes = []string{"intent_created", "state_patched", "status_changed", "agent_assigned", "comment", "intent.suspended",
	"intent.resumed", "intent.suspension_renotified", "intent.suspension_escalated", "engagement.decision"}

// sdkProblem checks a refusal of an OpenIntent route as _handle_response reads it:
// problem+json (never HTML) with the message it shows.
func sdkProblem(t *testing.T, r reply, status int, words string) {
	t.Helper()
	routeProblem(t, r, status, words)
	if msg, _ := r.body["message"].(string); msg != r.body["detail"] {
		t.Errorf("the problem has no message for the SDK to show: %s", r.text)
	}
}

// routeProblem checks a refusal made before any route's handler (authentication, a path no
// route serves): problem+json, never HTML.
func routeProblem(t *testing.T, r reply, status int, words string) {
	t.Helper()
	if r.status != status || !strings.HasPrefix(r.header.Get("Content-Type"), "application/problem+json") || !strings.Contains(r.text, words) {
		t.Errorf("got %d %s %s, want %d problem+json with %q", r.status, r.header.Get("Content-Type"), r.text, status, words)
	}
}

// TestOpenIntentSDKIntentLifecycle: create_intent, get_intent, update_state, set_status,
// the suspension request_input writes (a UUID id) that becomes an inquiry, a person's answer
// in hitl read back as _suspension.response, log_event, get_events and the completion; each
// change moves the version on, and a change at an old version is the 409 ConflictError reads.
func TestOpenIntentSDKIntentLifecycle(t *testing.T) { openIntentSDKLifecycle(t, newEnv(t)) }

// TestOpenIntentSDKIntentLifecycleOnPostgres: the same on PostgreSQL, whose transactions count
// the version with the events they append at commit.
func TestOpenIntentSDKIntentLifecycleOnPostgres(t *testing.T) {
	openIntentSDKLifecycle(t, newEnv(t, testserver.Postgres()))
}

func openIntentSDKLifecycle(t *testing.T, e *env) {
	sdk := sdkClient{e, e.token("refund-agent", "agent"), "refund-agent"}
	ops := e.principal("ops", []string{"responder"})

	intent := sdkIntent(t, sdk.createIntent("Refund order 12345", "Decide whether to refund", `{"order": "12345"}`), http.StatusCreated)
	id := intent["id"].(string)
	if intent["title"] != "Refund order 12345" || intent["description"] != "Decide whether to refund" || intent["status"] != "active" ||
		version(intent) != 1 || intent["state"].(map[string]any)["order"] != "12345" || intent["created_by"] != "refund-agent" {
		t.Fatalf("created: %v", intent)
	}
	got := sdkIntent(t, sdk.call("GET", "/api/v1/intents/"+id, ""), http.StatusOK)
	if got["id"] != id || version(got) != 1 {
		t.Fatalf("get_intent: %v", got)
	}

	// update_state: the keys are the session's state; the version moves on.
	updated := sdkIntent(t, sdk.updateState(id, 1, `[{"op": "set", "path": "step", "value": "review"}, {"op": "set", "path": "amount", "value": 499.99}]`), http.StatusOK)
	if st := updated["state"].(map[string]any); st["step"] != "review" || st["amount"] != 499.99 || st["order"] != "12345" || version(updated) != 2 {
		t.Fatalf("update_state: %v", updated)
	}
	// At the version it read before: ConflictError, with the version it is at (and no word of
	// a lease, which would make it a LeaseConflictError).
	r := sdk.updateState(id, 1, `[{"op": "set", "path": "step", "value": "stale"}]`)
	sdkProblem(t, r, http.StatusConflict, "intent "+id+" is at version 2, not 1")
	if r.body["current_version"] != float64(2) || strings.Contains(strings.ToLower(r.text), "lease") {
		t.Fatalf("stale version: %s", r.text)
	}

	// request_input's calls, in the order it means them: the status, then the suspension.
	marked := sdkIntent(t, sdk.setStatus(id, 2, "suspended_awaiting_input"), http.StatusOK)
	if version(marked) != 3 {
		t.Fatalf("set_status(suspended_awaiting_input) is a change: %v", marked)
	}
	sdkProblem(t, sdk.setStatus(id, 2, "suspended_awaiting_input"), http.StatusConflict, "is at version 3, not 2")
	const suspensionID = "0b6f3c1e-8d8e-4c52-9a56-3f1f2b8f7c10"
	suspension := `{"id": "` + suspensionID + `", "question": "Refund $499.99 for order 12345?", "response_type": "choice",
		"context": {"amount": 499.99}, "fallback_policy": "fail", "suspended_at": "2026-01-02T10:00:00.123456", "timeout_seconds": 3600,
		"expires_at": "2026-01-02T11:00:00.123456", "confidence_at_suspension": 0.55,
		"choices": [{"value": "approve", "label": "Approve", "style": "primary"}, {"value": "deny", "label": "Deny", "description": "Keep the money"}]}`
	suspended := sdkIntent(t, sdk.updateState(id, 3, `[{"op": "set", "path": "_suspension", "value": `+suspension+`}]`), http.StatusOK)
	s := suspensionIn(t, suspended)
	if suspended["status"] != "suspended_awaiting_input" || version(suspended) != 4 || s["id"] != suspensionID || s["resolution"] != "pending" ||
		s["response_type"] != "choice" || s["question"] != "Refund $499.99 for order 12345?" || s["timeout_seconds"] != float64(3600) ||
		s["response"] != nil || len(s["choices"].([]any)) != 2 || !pythonTime.MatchString(s["suspended_at"].(string)) {
		t.Fatalf("the suspension: %v", s)
	}
	// updated_at follows each change the version counts: the suspension asked, then answered.
	if suspended["updated_at"].(string) <= marked["updated_at"].(string) {
		t.Fatalf("updated_at %v did not move when the suspension was asked (it was %v)", suspended["updated_at"], marked["updated_at"])
	}
	// It is an inquiry of the session, which keeps the SDK's id.
	inqs, err := e.Client(sdk.key).SessionInquiries(ctx, id)
	must(t, err)
	if len(inqs) != 1 || inqs[0].Metadata["openintent_suspension_id"] != suspensionID || len(inqs[0].Options) != 2 ||
		inqs[0].Options[1].Description != "Keep the money" || inqs[0].Origin != "refund-agent" || *inqs[0].Confidence != 0.55 {
		t.Fatalf("the inquiry: %+v", inqs)
	}
	// Written again (a retry, or the state read back), it asks no second time.
	again := sdkIntent(t, sdk.updateState(id, 4, `[{"op": "set", "path": "_suspension", "value": `+suspension+`}]`), http.StatusOK)
	if inqs, _ := e.Client(sdk.key).SessionInquiries(ctx, id); len(inqs) != 1 || version(again) != 4 {
		t.Fatalf("the suspension written again asked %d questions, version %v", len(inqs), again["version"])
	}
	ev := sdk.call("POST", "/api/v1/intents/"+id+"/events", `{"event_type": "intent.suspended", "actor": "refund-agent",
		"payload": {"suspension_id": "`+suspensionID+`"}, "trace_id": "trace-1", "parent_event_id": "ev-0"}`)
	if ev.status != http.StatusOK || ev.body["event_type"] != "intent.suspended" || ev.body["intent_id"] != id || ev.body["trace_id"] != "trace-1" ||
		ev.body["parent_event_id"] != "ev-0" || !pythonTime.MatchString(ev.body["created_at"].(string)) || ev.body["sequence"] == nil {
		t.Fatalf("log_event: %d %s", ev.status, ev.text)
	}

	// A person answers in hitl; the SDK's poll reads the answer as _suspension.response.
	_, err = ops.Respond(ctx, inqs[0].ID, json.RawMessage(`"approve"`), "")
	must(t, err)
	answered := sdkIntent(t, sdk.call("GET", "/api/v1/intents/"+id, ""), http.StatusOK)
	s = suspensionIn(t, answered)
	if answered["status"] != "active" || s["resolution"] != "responded" || s["response"] != "approve" || s["value"] != "approve" ||
		s["responded_by"] != "ops" || !pythonTime.MatchString(s["responded_at"].(string)) || version(answered) != 5 ||
		answered["updated_at"].(string) <= suspended["updated_at"].(string) {
		t.Fatalf("after the answer: %v", answered)
	}

	// get_events(intent_id), and get_events(intent_id, event_type=...): each type the SDK's.
	r = sdk.call("GET", "/api/v1/intents/"+id+"/events?limit=100", "")
	var events []map[string]any
	must(t, json.Unmarshal([]byte(r.text), &events))
	var types []string
	for _, ev := range events {
		types = append(types, ev["event_type"].(string))
		if !slices.Contains(sdkEventTypes, ev["event_type"].(string)) || !pythonTime.MatchString(ev["created_at"].(string)) {
			t.Errorf("an event IntentEvent.from_dict cannot read: %v", ev)
		}
	}
	if want := "intent_created state_patched status_changed intent.suspended intent.suspended intent.resumed"; strings.Join(types, " ") != want {
		t.Fatalf("get_events: %v, want %s", types, want)
	}
	r = sdk.call("GET", "/api/v1/intents/"+id+"/events?limit=100&event_type=intent.suspended&since=2020-01-01T00:00:00", "")
	if strings.Count(r.text, `"event_type":"intent.suspended"`) != 2 || strings.Count(r.text, `"event_type"`) != 2 {
		t.Fatalf("get_events(event_type=intent.suspended): %s", r.text)
	}
	if r := sdk.call("GET", "/api/v1/intents/"+id+"/events?since=2999-01-01T00:00:00%2B00:00", ""); r.text != "[]\n" {
		t.Fatalf("get_events(since=the future): %s", r.text)
	}

	// complete_intent: update_state with the final state, then set_status(COMPLETED).
	final := sdkIntent(t, sdk.updateState(id, 5, `[{"op": "set", "path": "refund", "value": {"approved": true}}]`), http.StatusOK)
	done := sdkIntent(t, sdk.setStatus(id, version(final), "completed"), http.StatusOK)
	if done["status"] != "completed" || done["state"].(map[string]any)["refund"].(map[string]any)["approved"] != true {
		t.Fatalf("completed: %v", done)
	}
	sdkProblem(t, sdk.setStatus(id, version(done), "active"), http.StatusConflict, "is completed and can no longer change")
}

// TestOpenIntentSDKSuspensionAnsweredByID: an operator's tool answers the SDK's suspension by
// its UUID through /suspend/respond, and the agent reads the answer; a confirm suspension
// without choices asks yes or no.
func TestOpenIntentSDKSuspensionAnsweredByID(t *testing.T) {
	e := newEnv(t)
	sdk := sdkClient{e, e.token("refund-agent", "agent"), "refund-agent"}
	operator := e.token("ops", "responder")
	id := sdkIntent(t, sdk.createIntent("Refund order 9", "", `{}`), http.StatusCreated)["id"].(string)
	const suspensionID = "5d0c2a55-7d6b-4a8e-8f0e-9e7d8b4c3a21"
	sdkIntent(t, sdk.updateState(id, 1, `[{"op": "set", "path": "_suspension", "value": {"id": "`+suspensionID+`", "question": "Go ahead?",
		"response_type": "confirm", "context": {}, "fallback_policy": "fail"}}]`), http.StatusOK)
	r := e.do("POST", "/api/v1/intents/"+id+"/suspend/respond", "", `{"suspension_id": "`+suspensionID+`", "value": "maybe", "responded_by": "ops"}`,
		"X-API-Key", operator, "Content-Type", "application/json")
	sdkProblem(t, r, http.StatusUnprocessableEntity, `must be one of \"yes\" or \"no\"`)
	r = e.do("POST", "/api/v1/intents/"+id+"/suspend/respond", "", `{"suspension_id": "`+suspensionID+`", "value": "yes", "responded_by": "ops"}`,
		"X-API-Key", operator, "Content-Type", "application/json")
	if r.status != http.StatusOK || r.body["suspension_id"] != suspensionID || r.body["resolution"] != "responded" || r.body["value"] != "yes" {
		t.Fatalf("respond by the SDK's id: %d %s", r.status, r.text)
	}
	s := suspensionIn(t, sdkIntent(t, sdk.call("GET", "/api/v1/intents/"+id, ""), http.StatusOK))
	// The SDK's record as it wrote it: a confirm, without the yes and no hitl asked it with.
	if s["id"] != suspensionID || s["response"] != "yes" || s["response_type"] != "confirm" || s["choices"] != nil {
		t.Fatalf("after the answer: %v", s)
	}
	// Another intent's suspension id names nothing in this one.
	other := sdkIntent(t, sdk.createIntent("Refund order 10", "", `{}`), http.StatusCreated)["id"].(string)
	r = e.do("POST", "/api/v1/intents/"+other+"/suspend/respond", "", `{"suspension_id": "`+suspensionID+`", "value": "yes"}`,
		"X-API-Key", operator, "Content-Type", "application/json")
	sdkProblem(t, r, http.StatusNotFound, "suspension "+suspensionID+" not found")
}

// TestOpenIntentSDKRefusals: what the SDK (or a mistaken caller) may send that cannot be done,
// each a problem+json _handle_response raises as the SDK's error with the server's message:
// 400 ValidationError, 404 NotFoundError, 409 ConflictError, 401 OpenIntentError; never HTML.
func TestOpenIntentSDKRefusals(t *testing.T) {
	e := newEnv(t)
	sdk := sdkClient{e, e.token("refund-agent", "agent"), "refund-agent"}
	id := sdkIntent(t, sdk.createIntent("Refund order 1", "", `{"n": 1}`), http.StatusCreated)["id"].(string)
	path := "/api/v1/intents/" + id

	sdkProblem(t, sdk.call("POST", path+"/state", `{"patches": [`, "If-Match", "1"), http.StatusBadRequest, "JSON")
	sdkProblem(t, sdk.call("POST", path+"/state", `{"patches": [{"op": "set", "path": "a", "value": 1}]}`, "If-Match", "v1"), http.StatusBadRequest, "If-Match must be the version")
	sdkProblem(t, sdk.updateState(id, 1, `[]`), http.StatusBadRequest, "patches are required")
	sdkProblem(t, sdk.updateState(id, 1, `[{"op": "move", "path": "a", "value": 1}]`), http.StatusBadRequest, "op must be set, append or remove")
	sdkProblem(t, sdk.updateState(id, 1, `[{"op": "set", "path": "", "value": 1}]`), http.StatusBadRequest, "path is required")
	sdkProblem(t, sdk.updateState(id, 1, `[{"op": "set", "path": "/n/deeper", "value": 1}]`), http.StatusBadRequest,
		`patches[0].path \"/n/deeper\": state.n is not an object, so it has no key \"deeper\"`)
	sdkProblem(t, sdk.updateState(id, 1, `[{"op": "set", "path": "/_suspension/response", "value": "yes"}]`), http.StatusBadRequest, "_suspension is written whole")
	sdkProblem(t, sdk.updateState(id, 1, `[{"op": "set", "path": "_suspension", "value": {"question": "Go?"}}]`), http.StatusBadRequest, "_suspension.id is required")
	sdkProblem(t, sdk.updateState(id, 1, `[{"op": "set", "path": "_suspension", "value": {"id": "s1", "question": " "}}]`), http.StatusBadRequest, "/prompt")
	sdkProblem(t, sdk.updateState(id, 1, `[{"op": "set", "path": "_suspension", "value": {"id": "s1", "question": "Go?", "response_type": "video"}}]`),
		http.StatusBadRequest, "response_type must be choice, confirm, text or form")
	sdkProblem(t, sdk.updateState(id, 9, `[{"op": "set", "path": "_suspension", "value": {"id": "s1", "question": "Go?"}}]`), http.StatusConflict, "is at version 1, not 9")
	// A state change beside a refused question is not made either.
	sdkProblem(t, sdk.updateState(id, 1, `[{"op": "set", "path": "a", "value": 1}, {"op": "set", "path": "_suspension", "value": {"id": "s1", "question": "Go?", "response_type": "video"}}]`),
		http.StatusBadRequest, "response_type must be choice, confirm, text or form")
	sdkProblem(t, sdk.updateState(id, 1, `[{"op": "set", "path": "a", "value": 1}, {"op": "set", "path": "_suspension", "value": {"id": "s1", "question": " "}}]`),
		http.StatusBadRequest, "/prompt")
	if inqs, _ := e.Client(sdk.key).SessionInquiries(ctx, id); len(inqs) != 0 {
		t.Fatalf("a refused suspension asked: %+v", inqs)
	}
	// The state is as it was: nothing of a refused request was written.
	if intent := sdkIntent(t, sdk.call("GET", path, ""), http.StatusOK); version(intent) != 1 || len(intent["state"].(map[string]any)) != 1 {
		t.Fatalf("after the refusals: %v", intent)
	}

	sdkProblem(t, sdk.setStatus(id, 1, "draft"), http.StatusBadRequest, "sessions have no draft status")
	sdkProblem(t, sdk.setStatus(id, 1, "blocked"), http.StatusBadRequest, "no blocked intents")
	sdkProblem(t, sdk.setStatus(id, 1, "paused"), http.StatusBadRequest, "status must be one of")
	sdkProblem(t, sdk.setStatus(id, 0, "abandoned"), http.StatusConflict, "is at version 1, not 0")
	sdkIntent(t, sdk.updateState(id, 1, `[{"op": "set", "path": "_suspension", "value": {"id": "s1", "question": "Go?", "response_type": "text"}}]`), http.StatusOK)
	sdkProblem(t, sdk.setStatus(id, 2, "active"), http.StatusConflict, "waits for a person's answer")

	sdkProblem(t, sdk.call("POST", "/api/v1/intents", `{"description": "no title"}`), http.StatusBadRequest, "title is required")
	sdkProblem(t, sdk.call("POST", "/api/v1/intents", `{"title": "t", "governance_policy": {"completion_mode": "quorum"}}`), http.StatusBadRequest, "governance_policy is not enforced")
	sdkProblem(t, sdk.call("POST", "/api/v1/intents", `{"title": "t", "constraints": {"max_cost": 5}}`), http.StatusBadRequest, "constraints are not enforced")
	sdkProblem(t, sdk.call("POST", "/api/v1/intents", `{"title": "t", "depends_on": ["x"]}`), http.StatusBadRequest, "no intent graphs")
	sdkProblem(t, sdk.call("POST", "/api/v1/intents", `{"title": "t", "state": [1]}`), http.StatusBadRequest, "state must be a JSON object")
	sdkProblem(t, sdk.call("POST", "/api/v1/intents", `{"title": "t", "colour": "red"}`), http.StatusBadRequest, "colour")

	// A session whose state is no object (set through /v1) is not patched into one.
	if r := e.do("PUT", "/v1/sessions/list-state", sdk.key, `{"state": [1, 2]}`); r.status != http.StatusCreated {
		t.Fatalf("PUT session: %d %s", r.status, r.text)
	}
	sdkProblem(t, sdk.updateState("list-state", 1, `[{"op": "set", "path": "a", "value": 1}]`), http.StatusConflict, "no JSON object")

	// An unknown intent is 404 on every route, and none creates it.
	for _, call := range [][3]string{{"GET", "", ""}, {"POST", "/state", `{"patches": [{"op": "set", "path": "a", "value": 1}]}`},
		{"POST", "/state", `{"patches": [{"op": "set", "path": "_suspension", "value": {"id": "s9", "question": "Go?"}}]}`},
		{"POST", "/status", `{"status": "active"}`}, {"POST", "/status", `{"status": "suspended_awaiting_input"}`},
		{"POST", "/status", `{"status": "completed"}`}, {"POST", "/status", `{"status": "abandoned"}`},
		{"POST", "/events", `{"event_type": "comment"}`}, {"GET", "/events", ""}, {"POST", "/agents", `{"agent_id": "a"}`},
		{"POST", "/suspend/respond", `{"suspension_id": "s9", "value": "yes"}`}} {
		for _, ifMatch := range []string{"", "1"} {
			r := sdk.call(call[0], "/api/v1/intents/no-such-intent"+call[1], call[2], "If-Match", ifMatch)
			sdkProblem(t, r, http.StatusNotFound, "no-such-intent")
		}
	}
	if _, err := e.Client(sdk.key).Session(ctx, "no-such-intent"); err == nil {
		t.Fatal("a call to an unknown intent created it")
	}
	sdkProblem(t, sdk.call("GET", "/api/v1/intents/no-such-intent", ""), http.StatusNotFound, "session no-such-intent not found")
	routeProblem(t, sdkClient{e, "hitl_not-a-key", "refund-agent"}.call("GET", path, ""), http.StatusUnauthorized, "unknown or revoked")
	other := sdkClient{e, e.token("other-agent", "agent"), "other-agent"}
	sdkProblem(t, other.call("GET", path, ""), http.StatusNotFound, "not found")
	sdkProblem(t, other.setStatus(id, 2, "abandoned"), http.StatusNotFound, "not found")

	// No path under /api/ or /.well-known/ is ever the inbox's HTML page.
	routeProblem(t, sdk.call("GET", "/api/v1/portfolios", ""), http.StatusNotFound, "no such route")
	routeProblem(t, sdk.call("GET", "/.well-known/openintent-compat.json", ""), http.StatusNotFound, "no such route")
	routeProblem(t, sdk.call("GET", "/api/v1/intents", ""), http.StatusMethodNotAllowed, "takes POST")
}

// TestOpenIntentSDKDiscovery: discover() and get_server_config().
func TestOpenIntentSDKDiscovery(t *testing.T) {
	e := newEnv(t)
	sdk := sdkClient{e, e.token("refund-agent", "agent"), "refund-agent"}
	r := e.do("GET", "/.well-known/openintent.json", "", "")
	caps, _ := r.body["capabilities"].([]any)
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") || r.body["protocol"] != "OpenIntent Coordination Protocol" ||
		r.body["version"] != "0.1" || !slices.Contains(caps, any("optimistic-concurrency")) {
		t.Fatalf("discover: %d %s", r.status, r.text)
	}
	r = sdk.call("GET", "/api/v1/server/config", "")
	if susp, _ := r.body["suspension"].(map[string]any); r.status != http.StatusOK || r.body["protocol_version"] != "0.1" || susp == nil || susp["default_retry_policy"] != nil {
		t.Fatalf("get_server_config: %d %s", r.status, r.text)
	}
	routeProblem(t, e.do("GET", "/api/v1/server/config", "", ""), http.StatusUnauthorized, "")
}

// sseEvent is an event as the SDK's SSEStream parses it: its event, id and data lines.
type sseEvent struct {
	typ, id string
	data    map[string]any
}

// subscribeAsSDK opens GET /api/v1/agents/{agent}/subscribe as Agent.run() does, and returns
// the events as SSEStream yields them once the server has said it listens (its first comment).
func subscribeAsSDK(t *testing.T, e *env, key, agent, lastEventID string) <-chan sseEvent {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", e.URL+"/api/v1/agents/"+agent+"/subscribe", nil)
	must(t, err)
	req.Header.Set("X-API-Key", key)
	req.Header.Set("X-Agent-ID", agent)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("subscribe: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := make(chan sseEvent, 16)
	listening := make(chan struct{})
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		ev, data := sseEvent{typ: "message"}, ""
		first := true
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			switch {
			case strings.HasPrefix(line, ":"):
				if first {
					first = false
					close(listening)
				}
			case line == "":
				if data != "" {
					json.Unmarshal([]byte(data), &ev.data)
					events <- ev
				}
				ev, data = sseEvent{typ: "message"}, ""
			default:
				field, value, _ := strings.Cut(line, ":")
				value = strings.TrimLeft(value, " ")
				switch field {
				case "event":
					ev.typ = value
				case "data":
					data += value + "\n"
				case "id":
					ev.id = value
				}
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(10 * time.Second):
		t.Fatal("the subscription said nothing")
	}
	return events
}

func nextSSE(t *testing.T, events <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	return sseEvent{}
}

// TestOpenIntentSDKAgentSubscribe: Agent.run() listens on its subscription and acts on
// AGENT_ASSIGNED with the intent's id: assign_agent (also the second call of delegate())
// sends it to the agent named, and to no other; the agent_assigned entry delegate() logs first
// is no assignment. Reconnecting with Last-Event-ID, the SDK gets what it missed.
func TestOpenIntentSDKAgentSubscribe(t *testing.T) {
	e := newEnv(t)
	key := e.token("refund-agent", "agent")
	sdk := sdkClient{e, key, "coordinator"}
	events := subscribeAsSDK(t, e, key, "refund-agent", "")

	id := sdkIntent(t, sdk.createIntent("Refund order 777", "", `{}`), http.StatusCreated)["id"].(string)
	// delegate(intent_id, "refund-agent"): log_event(AGENT_ASSIGNED, ...), then assign_agent.
	r := sdk.call("POST", "/api/v1/intents/"+id+"/events", `{"event_type": "agent_assigned", "actor": "coordinator",
		"payload": {"agent_id": "refund-agent", "delegated_by": "coordinator", "payload": {}}}`)
	if r.status != http.StatusOK {
		t.Fatalf("log_event: %d %s", r.status, r.text)
	}
	if r := sdk.call("POST", "/api/v1/intents/"+id+"/agents", `{"agent_id": "other-agent"}`); r.status != http.StatusOK {
		t.Fatalf("assign_agent(other-agent): %d %s", r.status, r.text)
	}
	r = sdk.call("POST", "/api/v1/intents/"+id+"/agents", `{"agent_id": "refund-agent"}`)
	if r.status != http.StatusOK || r.body["agent_id"] != "refund-agent" || r.body["intent_id"] != id || r.body["role"] != "worker" {
		t.Fatalf("assign_agent: %d %s", r.status, r.text)
	}
	ev := nextSSE(t, events)
	if ev.typ != "AGENT_ASSIGNED" || ev.data["intent_id"] != id || ev.data["agent_id"] != "refund-agent" || ev.id == "" {
		t.Fatalf("the first event: %+v", ev)
	}
	// The session's agent is the one assigned, in hitl's API too.
	sess, err := e.Client(key).Session(ctx, id)
	must(t, err)
	if sess.Agent != "refund-agent" {
		t.Fatalf("the session's agent: %q", sess.Agent)
	}
	// Its log has the assignments under the SDK's name.
	r = sdk.call("GET", "/api/v1/intents/"+id+"/events?event_type=agent_assigned", "")
	if strings.Count(r.text, `"event_type":"agent_assigned"`) != 3 {
		t.Fatalf("the assignments in the log: %s", r.text)
	}

	// Reconnecting after the event before it, the SDK gets it again.
	var seq int64
	fmt.Sscan(ev.id, &seq)
	again := nextSSE(t, subscribeAsSDK(t, e, key, "refund-agent", fmt.Sprint(seq-1)))
	if again.typ != "AGENT_ASSIGNED" || again.id != ev.id || again.data["intent_id"] != id {
		t.Fatalf("after Last-Event-ID: %+v", again)
	}
	sdkProblem(t, e.do("GET", "/api/v1/agents/refund-agent/subscribe", "", "", "X-API-Key", key, "Last-Event-ID", "soon"), http.StatusBadRequest, "Last-Event-ID")
	routeProblem(t, e.do("GET", "/api/v1/agents/refund-agent/subscribe", "", ""), http.StatusUnauthorized, "")
}

// TestOpenIntentSDKBodiesAreReadForPeople: a body of the wrong shape on any of the routes is
// refused in the SDK's words (never Go's type names), and a body with neither patches nor
// state says that one of them is required.
func TestOpenIntentSDKBodiesAreReadForPeople(t *testing.T) {
	e := newEnv(t)
	sdk := sdkClient{e, e.token("refund-agent", "agent"), "refund-agent"}
	id := sdkIntent(t, sdk.createIntent("Refund order 3", "", `{}`), http.StatusCreated)["id"].(string)
	path := "/api/v1/intents/" + id
	for _, c := range []struct{ method, path, body, words string }{
		{"POST", path + "/state", `{"state": {"_suspension": "hi"}}`, "state._suspension must be an object (the SDK's SuspensionRecord), not a JSON string"},
		{"POST", path + "/state", `{"state": {"_suspension": [1]}}`, "state._suspension must be an object (the SDK's SuspensionRecord), not a JSON array"},
		{"POST", path + "/state", `{"state": {"_suspension": {"id": "s1", "question": "Go?", "choices": "yes"}}}`,
			"state._suspension.choices must be an array, not a JSON string"},
		{"POST", path + "/state", `{"state": {"_suspension": {"id": "s1", "question": 5}}}`, "state._suspension.question must be a string, not a JSON number"},
		{"POST", path + "/state", `{"state": {"_suspension": {"id": "s1", "question": "Go?", "timeout_seconds": "soon"}}}`,
			"state._suspension.timeout_seconds must be a whole number"},
		{"POST", path + "/state", `{"state": {"_suspension": {"id": "s1", "question": "Go?", "expires_at": "tomorrow"}}}`,
			"state._suspension.expires_at must be a time such as"},
		{"POST", path + "/state", `{"a": 1}`, `unknown field \"a\"; the body is {\"patches\"`},
		{"POST", path + "/state", `{"a": 1}`, "patches or state is required"},
		{"POST", path + "/state", `{"patches": "a"}`, "/patches: expected an array"},
		{"POST", path + "/status", `{"status": 1}`, "/status: expected a string"},
		{"POST", path + "/events", `{"event_type": "comment", "trace_id": 7}`, "/trace_id: expected a string"},
		{"POST", path + "/agents", `{"agent_id": ["a"]}`, "/agent_id: expected a string"},
		{"POST", "/api/v1/intents", `{"title": {"t": 1}}`, "/title: expected a string"},
		{"POST", path + "/suspend/respond", `{"suspension_id": "s1", "value": "yes", "responded_by": 3}`, "/responded_by: expected a string"},
	} {
		r := sdk.call(c.method, c.path, c.body, "If-Match", "1")
		sdkProblem(t, r, http.StatusBadRequest, c.words)
		if strings.Contains(r.text, "Go value") || strings.Contains(r.text, "openintent.") {
			t.Errorf("%s %s: Go's words in %s", c.method, c.body, r.text)
		}
	}
	if intent := sdkIntent(t, sdk.call("GET", path, ""), http.StatusOK); version(intent) != 1 {
		t.Fatalf("a refused body changed the intent: %v", intent)
	}
}

// TestOpenIntentRouteRefusalsCarryMessage: the refusals made before any route's handler (no
// such route, a method the path does not take, a body too large) carry message too under
// /api/ and /.well-known/, as the docs promise every refusal there does; /v1's do not.
func TestOpenIntentRouteRefusalsCarryMessage(t *testing.T) {
	e := newEnv(t)
	sdk := sdkClient{e, e.token("refund-agent", "agent"), "refund-agent"}
	sdkProblem(t, sdk.call("GET", "/api/v1/portfolios", ""), http.StatusNotFound, "no such route")
	sdkProblem(t, sdk.call("GET", "/.well-known/openintent-compat.json", ""), http.StatusNotFound, "no such route")
	sdkProblem(t, sdk.call("DELETE", "/api/v1/intents", ""), http.StatusMethodNotAllowed, "takes POST")
	sdkProblem(t, sdk.call("POST", "/api/v1/intents", `{"title": "`+strings.Repeat("x", 1<<20)+`"}`), http.StatusRequestEntityTooLarge, "bytes")
	sdkProblem(t, sdkClient{e, "hitl_not-a-key", "refund-agent"}.call("GET", "/api/v1/server/config", ""), http.StatusUnauthorized, "unknown or revoked")
	if r := sdk.call("GET", "/v1/no-such-route", ""); r.status != http.StatusNotFound || r.body["message"] != nil {
		t.Fatalf("/v1's problems are as they were: %d %s", r.status, r.text)
	}
}

// TestOpenIntentSDKEndedIntentsSpeakOfIntents: a change of an intent that has ended is refused
// as the intent's (abandoned, with its reason; completed), not as a failed session's.
func TestOpenIntentSDKEndedIntentsSpeakOfIntents(t *testing.T) {
	e := newEnv(t)
	sdk := sdkClient{e, e.token("refund-agent", "agent"), "refund-agent"}
	id := sdkIntent(t, sdk.createIntent("Refund order 4", "", `{}`), http.StatusCreated)["id"].(string)
	r := sdk.call("POST", "/api/v1/intents/"+id+"/status", `{"status": "abandoned", "reason": "No operator response"}`)
	abandoned := sdkIntent(t, r, http.StatusOK)
	v := version(abandoned)
	for _, r := range []reply{sdk.setStatus(id, v, "completed"), sdk.setStatus(id, v, "active"), sdk.setStatus(id, v, "suspended_awaiting_input"),
		sdk.updateState(id, v, `[{"op": "set", "path": "a", "value": 1}]`), sdk.call("POST", "/api/v1/intents/"+id+"/agents", `{"agent_id": "b"}`)} {
		sdkProblem(t, r, http.StatusConflict, "intent "+id+" is abandoned (No operator response) and can no longer change")
		if strings.Contains(r.text, "session") || strings.Contains(r.text, "failed") {
			t.Errorf("hitl's words for an intent: %s", r.text)
		}
	}
	// Abandoning it again leaves it as it is.
	sdkIntent(t, sdk.setStatus(id, v, "abandoned"), http.StatusOK)

	done := sdkIntent(t, sdk.createIntent("Refund order 5", "", `{}`), http.StatusCreated)
	done = sdkIntent(t, sdk.setStatus(done["id"].(string), 1, "completed"), http.StatusOK)
	sdkProblem(t, sdk.setStatus(done["id"].(string), version(done), "abandoned"), http.StatusConflict, "is completed: an intent that reached its goal cannot be abandoned")
	sdkProblem(t, sdk.updateState(done["id"].(string), version(done), `[{"op": "set", "path": "a", "value": 1}]`), http.StatusConflict, "is completed and can no longer change")
}

// TestOpenIntentSDKSetStatusIsStatusChanged: set_status(active or suspended_awaiting_input),
// which a session records as no status of its own, is status_changed in get_events; the state
// patch after it is state_patched again.
func TestOpenIntentSDKSetStatusIsStatusChanged(t *testing.T) {
	e := newEnv(t)
	sdk := sdkClient{e, e.token("refund-agent", "agent"), "refund-agent"}
	id := sdkIntent(t, sdk.createIntent("Refund order 6", "", `{}`), http.StatusCreated)["id"].(string)
	sdkIntent(t, sdk.setStatus(id, 1, "suspended_awaiting_input"), http.StatusOK)
	sdkIntent(t, sdk.setStatus(id, 2, "active"), http.StatusOK)
	intent := sdkIntent(t, sdk.updateState(id, 3, `[{"op": "set", "path": "a", "value": 1}]`), http.StatusOK)
	sdkIntent(t, sdk.setStatus(id, version(intent), "completed"), http.StatusOK)
	r := sdk.call("GET", "/api/v1/intents/"+id+"/events", "")
	var events []map[string]any
	must(t, json.Unmarshal([]byte(r.text), &events))
	var types []string
	for _, ev := range events {
		types = append(types, ev["event_type"].(string))
	}
	if want := "intent_created status_changed status_changed state_patched status_changed"; strings.Join(types, " ") != want {
		t.Fatalf("get_events: %v, want %s", types, want)
	}
	r = sdk.call("GET", "/api/v1/intents/"+id+"/events?event_type=status_changed", "")
	if strings.Count(r.text, `"event_type":"status_changed"`) != 3 {
		t.Fatalf("get_events(event_type=status_changed): %s", r.text)
	}
}

// TestOpenIntentSDKOneSuspensionAtATime: while a suspension waits, writing another (a new id)
// is 409 and asks nothing: the first stays the intent's _suspension. Once it is answered, the
// next one is asked.
func TestOpenIntentSDKOneSuspensionAtATime(t *testing.T) {
	e := newEnv(t)
	sdk := sdkClient{e, e.token("refund-agent", "agent"), "refund-agent"}
	operator := e.token("ops", "responder")
	id := sdkIntent(t, sdk.createIntent("Refund order 7", "", `{}`), http.StatusCreated)["id"].(string)
	first := sdkIntent(t, sdk.updateState(id, 1, `[{"op": "set", "path": "_suspension", "value": {"id": "s-1", "question": "Refund?", "response_type": "confirm"}}]`), http.StatusOK)
	r := sdk.updateState(id, version(first), `[{"op": "set", "path": "_suspension", "value": {"id": "s-2", "question": "Really?", "response_type": "confirm"}}]`)
	sdkProblem(t, r, http.StatusConflict, "suspension s-1 is still waiting for an answer; ")
	intent := sdkIntent(t, sdk.call("GET", "/api/v1/intents/"+id, ""), http.StatusOK)
	if s := suspensionIn(t, intent); s["id"] != "s-1" || version(intent) != version(first) {
		t.Fatalf("after the refused second suspension: %v", intent)
	}
	r = e.do("POST", "/api/v1/intents/"+id+"/suspend/respond", "", `{"suspension_id": "s-1", "value": "yes", "responded_by": "ops"}`,
		"X-API-Key", operator, "Content-Type", "application/json")
	if r.status != http.StatusOK {
		t.Fatalf("respond: %d %s", r.status, r.text)
	}
	intent = sdkIntent(t, sdk.call("GET", "/api/v1/intents/"+id, ""), http.StatusOK)
	next := sdkIntent(t, sdk.updateState(id, version(intent), `[{"op": "set", "path": "_suspension", "value": {"id": "s-2", "question": "Really?", "response_type": "confirm"}}]`), http.StatusOK)
	if s := suspensionIn(t, next); s["id"] != "s-2" || s["resolution"] != "pending" {
		t.Fatalf("the next suspension: %v", s)
	}
}
