package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// rpcReply is the answer to one A2A JSON-RPC request.
type rpcReply struct {
	reply
	result map[string]any
	code   float64 // the error's code, 0 for a result
	msg    string
}

// a2a posts one JSON-RPC request to /a2a, as an A2A client does.
func (e *env) a2a(token, method, params string) rpcReply {
	e.t.Helper()
	return e.a2aRaw(token, fmt.Sprintf(`{"jsonrpc": "2.0", "id": 7, "method": %q, "params": %s}`, method, params))
}

func (e *env) a2aRaw(token, body string) rpcReply {
	e.t.Helper()
	r := rpcReply{reply: e.do("POST", "/a2a", token, body, "Content-Type", "application/json")}
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") || r.body["jsonrpc"] != "2.0" {
		e.t.Fatalf("%s: not a JSON-RPC answer: %d %s %s", body, r.status, r.header.Get("Content-Type"), r.text)
	}
	r.result, _ = r.body["result"].(map[string]any)
	if errObj, ok := r.body["error"].(map[string]any); ok {
		r.code, _ = errObj["code"].(float64)
		r.msg, _ = errObj["message"].(string)
	}
	return r
}

// a2aMessage is message/send's or message/stream's params: text, and a data part when data is set.
func a2aMessage(id, contextID, text, data string) string {
	parts := fmt.Sprintf(`[{"kind": "text", "text": %q}`, text)
	if data != "" {
		parts += `, {"kind": "data", "data": ` + data + `}`
	}
	ctxID := ""
	if contextID != "" {
		ctxID = fmt.Sprintf(`, "contextId": %q`, contextID)
	}
	return fmt.Sprintf(`{"message": {"kind": "message", "messageId": %q, "role": "user", "parts": %s]%s}, "configuration": {"blocking": false}}`, id, parts, ctxID)
}

// state is a task's status.state.
func state(task map[string]any) string {
	s, _ := task["status"].(map[string]any)
	st, _ := s["state"].(string)
	return st
}

// statusText is the text of a task's status message, "" when it has none.
func statusText(task map[string]any) string {
	s, _ := task["status"].(map[string]any)
	m, _ := s["message"].(map[string]any)
	if m == nil {
		return ""
	}
	parts, _ := m["parts"].([]any)
	if len(parts) == 0 {
		return ""
	}
	t, _ := parts[0].(map[string]any)["text"].(string)
	return t
}

// taskInquiry is the inquiry id of a task.
func taskInquiry(t *testing.T, task map[string]any) int64 {
	t.Helper()
	var id int64
	if _, err := fmt.Sscan(task["id"].(string), &id); err != nil {
		t.Fatalf("task id %v: %v", task["id"], err)
	}
	return id
}

// TestA2AAgentCard: the card is served to anyone, as JSON, with the endpoint's absolute URL,
// the bearer scheme of hitl's keys and streaming; the extended card, to a key, adds the templates.
func TestA2AAgentCard(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/.well-known/agent-card.json", "", "")
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("card: %d %s", r.status, r.text)
	}
	schemes, _ := r.body["securitySchemes"].(map[string]any)
	scheme, _ := schemes["hitlApiKey"].(map[string]any)
	caps, _ := r.body["capabilities"].(map[string]any)
	if r.body["url"] != e.URL+"/a2a" || r.body["preferredTransport"] != "JSONRPC" || r.body["protocolVersion"] != "0.3.0" ||
		scheme["type"] != "http" || scheme["scheme"] != "bearer" || caps["streaming"] != true {
		t.Fatalf("card: %s", r.text)
	}
	// The same scheme in 1.0's shape, and 1.0's securityRequirements beside 0.3's security, so
	// that a 1.0 client sees the bearer requirement too; its description names the real command.
	v1Scheme, _ := scheme["httpAuthSecurityScheme"].(map[string]any)
	reqs, _ := r.body["securityRequirements"].([]any)
	if v1Scheme["scheme"] != "bearer" || len(reqs) != 1 || !strings.Contains(fmt.Sprint(reqs[0]), "hitlApiKey") ||
		!strings.Contains(fmt.Sprint(scheme["description"]), "hitl keys create NAME --role agent") {
		t.Fatalf("card's 1.0 security: %s", r.text)
	}
	skills := fmt.Sprint(r.body["skills"])
	if !strings.Contains(skills, "ask-a-person") || !strings.Contains(skills, "ask-a-group") || strings.Contains(skills, "template-") {
		t.Fatalf("skills: %s", skills)
	}

	// Behind a proxy, the card gives the public URL.
	public := startServer(t, testserver.PublicURL("https://hitl.example.com/"))
	if r := public.do("GET", "/.well-known/agent-card.json", "", ""); r.body["url"] != "https://hitl.example.com/a2a" {
		t.Fatalf("card under a public URL: %s", r.text)
	}

	_, _, err := e.Admin.PutTemplate(ctx, "refund", &hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "Refund {{.order}}?"}})
	must(t, err)
	agent := e.token("buyer-agent", "agent")
	ext := e.a2a(agent, "agent/getAuthenticatedExtendedCard", `{}`)
	if !strings.Contains(fmt.Sprint(ext.result["skills"]), "template-refund") || ext.result["url"] != e.URL+"/a2a" {
		t.Fatalf("extended card: %s", ext.text)
	}
}

// TestA2AAskedAndAnswered: a message is a question in the session its contextId names; the
// task works while people are asked and completes with the answer as its artifact, whether the
// agent polls it, waits in a blocking message/send, or streams it.
func TestA2AAskedAndAnswered(t *testing.T) {
	e := newEnv(t)
	agent := e.token("deploy-agent", "agent")
	alice := e.Client(e.token("alice", "responder"))

	r := e.a2a(agent, "message/send", a2aMessage("m-1", "release-42", "May I deploy build 1432?", `{"response_schema": {"type": "string"}, "assigned_to": ["alice"]}`))
	task := r.result
	if task["kind"] != "task" || state(task) != "submitted" || task["contextId"] != "release-42" {
		t.Fatalf("message/send: %s", r.text)
	}
	id := taskInquiry(t, task)
	inq, err := alice.Inquiry(ctx, id)
	must(t, err)
	if inq.Prompt != "May I deploy build 1432?" || inq.Session != "release-42" || fmt.Sprint(inq.AssignedTo) != "[alice]" || inq.Origin != "a2a" {
		t.Fatalf("the inquiry: %+v", inq)
	}
	// The same message again is the same task.
	if again := e.a2a(agent, "message/send", a2aMessage("m-1", "release-42", "May I deploy build 1432?", `{"response_schema": {"type": "string"}, "assigned_to": ["alice"]}`)); again.result["id"] != task["id"] {
		t.Fatalf("the message again: %s", again.text)
	}
	if got := e.a2a(agent, "tasks/get", fmt.Sprintf(`{"id": %q}`, task["id"])); state(got.result) != "working" {
		t.Fatalf("tasks/get while asked: %s", got.text)
	}
	_, err = alice.Respond(ctx, id, json.RawMessage(`"yes, go ahead"`), "after 5 pm")
	must(t, err)
	got := e.a2a(agent, "tasks/get", fmt.Sprintf(`{"id": %q}`, task["id"]))
	arts, _ := got.result["artifacts"].([]any)
	if state(got.result) != "completed" || len(arts) != 1 {
		t.Fatalf("tasks/get answered: %s", got.text)
	}
	parts := arts[0].(map[string]any)["parts"].([]any)
	data, text := parts[0].(map[string]any), parts[1].(map[string]any)
	meta := got.result["metadata"].(map[string]any)["hitl"].(map[string]any)
	if data["kind"] != "data" || data["data"].(map[string]any)["value"] != "yes, go ahead" || text["kind"] != "text" || text["text"] != "yes, go ahead" ||
		meta["responded_by"] != "alice" || meta["comment"] != "after 5 pm" {
		t.Fatalf("the answer: %s", got.text)
	}

	// A blocking message/send waits for the answer; an object answer is the data part as it is.
	done := make(chan rpcReply, 1)
	go func() {
		done <- e.a2aRaw(agent, `{"jsonrpc": "2.0", "id": "b", "method": "message/send", "params": {"message": {"kind": "message", "messageId": "m-2", "role": "user",
			"parts": [{"kind": "text", "text": "Which region?"}, {"kind": "data", "data": {"response_schema": {"type": "object", "properties": {"region": {"type": "string"}}}}}]},
			"configuration": {"blocking": true}}}`)
	}()
	pending := waitPending(t, alice, "Which region?")
	_, err = alice.Respond(ctx, pending.ID, json.RawMessage(`{"region": "eu-west"}`), "")
	must(t, err)
	blocked := <-done
	arts, _ = blocked.result["artifacts"].([]any)
	if state(blocked.result) != "completed" || blocked.body["id"] != "b" || len(arts) != 1 ||
		arts[0].(map[string]any)["parts"].([]any)[0].(map[string]any)["data"].(map[string]any)["region"] != "eu-west" {
		t.Fatalf("blocking message/send: %s", blocked.text)
	}
	if !strings.HasPrefix(blocked.result["contextId"].(string), "a2a-") {
		t.Fatalf("a message without contextId gets a session of its own: %s", blocked.text)
	}

	// message/stream: the task, working, then the answer and the final status.
	events := e.a2aStream(agent, "message/stream", a2aMessage("m-3", "release-42", "Roll back?", `{"options": ["yes", "no"]}`))
	if ev := <-events; ev["kind"] != "task" || state(ev) != "submitted" {
		t.Fatalf("first event: %v", ev)
	}
	if ev := <-events; ev["kind"] != "status-update" || state(ev) != "working" || ev["final"] != false {
		t.Fatalf("second event: %v", ev)
	}
	pending = waitPending(t, alice, "Roll back?")
	_, err = alice.Respond(ctx, pending.ID, json.RawMessage(`"no"`), "")
	must(t, err)
	if ev := <-events; ev["kind"] != "artifact-update" || ev["artifact"].(map[string]any)["parts"].([]any)[1].(map[string]any)["text"] != "no" {
		t.Fatalf("artifact event: %v", ev)
	}
	if ev := <-events; ev["kind"] != "status-update" || state(ev) != "completed" || ev["final"] != true {
		t.Fatalf("final event: %v", ev)
	}
	if _, open := <-events; open {
		t.Fatal("the stream goes on after the final event")
	}
	// tasks/resubscribe to a task that has ended: the task, and its final status.
	events = e.a2aStream(agent, "tasks/resubscribe", fmt.Sprintf(`{"id": "%d"}`, pending.ID))
	if ev := <-events; ev["kind"] != "task" || state(ev) != "completed" {
		t.Fatalf("resubscribe: %v", ev)
	}
	if ev := <-events; ev["kind"] != "artifact-update" {
		t.Fatalf("resubscribe: %v", ev)
	}
	if ev := <-events; state(ev) != "completed" || ev["final"] != true {
		t.Fatalf("resubscribe: %v", ev)
	}
}

// waitPending waits for the pending inquiry with the prompt that c may answer.
func waitPending(t *testing.T, c *client.Client, prompt string) *hitl.Inquiry {
	t.Helper()
	var found *hitl.Inquiry
	testserver.Eventually(t, 10*time.Second, "the question "+prompt, func() bool {
		page, err := c.Inquiries(ctx, client.ListOptions{Status: "pending"})
		if err != nil {
			return false
		}
		for _, inq := range page.Data {
			if inq.Prompt == prompt {
				found = inq
			}
		}
		return found != nil
	})
	return found
}

// a2aStream posts a streaming request and returns its events' results, closed at the stream's end.
func (e *env) a2aStream(token, method, params string) <-chan map[string]any {
	e.t.Helper()
	body := fmt.Sprintf(`{"jsonrpc": "2.0", "id": 9, "method": %q, "params": %s}`, method, params)
	req, err := http.NewRequestWithContext(ctx, "POST", e.URL+"/a2a", strings.NewReader(body))
	must(e.t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	must(e.t, err)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		resp.Body.Close()
		e.t.Fatalf("%s: %d %s", method, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	out := make(chan map[string]any, 16)
	e.t.Cleanup(func() { resp.Body.Close() })
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var r struct {
				ID     any            `json:"id"`
				Result map[string]any `json:"result"`
			}
			if json.Unmarshal([]byte(data), &r) != nil || r.ID != float64(9) {
				out <- map[string]any{"bad event": data}
				return
			}
			out <- r.Result
		}
	}()
	return out
}

// TestA2ATaskEnds: a person who declines rejects the task with their reason; the agent cancels
// its task (once); at the deadline the fallback value completes it, saying so, and without one
// the task fails.
func TestA2ATaskEnds(t *testing.T) {
	clk := clock.NewManual(time.Now())
	e := newEnv(t, testserver.Configure(func(c *server.Config) { c.Clock = clk }))
	agent := e.token("ops-agent", "agent")
	bob := e.Client(e.token("bob", "responder"))

	r := e.a2a(agent, "message/send", a2aMessage("d-1", "", "Wipe the staging database?", `{"assigned_to": ["bob"]}`))
	id := taskInquiry(t, r.result)
	_, err := bob.Decline(ctx, id, "not my system; ask the data team")
	must(t, err)
	got := e.a2a(agent, "tasks/get", fmt.Sprintf(`{"id": "%d"}`, id))
	if state(got.result) != "rejected" || statusText(got.result) != "not my system; ask the data team" {
		t.Fatalf("declined: %s", got.text)
	}

	r = e.a2a(agent, "message/send", a2aMessage("c-1", "", "Restart the cache?", ""))
	cancelled := e.a2a(agent, "tasks/cancel", fmt.Sprintf(`{"id": %q}`, r.result["id"]))
	if state(cancelled.result) != "canceled" || cancelled.result["id"] != r.result["id"] {
		t.Fatalf("tasks/cancel: %s", cancelled.text)
	}
	if again := e.a2a(agent, "tasks/cancel", fmt.Sprintf(`{"id": %q}`, r.result["id"])); again.code != -32002 {
		t.Fatalf("tasks/cancel of a canceled task: %s", again.text)
	}
	other := e.token("other-agent", "agent")
	r = e.a2a(agent, "message/send", a2aMessage("c-2", "", "Rotate the keys?", ""))
	if foreign := e.a2a(other, "tasks/cancel", fmt.Sprintf(`{"id": %q}`, r.result["id"])); foreign.code != -32001 && foreign.code != -32002 {
		t.Fatalf("another agent cancels: %s", foreign.text)
	}

	fallback := e.a2a(agent, "message/send", a2aMessage("f-1", "", "Proceed with the refund?",
		`{"timeout_seconds": 60, "fallback_policy": "complete_with_fallback", "fallback_value": "no"}`))
	failing := e.a2a(agent, "message/send", a2aMessage("f-2", "", "Approve the invoice?", `{"timeout_seconds": 60, "fallback_policy": "fail"}`))
	clk.Advance(61 * time.Second)
	var fb rpcReply
	eventually(t, "the deadlines", func() bool {
		fb = e.a2a(agent, "tasks/get", fmt.Sprintf(`{"id": %q}`, fallback.result["id"]))
		return state(fb.result) != "working" && state(e.a2a(agent, "tasks/get", fmt.Sprintf(`{"id": %q}`, failing.result["id"])).result) != "working"
	})
	meta := fb.result["metadata"].(map[string]any)["hitl"].(map[string]any)
	arts, _ := fb.result["artifacts"].([]any)
	if state(fb.result) != "completed" || meta["fallback_applied"] != true || len(arts) != 1 ||
		arts[0].(map[string]any)["metadata"].(map[string]any)["fallback_applied"] != true {
		t.Fatalf("fallback: %s", fb.text)
	}
	failed := e.a2a(agent, "tasks/get", fmt.Sprintf(`{"id": %q}`, failing.result["id"]))
	if state(failed.result) != "failed" || statusText(failed.result) == "" {
		t.Fatalf("no answer under fail: %s", failed.text)
	}
}

// TestA2ABadInput: every refusal is a JSON-RPC error with the spec's code and a message that
// says what to send, never a problem page of another shape; a caller without a key gets 401
// as JSON; and nothing refused is asked.
func TestA2ABadInput(t *testing.T) {
	e := newEnv(t)
	agent := e.token("bad-agent", "agent")
	msg := func(parts string) string {
		return `{"message": {"kind": "message", "messageId": "x", "role": "user", "parts": ` + parts + `}}`
	}
	for _, c := range []struct {
		name, body string
		code       float64
		says       string
	}{
		{"not JSON", `{"jsonrpc": "2.0", "id": 1, "method": `, -32700, "not JSON"},
		{"a batch", `[{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "1"}}]`, -32600, "batch"},
		{"no jsonrpc", `{"id": 1, "method": "tasks/get", "params": {"id": "1"}}`, -32600, "jsonrpc"},
		{"no id", `{"jsonrpc": "2.0", "method": "tasks/get", "params": {"id": "1"}}`, -32600, "id"},
		{"no method", `{"jsonrpc": "2.0", "id": 1}`, -32600, "method"},
		{"unknown method", `{"jsonrpc": "2.0", "id": 1, "method": "tasks/list", "params": {}}`, -32601, "message/send"},
		{"no params", `{"jsonrpc": "2.0", "id": 1, "method": "message/send"}`, -32602, "params"},
		{"no message", `{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {}}`, -32602, "message"},
		{"unknown data member", `{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": ` +
			msg(`[{"kind": "text", "text": "Go?"}, {"kind": "data", "data": {"deadline": "5pm"}}]`) + `}`, -32602, `unknown member "deadline"`},
		{"a bad schema", `{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": ` +
			msg(`[{"kind": "text", "text": "Go?"}, {"kind": "data", "data": {"timeout_seconds": "soon"}}]`) + `}`, -32602, "timeout_seconds"},
		{"no text", `{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": ` + msg(`[]`) + `}`, -32602, "no text"},
		{"a file", `{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": ` +
			msg(`[{"kind": "file", "file": {"uri": "https://example.com/a.pdf"}}]`) + `}`, -32005, "files"},
		{"a message to a task", `{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {"kind": "message", "messageId": "y", "role": "user",
			"taskId": "1", "parts": [{"kind": "text", "text": "and?"}]}}}`, -32004, "no further messages"},
		{"an unknown task", `{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "999"}}`, -32001, "999"},
		{"a task id not hitl's", `{"jsonrpc": "2.0", "id": 1, "method": "tasks/cancel", "params": {"id": "abc"}}`, -32001, "whole numbers"},
		{"a push config for no task", `{"jsonrpc": "2.0", "id": 1, "method": "tasks/pushNotificationConfig/set", "params": {"taskId": "1",
			"pushNotificationConfig": {"url": "https://example.com/hook"}}}`, -32001, "not found"},
		{"a push config with authentication", `{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {"kind": "message", "messageId": "z",
			"role": "user", "parts": [{"kind": "text", "text": "Go?"}]}, "configuration": {"pushNotificationConfig": {"url": "https://example.com/hook",
			"authentication": {"schemes": ["Basic"], "credentials": "x"}}}}}`, -32602, "authentication is not served"},
	} {
		r := e.a2aRaw(agent, c.body)
		if r.code != c.code || !strings.Contains(r.msg, c.says) {
			t.Errorf("%s: got %v %q, want %v saying %q", c.name, r.code, r.msg, c.code, c.says)
		}
	}
	if page, err := e.Admin.Inquiries(ctx, client.ListOptions{}); err != nil || len(page.Data) != 0 {
		t.Fatalf("refused messages asked questions: %v %v", page, err)
	}
	r := e.do("POST", "/a2a", "", `{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "1"}}`)
	if r.status != http.StatusUnauthorized || !strings.Contains(r.header.Get("Content-Type"), "json") || r.body["detail"] == nil {
		t.Fatalf("without a key: %d %s %s", r.status, r.header.Get("Content-Type"), r.text)
	}
	// A body over --max-body-bytes is refused before JSON-RPC reads it: 413, problem+json, as docs/a2a.md says.
	huge := `{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": ` + a2aMessage("big", "", strings.Repeat("x", 2<<20), "") + `}`
	if r := e.do("POST", "/a2a", agent, huge, "Content-Type", "application/json"); r.status != http.StatusRequestEntityTooLarge ||
		!strings.HasPrefix(r.header.Get("Content-Type"), "application/problem+json") || r.body["detail"] == nil {
		t.Fatalf("a body too large: %d %s %s", r.status, r.header.Get("Content-Type"), r.text)
	}
}

// TestA2APushNotifications: push configs are kept per task (given with the message, or set
// later; listed, read, deleted), and the task's end is posted to each through the outbox with
// its token in X-A2A-Notification-Token, retried until the receiver takes it; a config for a
// private address is refused unless webhooks may reach one, as for webhooks. On both stores.
func TestA2APushNotifications(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testA2APush(t) })
	t.Run("postgres", func(t *testing.T) { testA2APush(t, testserver.Postgres()) })
}

func testA2APush(t *testing.T, store ...testserver.Option) {
	got := make(chan received, 8)
	failures := 1
	var mu sync.Mutex
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- received{path: r.URL.Path, header: map[string]string{"token": r.Header.Get("X-A2A-Notification-Token"), "type": r.Header.Get("Content-Type")}, body: body}
		mu.Lock()
		defer mu.Unlock()
		if failures > 0 {
			failures--
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer receiver.Close()
	e := newEnv(t, append(store, testserver.Webhooks(fastWebhooks))...)
	agent := e.token("push-agent", "agent")
	alice := e.Client(e.token("alice", "responder"))

	r := e.a2aRaw(agent, `{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {"kind": "message", "messageId": "p-1", "role": "user",
		"parts": [{"kind": "text", "text": "Merge the hotfix?"}]}, "configuration": {"blocking": false,
		"pushNotificationConfig": {"url": "`+receiver.URL+`/one", "token": "tok-1"}}}}`)
	taskID := r.result["id"].(string)
	set := e.a2a(agent, "tasks/pushNotificationConfig/set", `{"taskId": "`+taskID+`", "pushNotificationConfig": {"id": "second", "url": "`+receiver.URL+`/two"}}`)
	if set.result["taskId"] != taskID || set.result["pushNotificationConfig"].(map[string]any)["id"] != "second" {
		t.Fatalf("set: %s", set.text)
	}
	list := e.a2a(agent, "tasks/pushNotificationConfig/list", `{"id": "`+taskID+`"}`)
	configs, _ := list.body["result"].([]any)
	if len(configs) != 2 || configs[0].(map[string]any)["pushNotificationConfig"].(map[string]any)["token"] != "tok-1" {
		t.Fatalf("list: %s", list.text)
	}
	if one := e.a2a(agent, "tasks/pushNotificationConfig/get", `{"id": "`+taskID+`", "pushNotificationConfigId": "second"}`); one.result["pushNotificationConfig"].(map[string]any)["url"] != receiver.URL+"/two" {
		t.Fatalf("get: %s", one.text)
	}
	if del := e.a2a(agent, "tasks/pushNotificationConfig/delete", `{"id": "`+taskID+`", "pushNotificationConfigId": "second"}`); del.code != 0 || del.body["result"] != nil {
		t.Fatalf("delete: %s", del.text)
	}
	if again := e.a2a(agent, "tasks/pushNotificationConfig/get", `{"id": "`+taskID+`", "pushNotificationConfigId": "second"}`); again.code != -32001 {
		t.Fatalf("get a deleted config: %s", again.text)
	}
	other := e.token("other-agent", "agent")
	if foreign := e.a2a(other, "tasks/pushNotificationConfig/set", `{"taskId": "`+taskID+`", "pushNotificationConfig": {"url": "`+receiver.URL+`/x"}}`); foreign.code == 0 {
		t.Fatalf("another agent sets a push config: %s", foreign.text)
	}

	id := taskInquiry(t, r.result)
	_, err := alice.Respond(ctx, id, json.RawMessage(`"merge it"`), "")
	must(t, err)
	var first, second received
	for i, d := range []*received{&first, &second} {
		select {
		case *d = <-got:
		case <-time.After(10 * time.Second):
			t.Fatalf("delivery %d did not come", i+1)
		}
	}
	var task map[string]any
	must(t, json.Unmarshal(second.body, &task))
	if first.path != "/one" || second.path != "/one" || second.header["token"] != "tok-1" || second.header["type"] != "application/json" ||
		task["kind"] != "task" || task["id"] != taskID || state(task) != "completed" || string(first.body) != string(second.body) {
		t.Fatalf("the push (retried after a 503): %+v %s", second, second.body)
	}
	// The end's deliveries were all planned with the first: one push, to the config left.
	page, err := e.Admin.Deliveries(ctx, client.DeliveryOptions{InquiryID: id})
	must(t, err)
	var pushes []string
	for _, d := range page.Data {
		if d.Channel == hitl.ChannelA2APush {
			pushes = append(pushes, d.URL)
		}
	}
	if len(pushes) != 1 || pushes[0] != receiver.URL+"/one" {
		t.Fatalf("the end was pushed to %v; want only the config left, %s/one", pushes, receiver.URL)
	}
	if final := e.a2a(agent, "tasks/pushNotificationConfig/set", `{"taskId": "`+taskID+`", "pushNotificationConfig": {"url": "`+receiver.URL+`/late"}}`); final.code != -32602 {
		t.Fatalf("a config for an ended task: %s", final.text)
	}

	guarded := startServer(t, store...)
	guardedAgent := guarded.token("push-agent", "agent")
	refused := guarded.a2aRaw(guardedAgent, `{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {"kind": "message", "messageId": "p-2", "role": "user",
		"parts": [{"kind": "text", "text": "Merge?"}]}, "configuration": {"pushNotificationConfig": {"url": "`+receiver.URL+`/one"}}}}`)
	if refused.code != -32602 || !strings.Contains(refused.msg, "invalid push notification config") {
		t.Fatalf("a private address: %s", refused.text)
	}
	// The config is checked before the question is asked: nobody was asked, then told it was withdrawn.
	if page, err := guarded.Admin.Inquiries(ctx, client.ListOptions{}); err != nil || len(page.Data) != 0 {
		t.Fatalf("the question of a refused config was asked: %v %v", page, err)
	}
}

// TestA2AVersion1: A2A 1.0's method names are served too, read and answered in 1.0's shapes
// (parts without kind, roles and states as enum names, results that say what they hold), and
// the card lists both versions' interfaces.
func TestA2AVersion1(t *testing.T) {
	e := newEnv(t, testserver.AllowPrivate())
	agent := e.token("v1-agent", "agent")
	bob := e.Client(e.token("bob", "responder"))

	card := e.do("GET", "/.well-known/agent-card.json", "", "")
	ifaces, _ := card.body["supportedInterfaces"].([]any)
	if len(ifaces) != 2 || ifaces[0].(map[string]any)["protocolVersion"] != "1.0" || ifaces[0].(map[string]any)["url"] != e.URL+"/a2a" {
		t.Fatalf("card interfaces: %s", card.text)
	}

	sent := e.a2a(agent, "SendMessage", `{"message": {"messageId": "v1-1", "role": "ROLE_USER", "contextId": "v1-run",
		"parts": [{"text": "Pick a region"}, {"data": {"options": ["eu", "us"]}}]}, "configuration": {"returnImmediately": true}}`)
	task, _ := sent.result["task"].(map[string]any)
	if task == nil || task["contextId"] != "v1-run" || task["kind"] != nil || task["status"].(map[string]any)["state"] != "TASK_STATE_SUBMITTED" {
		t.Fatalf("SendMessage: %s", sent.text)
	}
	id := taskInquiry(t, task)
	_, err := bob.Respond(ctx, id, json.RawMessage(`"eu"`), "")
	must(t, err)
	got := e.a2a(agent, "GetTask", fmt.Sprintf(`{"id": "%d"}`, id))
	parts := got.result["artifacts"].([]any)[0].(map[string]any)["parts"].([]any)
	if got.result["status"].(map[string]any)["state"] != "TASK_STATE_COMPLETED" || parts[0].(map[string]any)["data"] != "eu" || parts[1].(map[string]any)["text"] != "eu" {
		t.Fatalf("GetTask: %s", got.text)
	}

	// Streams answer StreamResponses: {task}, {statusUpdate}, {artifactUpdate}.
	events := e.a2aStream(agent, "SendStreamingMessage", `{"message": {"messageId": "v1-2", "role": "ROLE_USER", "parts": [{"text": "Go on?"}]}}`)
	if ev := <-events; ev["task"] == nil {
		t.Fatalf("first event: %v", ev)
	}
	if ev := <-events; ev["statusUpdate"].(map[string]any)["status"].(map[string]any)["state"] != "TASK_STATE_WORKING" {
		t.Fatalf("second event: %v", ev)
	}
	pending := waitPending(t, bob, "Go on?")
	_, err = bob.Decline(ctx, pending.ID, "not today")
	must(t, err)
	ev := <-events
	status := ev["statusUpdate"].(map[string]any)["status"].(map[string]any)
	if status["state"] != "TASK_STATE_REJECTED" || status["message"].(map[string]any)["role"] != "ROLE_AGENT" ||
		status["message"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"] != "not today" {
		t.Fatalf("final event: %v", ev)
	}

	// Push configs are flat, with their task.
	r := e.a2a(agent, "SendMessage", `{"message": {"messageId": "v1-3", "role": "ROLE_USER", "parts": [{"text": "Later?"}]}, "configuration": {"returnImmediately": true}}`)
	taskID := r.result["task"].(map[string]any)["id"].(string)
	guarded := e.a2a(agent, "CreateTaskPushNotificationConfig", `{"taskId": "`+taskID+`", "id": "p", "url": "http://127.0.0.1:9/a2a", "token": "t"}`)
	if guarded.code != 0 || guarded.result["taskId"] != taskID || guarded.result["id"] != "p" || guarded.result["token"] != "t" {
		t.Fatalf("CreateTaskPushNotificationConfig: %s", guarded.text)
	}
	list := e.a2a(agent, "ListTaskPushNotificationConfigs", `{"taskId": "`+taskID+`"}`)
	if configs, _ := list.result["configs"].([]any); len(configs) != 1 {
		t.Fatalf("ListTaskPushNotificationConfigs: %s", list.text)
	}
	if del := e.a2a(agent, "DeleteTaskPushNotificationConfig", `{"taskId": "`+taskID+`", "id": "p"}`); del.code != 0 {
		t.Fatalf("DeleteTaskPushNotificationConfig: %s", del.text)
	}
	for _, c := range []struct {
		method, params string
		code           float64
	}{
		{"SendMessage", `{"message": {"messageId": "v1-4", "role": "ROLE_USER", "parts": [{"url": "https://example.com/a.pdf"}]}}`, -32005},
		{"SendMessage", `{"message": {"messageId": "v1-5", "role": "ROLE_USER", "parts": [{"text": "x"}, {"data": {"due": 1}}]}}`, -32602},
		{"GetTask", `{"id": "12345"}`, -32001},
		{"CancelTask", fmt.Sprintf(`{"id": "%d"}`, id), -32002},
		{"ListTasks", `{}`, -32601},
	} {
		if r := e.a2a(agent, c.method, c.params); r.code != c.code {
			t.Errorf("%s %s: %s, want %v", c.method, c.params, r.text, c.code)
		}
	}
}

// TestA2AMessagesSpeakA2A: refusals say what to send in A2A's words (params, messageId,
// contextId, task, ROLE_USER), never Go's or hitl's HTTP API's; a configuration member neither
// version defines is refused as an unknown data member is, and 1.0's taskPushNotificationConfig
// given with a message is kept.
func TestA2AMessagesSpeakA2A(t *testing.T) {
	e := newEnv(t, testserver.AllowPrivate())
	agent := e.token("words-agent", "agent")
	other := e.token("other-words-agent", "agent")
	v1Text := func(id, contextID string) string {
		return fmt.Sprintf(`{"message": {"messageId": %q, "role": "ROLE_USER", "contextId": %q, "parts": [{"text": "Go?"}]}, "configuration": {"returnImmediately": true}}`, id, contextID)
	}
	if first := e.a2a(agent, "message/send", a2aMessage("m-1", "shared-run", "Deploy?", "")); first.code != 0 {
		t.Fatalf("first message: %s", first.text)
	}
	ended := e.a2a(agent, "message/send", a2aMessage("m-end", "", "Ended?", ""))
	endedID := ended.result["id"].(string)
	if r := e.a2a(agent, "tasks/cancel", `{"id": "`+endedID+`"}`); r.code != 0 {
		t.Fatalf("cancel: %s", r.text)
	}
	for _, c := range []struct {
		name, method, params string
		code                 float64
		says                 string
	}{
		{"a number id", "tasks/get", `{"id": 1}`, -32602, "params.id must be a string"},
		{"a number id in 1.0", "GetTask", `{"id": 1}`, -32602, "params.id must be a string"},
		{"a text message", "message/send", `{"message": "hi"}`, -32602, "params.message must be an object"},
		{"a text message in 1.0", "SendMessage", `{"message": "hi"}`, -32602, "params.message must be an object"},
		{"parts not an array", "message/send", `{"message": {"kind": "message", "messageId": "p", "role": "user", "parts": "Go?"}}`, -32602, "params.message.parts must be an array"},
		{"blocking as text", "message/send", `{"message": {"kind": "message", "messageId": "b", "role": "user", "parts": []}, "configuration": {"blocking": "yes"}}`, -32602, "params.configuration.blocking must be true or false"},
		{"a push config id as a number", "tasks/pushNotificationConfig/get", `{"id": "1", "pushNotificationConfigId": 2}`, -32602, "params.pushNotificationConfigId must be a string"},
		{"an unknown configuration member", "message/send", `{"message": {"kind": "message", "messageId": "c", "role": "user", "parts": [{"kind": "text", "text": "Go?"}]},
			"configuration": {"blockng": true}}`, -32602, `unknown member "blockng"`},
		{"0.3's push config name in 1.0", "SendMessage", `{"message": {"messageId": "c1", "role": "ROLE_USER", "parts": [{"text": "Go?"}]},
			"configuration": {"pushNotificationConfig": {"url": "http://127.0.0.1:9/a2a"}}}`, -32602, `unknown member "pushNotificationConfig"; A2A 1.0's configuration may say acceptedOutputModes, historyLength, returnImmediately, taskPushNotificationConfig`},
		{"an empty 1.0 part", "SendMessage", `{"message": {"messageId": "e1", "role": "ROLE_USER", "parts": [{}]}}`, -32602, "message.parts[0] has none of text, data, url or raw"},
		{"a 0.3 part without kind", "message/send", `{"message": {"kind": "message", "messageId": "e2", "role": "user", "parts": [{}]}}`, -32602, `message.parts[0]: kind must be text, data or file, not ""`},
		{"a 1.0 message without role", "SendMessage", `{"message": {"messageId": "r1", "parts": [{"text": "Go?"}]}}`, -32602, `message.role must be "ROLE_USER"`},
		{"a reused messageId", "message/send", a2aMessage("m-1", "shared-run", "Something else?", ""), -32602, `messageId "m-1" was used before for another message`},
		{"a bad contextId", "SendMessage", v1Text("bad-ctx", "no spaces here"), -32602, "contextId must be 1 to 200 characters"},
		{"an unknown task", "tasks/get", `{"id": "999"}`, -32001, `task "999" not found`},
		{"an unknown task in 1.0", "CancelTask", `{"id": "999"}`, -32001, `task "999" not found`},
		{"a push config for an ended task", "CreateTaskPushNotificationConfig", `{"taskId": "` + endedID + `", "url": "http://127.0.0.1:9/a2a"}`, -32602, `task "` + endedID + `" is cancelled: its end has been told`},
	} {
		r := e.a2a(agent, c.method, c.params)
		if r.code != c.code || !strings.Contains(r.msg, c.says) {
			t.Errorf("%s: got %v %q, want %v saying %q", c.name, r.code, r.msg, c.code, c.says)
		}
		for _, leak := range []string{"Go struct", "unmarshal", "Idempotency-Key", "/session", "inquiry ", "a2a."} {
			if strings.Contains(r.msg, leak) {
				t.Errorf("%s: %q says %q", c.name, r.msg, leak)
			}
		}
	}
	if r := e.a2a(other, "SendMessage", v1Text("o-1", "shared-run")); r.code != -32602 || !strings.Contains(r.msg, `contextId "shared-run" is taken`) {
		t.Errorf("another key's contextId: %s", r.text)
	}

	withPush := e.a2a(agent, "SendMessage", `{"message": {"messageId": "push-1", "role": "ROLE_USER", "parts": [{"text": "Ship?"}]},
		"configuration": {"returnImmediately": true, "taskPushNotificationConfig": {"id": "p", "url": "http://127.0.0.1:9/a2a", "token": "t"}}}`)
	task, _ := withPush.result["task"].(map[string]any)
	if task == nil {
		t.Fatalf("SendMessage with taskPushNotificationConfig: %s", withPush.text)
	}
	list := e.a2a(agent, "ListTaskPushNotificationConfigs", `{"taskId": "`+task["id"].(string)+`"}`)
	if configs, _ := list.result["configs"].([]any); len(configs) != 1 || configs[0].(map[string]any)["token"] != "t" {
		t.Fatalf("the push config given with the message: %s", list.text)
	}
}
