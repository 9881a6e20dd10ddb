package server_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// TestTemplatesOverHTTP: an admin puts a template (201, then 200 when replaced), an agent
// lists it and asks with it, and the inquiry is made from it; changes are admins' events.
func TestTemplatesOverHTTP(t *testing.T) {
	e := newEnv(t)
	agentToken := e.token("bot", "agent")
	agent := client.New(e.URL, agentToken, nil)

	body := `{"prompt":"Deploy {{.service}} {{.version}} to production?","request_type":"approval","assigned_to":["group:sre"],
		"timeout_seconds":3600,"metadata":{"kind":"deploy"},"vars_schema":{"type":"object","properties":{"version":{"type":"string","pattern":"^v"}},"required":["service","version"]}}`
	r := e.do("PUT", "/v1/templates/deploy-approval", adminToken, body)
	if r.status != http.StatusCreated || r.body["name"] != "deploy-approval" || r.body["updated_by"] != "admin" || r.body["created_at"] != r.body["updated_at"] {
		t.Fatalf("first put: %d %s", r.status, r.text)
	}
	if r := e.do("PUT", "/v1/templates/deploy-approval", adminToken, body); r.status != http.StatusOK {
		t.Fatalf("second put: %d %s", r.status, r.text)
	}
	list, err := agent.Templates(ctx)
	must(t, err)
	if len(list) != 1 || list[0].Prompt != "Deploy {{.service}} {{.version}} to production?" || string(list[0].VarsSchema) == "" {
		t.Fatalf("agent lists %+v", list)
	}

	r = e.do("POST", "/v1/inquiries", agentToken, `{"template":"deploy-approval","vars":{"service":"api","version":"v2.5.0"},"session":"d-1"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("ask with the template: %d %s", r.status, r.text)
	}
	var inq hitl.Inquiry
	must(t, json.Unmarshal([]byte(r.text), &inq))
	if inq.Prompt != "Deploy api v2.5.0 to production?" || inq.Template != "deploy-approval" || inq.RequestType != hitl.RequestApproval ||
		!slices.Equal(inq.AssignedTo, []string{"group:sre"}) || inq.TimeoutAt == nil || inq.Metadata["kind"] != "deploy" || inq.Session != "d-1" {
		t.Fatalf("inquiry from the template: %s", r.text)
	}
	// Through the Go client's Ask request, with an explicit field over the template's.
	made, _, err := agent.CreateInquiry(ctx, &hitl.InquiryRequest{Template: "deploy-approval", AssignedTo: hitl.Assignees{"ada"},
		Vars: json.RawMessage(`{"service":"web","version":"v1"}`)}, client.CreateOptions{})
	must(t, err)
	if made.Prompt != "Deploy web v1 to production?" || !slices.Equal(made.AssignedTo, []string{"ada"}) {
		t.Fatalf("client create: %+v", made)
	}

	must(t, e.Admin.DeleteTemplate(ctx, "deploy-approval"))
	if r := e.do("DELETE", "/v1/templates/deploy-approval", adminToken, ""); r.status != http.StatusNotFound || r.code() != "not_found" {
		t.Fatalf("delete twice: %d %s", r.status, r.text)
	}
	if got, err := e.Admin.Inquiry(ctx, inq.ID); err != nil || got.Template != "deploy-approval" {
		t.Fatalf("the inquiry keeps its template's name: %+v %v", got, err)
	}
	page, err := e.Admin.EventPage(ctx, client.EventOptions{Types: []string{hitl.EventTemplateUpdated, hitl.EventTemplateDeleted}})
	must(t, err)
	if len(page.Data) != 3 || page.Data[0].Actor != "admin" {
		t.Fatalf("admin sees %d template events, want 3", len(page.Data))
	}
	page, err = agent.EventPage(ctx, client.EventOptions{Types: []string{hitl.EventTemplateUpdated}})
	must(t, err)
	if len(page.Data) != 0 {
		t.Fatalf("an agent sees %d template events", len(page.Data))
	}
}

// TestTemplatesBadInput: what a careless or hostile client sends to the template routes, and
// to asking with a template: status, stable code, the paths of the problems, and nothing stored.
func TestTemplatesBadInput(t *testing.T) {
	e := newEnv(t)
	agent := e.token("bot", "agent")
	responder := e.token("kim", "responder")
	if r := e.do("PUT", "/v1/templates/deploy", adminToken, `{"prompt":"Deploy {{.version}}?{{if .note}} ({{.note}}){{end}}","vars_schema":{"type":"object","properties":{"version":{"type":"string","pattern":"^v"}}}}`); r.status != http.StatusCreated {
		t.Fatalf("put: %d %s", r.status, r.text)
	}
	big := `{"prompt":"` + strings.Repeat("x", 2<<20) + `"}`
	cases := []struct {
		name         string
		method, path string
		token, body  string
		status       int
		code         string
		errorPaths   []string
		says         string
	}{
		{"put by an agent", "PUT", "/v1/templates/t", agent, `{"prompt":"x"}`, 403, "forbidden", nil, "admin role"},
		{"put by a responder", "PUT", "/v1/templates/t", responder, `{"prompt":"x"}`, 403, "forbidden", nil, ""},
		{"put without a token", "PUT", "/v1/templates/t", "", `{"prompt":"x"}`, 401, "unauthorized", nil, ""},
		{"malformed JSON", "PUT", "/v1/templates/t", adminToken, `{"prompt": "x",`, 400, "invalid", nil, ""},
		{"empty body", "PUT", "/v1/templates/t", adminToken, ``, 400, "invalid", nil, ""},
		{"body over the limit", "PUT", "/v1/templates/t", adminToken, big, 413, "too_large", nil, ""},
		{"unknown field", "PUT", "/v1/templates/t", adminToken, `{"prompt":"x","promt":"typo"}`, 400, "invalid", []string{"/promt"}, ""},
		{"name twice", "PUT", "/v1/templates/t", adminToken, `{"prompt":"x","prompt":"y"}`, 400, "invalid", nil, ""},
		{"bad name", "PUT", "/v1/templates/a%20b", adminToken, `{"prompt":"x"}`, 400, "invalid", nil, "a template's name"},
		{"function call", "PUT", "/v1/templates/t", adminToken, `{"prompt":"Deploy {{printf \"%s\" .version}}?"}`, 400, "invalid", []string{"/prompt"}, "calls no functions"},
		{"pipeline", "PUT", "/v1/templates/t", adminToken, `{"prompt":"Deploy {{.version | urlquery}}?"}`, 400, "invalid", []string{"/prompt"}, "is not allowed"},
		{"unclosed action", "PUT", "/v1/templates/t", adminToken, `{"prompt":"Deploy {{.version"}`, 400, "invalid", []string{"/prompt"}, "unclosed action"},
		{"bad vars_schema", "PUT", "/v1/templates/t", adminToken, `{"prompt":"x","vars_schema":{"type":"nope"}}`, 400, "invalid", []string{"/vars_schema"}, ""},
		{"invalid create fields", "PUT", "/v1/templates/t", adminToken, `{"prompt":"x","request_type":"poll","options":["a"],"fallback_policy":"complete_with_fallback"}`, 400, "invalid", []string{"/request_type", "/options", "/fallback_value"}, ""},
		{"one run's fields", "PUT", "/v1/templates/t", adminToken, `{"prompt":"x","session":"s","vars":{}}`, 400, "invalid", []string{"/session", "/vars"}, ""},
		{"get unknown", "GET", "/v1/templates/nope", agent, ``, 404, "not_found", nil, ""},
		{"get by a responder", "GET", "/v1/templates/deploy", responder, ``, 403, "forbidden", nil, "agent role"},
		{"list with a query", "GET", "/v1/templates?name=deploy", agent, ``, 400, "invalid", nil, `unknown query parameter "name"`},
		{"delete by an agent", "DELETE", "/v1/templates/deploy", agent, ``, 403, "forbidden", nil, ""},
		{"delete unknown", "DELETE", "/v1/templates/nope", adminToken, ``, 404, "not_found", nil, ""},

		{"unknown template", "POST", "/v1/inquiries", agent, `{"template":"nope"}`, 400, "invalid", []string{"/template"}, `unknown template "nope"`},
		{"unknown var", "POST", "/v1/inquiries", agent, `{"template":"deploy","vars":{"versoin":"v1"}}`, 400, "invalid", []string{"/vars/version"},
			"template deploy uses {{.version}}, which vars does not give"},
		{"no vars", "POST", "/v1/inquiries", agent, `{"template":"deploy"}`, 400, "invalid", []string{"/vars/version"}, "which vars does not give"},
		{"vars against vars_schema", "POST", "/v1/inquiries", agent, `{"template":"deploy","vars":{"version":"2.5"}}`, 400, "invalid", []string{"/vars/version"}, "vars_schema"},
		{"vars not an object", "POST", "/v1/inquiries", agent, `{"template":"deploy","vars":"v1"}`, 400, "invalid", []string{"/vars"}, ""},
		{"vars without a template", "POST", "/v1/inquiries", agent, `{"prompt":"x","vars":{"version":"v1"}}`, 400, "invalid", []string{"/vars"}, ""},
		{"neither prompt nor template", "POST", "/v1/inquiries", agent, `{"request_type":"approval"}`, 400, "invalid", []string{"/prompt"}, ""},
		{"template asked by a responder", "POST", "/v1/inquiries", responder, `{"template":"deploy","vars":{"version":"v1"}}`, 403, "forbidden", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.method, tc.path, tc.token, tc.body, "Content-Type", "application/json")
			if detail, _ := r.body["detail"].(string); r.status != tc.status || r.code() != tc.code || !strings.Contains(detail, tc.says) {
				t.Fatalf("got %d %s, want %d %s saying %q: %.400s", r.status, r.code(), tc.status, tc.code, tc.says, r.text)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
				t.Fatalf("Content-Type %q", ct)
			}
			if p := r.unlisted(tc.errorPaths); p != "" {
				t.Fatalf("errors do not list %s: %s", p, r.text)
			}
		})
	}
	// Nothing of the refused requests was stored: one template, no inquiry.
	list, err := e.Admin.Templates(ctx)
	must(t, err)
	if len(list) != 1 || list[0].Name != "deploy" {
		t.Fatalf("templates after the refusals: %+v", list)
	}
	page, err := e.Admin.Inquiries(ctx, client.ListOptions{})
	must(t, err)
	if len(page.Data) != 0 {
		t.Fatalf("%d inquiries stored, want none", len(page.Data))
	}
	// The same template asked well: {{if}} writes its part only when the var is there.
	r := e.do("POST", "/v1/inquiries", agent, `{"template":"deploy","vars":{"version":"v1","note":"hotfix"}}`)
	if r.status != http.StatusCreated || r.body["prompt"] != "Deploy v1? (hotfix)" {
		t.Fatalf("asked well: %d %s", r.status, r.text)
	}
}
