package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// TestBadInput sends what a careless or hostile client sends and checks the status, the stable
// code, and that nothing was stored.
func TestBadInput(t *testing.T) {
	e := newEnv(t)
	agent := e.token("bot", "agent")
	responder := e.token("kim", "responder")
	other := e.token("lee", "responder")
	revoked, err := e.Admin.CreateKey(ctx, &hitl.KeyRequest{Name: "old", Roles: []string{"agent"}})
	must(t, err)
	must(t, e.Admin.RevokeKey(ctx, revoked.ID))

	agentC := client.New(e.URL, agent, nil)
	assigned := ask(t, agentC, hitl.InquiryRequest{Prompt: "Only for kim", AssignedTo: []string{"kim"}, ResponseSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1},"s":{"type":"string"}},"required":["n","s"]}`)})
	final := ask(t, agentC, hitl.InquiryRequest{Prompt: "Done already"})
	_, err = agentC.Cancel(ctx, final.ID, "changed my mind")
	must(t, err)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)

	big := `{"prompt":"` + strings.Repeat("x", 2<<20) + `"}`
	cases := []struct {
		name         string
		method, path string
		token, body  string
		status       int
		code         string
		errorPaths   []string // every one must be listed
	}{
		{"malformed JSON", "POST", "/v1/inquiries", agent, `{"prompt": "x",`, 400, "invalid", nil},
		{"not an object", "POST", "/v1/inquiries", agent, `["prompt"]`, 400, "invalid", nil},
		{"empty body", "POST", "/v1/inquiries", agent, ``, 400, "invalid", nil},
		{"two JSON values", "POST", "/v1/inquiries", agent, `{"prompt":"a"} {"prompt":"b"}`, 400, "invalid", nil},
		{"unknown field", "POST", "/v1/inquiries", agent, `{"prompt":"x","promt":"typo"}`, 400, "invalid", []string{"/promt"}},
		{"wrong type", "POST", "/v1/inquiries", agent, `{"prompt":42}`, 400, "invalid", []string{"/prompt"}},
		{"prompt missing", "POST", "/v1/inquiries", agent, `{"request_type":"input"}`, 400, "invalid", []string{"/prompt"}},
		{"prompt empty", "POST", "/v1/inquiries", agent, `{"prompt":"  "}`, 400, "invalid", []string{"/prompt"}},
		{"prompt too long", "POST", "/v1/inquiries", agent, `{"prompt":"` + strings.Repeat("é", 8001) + `"}`, 400, "invalid", []string{"/prompt"}},
		{"unknown request type", "POST", "/v1/inquiries", agent, `{"prompt":"x","request_type":"poll"}`, 400, "invalid", []string{"/request_type"}},
		{"invalid schema", "POST", "/v1/inquiries", agent, `{"prompt":"x","response_schema":{"type":"nope"}}`, 400, "invalid", []string{"/response_schema"}},
		{"schema $ref to a file", "POST", "/v1/inquiries", agent, `{"prompt":"x","response_schema":{"$ref":"file:///etc/passwd"}}`, 400, "invalid", []string{"/response_schema"}},
		{"schema $ref to a URL", "POST", "/v1/inquiries", agent, `{"prompt":"x","response_schema":{"$ref":"http://127.0.0.1:1/schema.json"}}`, 400, "invalid", []string{"/response_schema"}},
		{"duplicate options", "POST", "/v1/inquiries", agent, `{"prompt":"x","options":["a","b","a"]}`, 400, "invalid", []string{"/options/2"}},
		{"one option", "POST", "/v1/inquiries", agent, `{"prompt":"x","options":["a"]}`, 400, "invalid", []string{"/options"}},
		{"bad option shape", "POST", "/v1/inquiries", agent, `{"prompt":"x","options":[1,2]}`, 400, "invalid", nil},
		{"selection without options", "POST", "/v1/inquiries", agent, `{"prompt":"x","request_type":"selection"}`, 400, "invalid", []string{"/options"}},
		{"schema and options", "POST", "/v1/inquiries", agent, `{"prompt":"x","options":["a","b"],"response_schema":{"type":"string"}}`, 400, "invalid", []string{"/response_schema"}},
		{"timeout zero", "POST", "/v1/inquiries", agent, `{"prompt":"x","timeout_seconds":0}`, 400, "invalid", []string{"/timeout_seconds"}},
		{"timeout negative", "POST", "/v1/inquiries", agent, `{"prompt":"x","timeout_seconds":-5}`, 400, "invalid", []string{"/timeout_seconds"}},
		{"timeout too long", "POST", "/v1/inquiries", agent, `{"prompt":"x","timeout_seconds":31536001}`, 400, "invalid", []string{"/timeout_seconds"}},
		{"both timeout forms", "POST", "/v1/inquiries", agent, `{"prompt":"x","timeout_seconds":60,"timeout_at":"` + future + `"}`, 400, "invalid", []string{"/timeout_seconds"}},
		{"timeout_at in the past", "POST", "/v1/inquiries", agent, `{"prompt":"x","timeout_at":"` + past + `"}`, 400, "invalid", []string{"/timeout_at"}},
		{"timeout_at not a time", "POST", "/v1/inquiries", agent, `{"prompt":"x","timeout_at":"tomorrow"}`, 400, "invalid", nil},
		{"fallback fails the schema", "POST", "/v1/inquiries", agent, `{"prompt":"x","request_type":"approval","timeout_seconds":60,"fallback_policy":"complete_with_fallback","fallback_value":{"approved":"no"}}`, 400, "invalid", []string{"/fallback_value/approved"}},
		{"fallback not an option", "POST", "/v1/inquiries", agent, `{"prompt":"x","options":["a","b"],"fallback_policy":"use_default_and_continue","fallback_value":"c"}`, 400, "invalid", []string{"/fallback_value"}},
		{"fallback policy without value", "POST", "/v1/inquiries", agent, `{"prompt":"x","fallback_policy":"complete_with_fallback"}`, 400, "invalid", []string{"/fallback_value"}},
		{"unknown fallback policy", "POST", "/v1/inquiries", agent, `{"prompt":"x","fallback_policy":"guess"}`, 400, "invalid", []string{"/fallback_policy"}},
		{"confidence out of range", "POST", "/v1/inquiries", agent, `{"prompt":"x","confidence":1.2}`, 400, "invalid", []string{"/confidence"}},
		{"bad session key", "POST", "/v1/inquiries", agent, `{"prompt":"x","session":"has spaces"}`, 400, "invalid", []string{"/session"}},
		{"bad assignee", "POST", "/v1/inquiries", agent, `{"prompt":"x","assigned_to":["not a name"]}`, 400, "invalid", []string{"/assigned_to/0"}},
		{"remind_every not a duration", "POST", "/v1/inquiries", agent, `{"prompt":"x","remind_every":"often"}`, 400, "invalid", []string{"/remind_every"}},
		{"remind_every a number", "POST", "/v1/inquiries", agent, `{"prompt":"x","remind_every":1800}`, 400, "invalid", []string{"/remind_every"}},
		{"remind_every under a minute", "POST", "/v1/inquiries", agent, `{"prompt":"x","remind_every":"30s"}`, 400, "invalid", []string{"/remind_every"}},
		{"remind_every over 30 days", "POST", "/v1/inquiries", agent, `{"prompt":"x","remind_every":"31d"}`, 400, "invalid", []string{"/remind_every"}},
		{"escalate_after zero", "POST", "/v1/inquiries", agent, `{"prompt":"x","escalate_after":"0s","escalate_to":["bob"]}`, 400, "invalid", []string{"/escalate_after"}},
		{"escalate_after negative", "POST", "/v1/inquiries", agent, `{"prompt":"x","escalate_after":"-1h","escalate_to":["bob"]}`, 400, "invalid", []string{"/escalate_after"}},
		{"escalate_after past the deadline", "POST", "/v1/inquiries", agent, `{"prompt":"x","timeout_seconds":3600,"escalate_after":"1h","escalate_to":["bob"]}`, 400, "invalid", []string{"/escalate_after"}},
		{"escalate_after without escalate_to", "POST", "/v1/inquiries", agent, `{"prompt":"x","escalate_after":"2h"}`, 400, "invalid", []string{"/escalate_to"}},
		{"escalate_to without escalate_after", "POST", "/v1/inquiries", agent, `{"prompt":"x","escalate_to":["bob"]}`, 400, "invalid", []string{"/escalate_to"}},
		{"bad escalate_to entry", "POST", "/v1/inquiries", agent, `{"prompt":"x","escalate_after":"2h","escalate_to":["bob","group:has space"]}`, 400, "invalid", []string{"/escalate_to/1"}},
		{"escalate_to twice", "POST", "/v1/inquiries", agent, `{"prompt":"x","escalate_after":"2h","escalate_to":["bob","bob"]}`, 400, "invalid", []string{"/escalate_to"}},
		{"escalate_to too many", "POST", "/v1/inquiries", agent, `{"prompt":"x","escalate_after":"2h","escalate_to":[` + quotedNames(21) + `]}`, 400, "invalid", []string{"/escalate_to"}},
		{"callback not built yet", "POST", "/v1/inquiries", agent, `{"prompt":"x","callback_url":"http://127.0.0.1:9/cb"}`, 400, "invalid", []string{"/callback_url"}},
		{"context too large", "POST", "/v1/inquiries", agent, `{"prompt":"x","context":"` + strings.Repeat("c", 300<<10) + `"}`, 400, "invalid", []string{"/context"}},
		{"every problem at once", "POST", "/v1/inquiries", agent, `{"prompt":"","request_type":"poll","timeout_seconds":0}`, 400, "invalid", []string{"/prompt", "/request_type", "/timeout_seconds"}},
		{"body over the limit", "POST", "/v1/inquiries", agent, big, 413, "too_large", nil},
		{"wait too long", "POST", "/v1/inquiries?wait=10m", agent, `{"prompt":"x"}`, 400, "invalid", nil},
		{"responder creating", "POST", "/v1/inquiries", responder, `{"prompt":"x"}`, 403, "forbidden", nil},
		{"no token", "POST", "/v1/inquiries", "", `{"prompt":"x"}`, 401, "unauthorized", nil},
		{"revoked token", "POST", "/v1/inquiries", revoked.Token, `{"prompt":"x"}`, 401, "unauthorized", nil},

		{"answer failing the schema", "POST", fmt.Sprintf("/v1/inquiries/%d/respond", assigned.ID), responder, `{"response":{"n":0,"s":5}}`, 422, "invalid_response", []string{"/n", "/s"}},
		{"answer missing", "POST", fmt.Sprintf("/v1/inquiries/%d/respond", assigned.ID), responder, `{"comment":"hm"}`, 400, "invalid", []string{"/response"}},
		{"answer by a non-assignee", "POST", fmt.Sprintf("/v1/inquiries/%d/respond", assigned.ID), other, `{"response":{"n":1,"s":"x"}}`, 404, "not_found", nil},
		{"answer by the agent", "POST", fmt.Sprintf("/v1/inquiries/%d/respond", assigned.ID), agent, `{"response":{"n":1,"s":"x"}}`, 403, "forbidden", nil},
		{"answer on a final inquiry", "POST", fmt.Sprintf("/v1/inquiries/%d/respond", final.ID), responder, `{"response":"x"}`, 409, "conflict", nil},
		{"cancel a final inquiry", "POST", fmt.Sprintf("/v1/inquiries/%d/cancel", final.ID), agent, `{}`, 409, "conflict", nil},
		{"cancel by a responder", "POST", fmt.Sprintf("/v1/inquiries/%d/cancel", assigned.ID), responder, `{}`, 403, "forbidden", nil},
		{"unknown id", "GET", "/v1/inquiries/999999", agent, ``, 404, "not_found", nil},
		{"id not a number", "GET", "/v1/inquiries/abc", agent, ``, 404, "not_found", nil},
		{"answer unknown id", "POST", "/v1/inquiries/999999/respond", responder, `{"response":"x"}`, 404, "not_found", nil},
		{"wait unknown id", "GET", "/v1/inquiries/999999/wait?timeout=1s", agent, ``, 404, "not_found", nil},
		{"wait timeout too long", "GET", fmt.Sprintf("/v1/inquiries/%d/wait?timeout=301s", assigned.ID), agent, ``, 400, "invalid", nil},
		{"wait timeout garbage", "GET", fmt.Sprintf("/v1/inquiries/%d/wait?timeout=soon", assigned.ID), agent, ``, 400, "invalid", nil},
		{"list bad limit", "GET", "/v1/inquiries?limit=501", agent, ``, 400, "invalid", nil},
		{"list bad status", "GET", "/v1/inquiries?status=done", agent, ``, 400, "invalid", nil},
		{"list bad cursor", "GET", "/v1/inquiries?cursor=zzz", agent, ``, 400, "invalid", nil},
		{"list bad time", "GET", "/v1/inquiries?created_after=yesterday", agent, ``, 400, "invalid", nil},
		{"events bad after", "GET", "/v1/events?after=-1", agent, ``, 400, "invalid", nil},
		{"session bad key", "PUT", "/v1/sessions/bad%20key", agent, `{}`, 400, "invalid", []string{"/key"}},
		{"session unknown field", "PUT", "/v1/sessions/s1", agent, `{"agnet":"x"}`, 400, "invalid", nil},
		{"session state too large", "PUT", "/v1/sessions/s1", agent, `{"state":"` + strings.Repeat("s", 1<<20) + `"}`, 413, "too_large", nil},
		{"session by a responder", "PUT", "/v1/sessions/s1", responder, `{}`, 403, "forbidden", nil},
		{"unknown session", "GET", "/v1/sessions/nope", agent, ``, 404, "not_found", nil},
		{"complete unknown session", "POST", "/v1/sessions/nope/complete", agent, `{}`, 404, "not_found", nil},
		{"key without roles", "POST", "/v1/keys", adminToken, `{"name":"x"}`, 400, "invalid", []string{"/roles"}},
		{"key with a bad role", "POST", "/v1/keys", adminToken, `{"name":"x","roles":["root"]}`, 400, "invalid", []string{"/roles/0"}},
		{"key by a non-admin", "POST", "/v1/keys", agent, `{"name":"x","roles":["agent"]}`, 403, "forbidden", nil},
		{"decide missing signal", "POST", "/v1/engagement/decide", agent, `{"confidence":0.5,"risk":0.5}`, 400, "invalid", []string{"/reversibility"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.method, tc.path, tc.token, tc.body, "Content-Type", "application/json")
			if r.status != tc.status || r.code() != tc.code {
				t.Fatalf("got %d %s, want %d %s: %.300s", r.status, r.code(), tc.status, tc.code, r.text)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
				t.Fatalf("Content-Type %q", ct)
			}
			if r.body["detail"] == "" || r.body["title"] == "" || r.body["status"] != float64(tc.status) {
				t.Fatalf("problem body incomplete: %s", r.text)
			}
			if p := r.unlisted(tc.errorPaths); p != "" {
				t.Fatalf("errors do not list %s: %s", p, r.text)
			}
		})
	}

	if r := e.do("POST", "/v1/inquiries", agent, `{"prompt":"x"}`, "Idempotency-Key", strings.Repeat("k", 201)); r.status != 400 || r.code() != "invalid" {
		t.Fatalf("idempotency key too long: %d %s", r.status, r.text)
	}

	// Nothing of the refused requests was stored: the two inquiries made above are all there is.
	page, err := e.Admin.Inquiries(ctx, client.ListOptions{})
	must(t, err)
	if len(page.Data) != 2 {
		t.Fatalf("%d inquiries stored, want 2", len(page.Data))
	}
	evs, err := e.Admin.EventPage(ctx, client.EventOptions{Types: []string{hitl.EventInquiryCreated}})
	must(t, err)
	if len(evs.Data) != 2 {
		t.Fatalf("%d inquiry.created events, want 2", len(evs.Data))
	}
	if _, err := e.Admin.Session(ctx, "s1"); client.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("a refused session PUT left a session: %v", err)
	}
	// A conflict answers with the current state.
	r := e.do("POST", fmt.Sprintf("/v1/inquiries/%d/respond", final.ID), responder, `{"response":"x"}`)
	if inq, ok := r.body["inquiry"].(map[string]any); !ok || inq["status"] != "cancelled" {
		t.Fatalf("conflict body lacks the inquiry: %s", r.text)
	}
	if r.status != http.StatusConflict {
		t.Fatal(r.status)
	}
}

// quotedNames is n distinct principal names, quoted and separated by commas.
func quotedNames(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf(`"p%d"`, i)
	}
	return strings.Join(names, ",")
}
