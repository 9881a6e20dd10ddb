package engine_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
)

func putTemplate(t *testing.T, e *engine.Engine, name string, req hitl.TemplateRequest) *hitl.Template {
	t.Helper()
	tpl, _, err := e.PutTemplate(ctx, admin, name, &req)
	if err != nil {
		t.Fatalf("put template %s: %v", name, err)
	}
	return tpl
}

// fieldPaths are the paths of an error's problems.
func fieldPaths(err error) []string {
	var (
		he    *hitl.Error
		paths []string
	)
	if asError(err, &he) {
		for _, f := range he.Fields {
			paths = append(paths, f.Path)
		}
	}
	return paths
}

// TestAskWithTemplate: the template's fields make the inquiry, the request's replace them
// (those that go together, together), the prompt is rendered with the vars, and the inquiry
// records its template.
func TestAskWithTemplate(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	tpl := putTemplate(t, e, "deploy-approval", hitl.TemplateRequest{
		InquiryRequest: hitl.InquiryRequest{
			Prompt:      "Deploy {{.service}} {{.version}} to {{.env.name}}?{{if .urgent}} URGENT{{else}} (routine){{end}}{{/* a comment */}}",
			RequestType: hitl.RequestApproval, AssignedTo: hitl.Assignees{"group:sre"}, TimeoutSeconds: seconds(3600),
			FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`{"approved":false}`),
			Metadata: map[string]string{"kind": "deploy"}, Origin: "deploy-bot",
		},
		VarsSchema: json.RawMessage(`{"type":"object","properties":{"version":{"type":"string","pattern":"^v"}},"required":["version","service"]}`),
	})
	if !tpl.CreatedAt.Equal(c.Now()) || tpl.UpdatedBy != "root" {
		t.Fatalf("put %+v", tpl)
	}

	inq, created, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Template: "deploy-approval",
		Vars: json.RawMessage(`{"service":"api","version":"v2.5.0","env":{"name":"production"},"urgent":false}`)}, "")
	if err != nil || !created {
		t.Fatalf("create from template: %v", err)
	}
	if inq.Prompt != "Deploy api v2.5.0 to production? (routine)" || inq.RequestType != hitl.RequestApproval ||
		!slices.Equal(inq.AssignedTo, []string{"group:sre"}) || inq.TimeoutAt == nil || !inq.TimeoutAt.Equal(c.Now().Add(time.Hour)) ||
		inq.FallbackPolicy != hitl.FallbackCompleteWithFallback || inq.Metadata["kind"] != "deploy" || inq.Origin != "deploy-bot" ||
		inq.Template != "deploy-approval" {
		t.Fatalf("inquiry from the template: %+v", inq)
	}

	// Explicit fields win: the deadline replaces both timeout fields, the schema the
	// template's fallback too; a non-string var is written as JSON; {{if}} sees true.
	at := c.Now().Add(10 * time.Minute)
	inq, _, err = e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Template: "deploy-approval", TimeoutAt: &at,
		ResponseSchema: json.RawMessage(`{"type":"string"}`), FallbackPolicy: hitl.FallbackFail, Metadata: map[string]string{"team": "a"},
		Vars: json.RawMessage(`{"service":"api","version":"v3","env":{"name":["eu","us"]},"urgent":1}`)}, "")
	if err != nil {
		t.Fatal(err)
	}
	if inq.Prompt != `Deploy api v3 to ["eu","us"]? URGENT` || !inq.TimeoutAt.Equal(at) || string(inq.ResponseSchema) != `{"type":"string"}` ||
		inq.FallbackValue != nil || inq.Metadata["kind"] != "" || inq.Metadata["team"] != "a" || !slices.Equal(inq.AssignedTo, []string{"group:sre"}) {
		t.Fatalf("explicit fields over the template: %+v", inq)
	}
	// An explicit prompt is taken as it is; the vars are still checked.
	inq, _, err = e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Template: "deploy-approval", Prompt: "My own {{.words}}",
		Vars: json.RawMessage(`{"service":"api","version":"v1"}`)}, "")
	if err != nil || inq.Prompt != "My own {{.words}}" {
		t.Fatalf("explicit prompt: %+v, %v", inq, err)
	}

	// How votes are counted is one thing: steps in the request replace the template's quorum.
	putTemplate(t, e, "two-approvers", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "Grant {{.role}}?",
		RequestType: hitl.RequestApproval, Quorum: &hitl.Quorum{Required: 2}}})
	inq, _, err = e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Template: "two-approvers", Vars: json.RawMessage(`{"role":"admin"}`),
		Steps: []hitl.ApprovalStep{{AssignedTo: hitl.Assignees{"ada"}, Required: 1}, {AssignedTo: hitl.Assignees{"bob"}, Required: 1}}}, "")
	if err != nil || inq.Quorum != nil || len(inq.Steps) != 2 || inq.Prompt != "Grant admin?" {
		t.Fatalf("steps over the template's quorum: %+v %v", inq, err)
	}
	if inq, _, err = e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Template: "two-approvers", Vars: json.RawMessage(`{"role":"dba"}`)}, ""); err != nil ||
		inq.Quorum == nil || inq.Quorum.Required != 2 {
		t.Fatalf("the template's quorum: %+v %v", inq, err)
	}

	// Vars that do not fit vars_schema: every problem, under /vars.
	_, _, err = e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Template: "deploy-approval", Vars: json.RawMessage(`{"version":"2.5"}`)}, "")
	if hitl.ErrorCode(err) != hitl.EInvalid || !slices.Contains(fieldPaths(err), "/vars/version") || !slices.Contains(fieldPaths(err), "/vars/service") ||
		!strings.Contains(hitl.ErrorMessage(err), "vars_schema") {
		t.Errorf("vars against the schema: %v %v", err, fieldPaths(err))
	}
	// A var the prompt writes that vars do not give: named.
	_, _, err = e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Template: "deploy-approval", Vars: json.RawMessage(`{"service":"api","version":"v1"}`)}, "")
	if hitl.ErrorCode(err) != hitl.EInvalid || hitl.ErrorMessage(err) != "template deploy-approval uses {{.env.name}}, which vars does not give" ||
		!slices.Equal(fieldPaths(err), []string{"/vars/env/name"}) {
		t.Errorf("unknown var: %v %v", err, fieldPaths(err))
	}
	for _, bad := range []struct {
		req  hitl.InquiryRequest
		path string
		msg  string
	}{
		{hitl.InquiryRequest{Template: "nope"}, "/template", `unknown template "nope"`},
		{hitl.InquiryRequest{Template: "no pe"}, "/template", `unknown template "no pe"`},
		{hitl.InquiryRequest{Prompt: "x", Vars: json.RawMessage(`{"a":1}`)}, "/vars", "only apply with a template"},
		{hitl.InquiryRequest{Template: "deploy-approval", Vars: json.RawMessage(`["v1"]`)}, "/vars", "must be a JSON object"},
		{hitl.InquiryRequest{Template: "deploy-approval", Vars: json.RawMessage(`{"a":1,"a":2}`)}, "/vars/a", "duplicate key"},
		// The merged request is checked as any: the template's fallback value against the new options.
		{hitl.InquiryRequest{Template: "deploy-approval", Prompt: "x", Options: []hitl.Option{{Value: "a"}, {Value: "b"}},
			Vars: json.RawMessage(`{"service":"api","version":"v1"}`)}, "/fallback_value", `must be one of "a" or "b"`},
	} {
		_, _, err := e.CreateInquiry(ctx, agent, &bad.req, "")
		if hitl.ErrorCode(err) != hitl.EInvalid || !slices.Contains(fieldPaths(err), bad.path) || !strings.Contains(hitl.ErrorMessage(err), bad.msg) {
			t.Errorf("%+v: %v %v, want %s at %s", bad.req, err, fieldPaths(err), bad.msg, bad.path)
		}
	}
}

// TestTemplateIdempotency: the key's hash is the request as sent, so a retry gets its
// inquiry back even when the template changed or went since; other vars are another request.
func TestTemplateIdempotency(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	putTemplate(t, e, "t", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "Go {{.x}}?"}})
	req := hitl.InquiryRequest{Template: "t", Vars: json.RawMessage(`{"x":"left"}`)}
	first, created, err := e.CreateInquiry(ctx, agent, &req, "k1")
	if err != nil || !created || first.Prompt != "Go left?" {
		t.Fatalf("first: %+v %v", first, err)
	}
	if string(req.Vars) != `{"x":"left"}` || req.Prompt != "" {
		t.Fatalf("the request was changed: %+v", req)
	}
	putTemplate(t, e, "t", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "Stop {{.x}}?"}})
	again, created, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Template: "t", Vars: json.RawMessage(`{"x":"left"}`)}, "k1")
	if err != nil || created || again.ID != first.ID {
		t.Fatalf("retry after the template changed: %+v %v %v", again, created, err)
	}
	if err := e.DeleteTemplate(ctx, admin, "t"); err != nil {
		t.Fatal(err)
	}
	if again, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Template: "t", Vars: json.RawMessage(`{"x":"left"}`)}, "k1"); err != nil || again.ID != first.ID {
		t.Fatalf("retry after the template went: %+v %v", again, err)
	}
	if _, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Template: "t", Vars: json.RawMessage(`{"x":"right"}`)}, "k1"); hitl.ErrorCode(err) != hitl.EConflict {
		t.Fatalf("same key, other vars: %v, want conflict", err)
	}
}

// TestPutTemplateChecksUpFront: what a create would refuse is refused when the template is
// put, with every problem's path; a prompt that calls a function or does more than
// {{.var}} and {{if}} is refused in words.
func TestPutTemplateChecksUpFront(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	at := time.Now().Add(time.Hour)
	for _, c := range []struct {
		name  string
		req   hitl.TemplateRequest
		paths []string
		msg   string
	}{
		{"function", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: `Deploy {{printf "%s" .v}}?`}}, []string{"/prompt"}, `{{printf "%s" .v}} is not allowed`},
		{"pipeline", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: `Deploy {{.v | html}}?`}}, []string{"/prompt"}, "calls no functions"},
		{"unknown function", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: `{{exec "rm"}}`}}, []string{"/prompt"}, "is not allowed"},
		{"range", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: `{{range .xs}}x{{end}}`}}, []string{"/prompt"}, "{{range .xs}} is not allowed"},
		{"variable", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: `{{$v := .x}}{{$v}}`}}, []string{"/prompt"}, "is not allowed"},
		{"dot", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: `{{.}}`}}, []string{"/prompt"}, "is not allowed"},
		{"if with a function", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: `{{if eq .x "a"}}a{{end}}`}}, []string{"/prompt"}, `{{if eq .x "a"}} is not allowed`},
		{"define", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: `{{define "x"}}a{{end}}b`}}, []string{"/prompt"}, `{{define "x"}} is not allowed`},
		{"template", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: `{{template "x"}}`}}, []string{"/prompt"}, "is not allowed"},
		{"syntax", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: `Deploy {{.v`}}, []string{"/prompt"}, "unclosed action"},
		{"no prompt", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{RequestType: hitl.RequestApproval}}, []string{"/prompt"}, "required"},
		{"bad vars_schema", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "x"}, VarsSchema: json.RawMessage(`{"type":"nope"}`)}, []string{"/vars_schema"}, ""},
		{"vars_schema $ref", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "x"}, VarsSchema: json.RawMessage(`{"$ref":"file:///etc/passwd"}`)}, []string{"/vars_schema"}, ""},
		{"create fields", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "x {{.v}}", RequestType: "poll", TimeoutSeconds: seconds(0),
			Options: []hitl.Option{{Value: "a"}}, AssignedTo: hitl.Assignees{"not a name"}}}, []string{"/request_type", "/timeout_seconds", "/options", "/assigned_to/0"}, "invalid template"},
		{"one run's fields", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "x", Session: "s", Execution: "e", TimeoutAt: &at,
			Template: "other", Vars: json.RawMessage(`{}`)}}, []string{"/session", "/execution", "/timeout_at", "/template", "/vars"}, ""},
	} {
		_, _, err := e.PutTemplate(ctx, admin, "t", &c.req)
		paths := fieldPaths(err)
		if hitl.ErrorCode(err) != hitl.EInvalid || !strings.Contains(hitl.ErrorMessage(err), c.msg) {
			t.Errorf("%s: %v, want invalid saying %q", c.name, err, c.msg)
		}
		for _, p := range c.paths {
			if !slices.Contains(paths, p) {
				t.Errorf("%s: paths %v, want %s", c.name, paths, p)
			}
		}
	}
	if list, err := e.Templates(ctx, admin); err != nil || len(list) != 0 {
		t.Fatalf("refused templates were stored: %+v %v", list, err)
	}

	// Who may do what: admins put and delete; agents read; responders nothing.
	ok := hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "fine"}}
	if _, _, err := e.PutTemplate(ctx, agent, "t", &ok); hitl.ErrorCode(err) != hitl.EForbidden {
		t.Errorf("agent puts: %v", err)
	}
	if _, created, err := e.PutTemplate(ctx, admin, "t", &ok); err != nil || !created {
		t.Fatalf("admin puts: %v %v", created, err)
	}
	if _, created, err := e.PutTemplate(ctx, admin, "t", &ok); err != nil || created {
		t.Fatalf("admin replaces: %v %v", created, err)
	}
	if _, _, err := e.PutTemplate(ctx, admin, "a b", &ok); hitl.ErrorCode(err) != hitl.EInvalid {
		t.Errorf("bad name: %v", err)
	}
	if tpl, err := e.Template(ctx, agent, "t"); err != nil || tpl.Prompt != "fine" {
		t.Errorf("agent reads: %+v %v", tpl, err)
	}
	if _, err := e.Templates(ctx, human); hitl.ErrorCode(err) != hitl.EForbidden {
		t.Errorf("responder lists: %v", err)
	}
	if err := e.DeleteTemplate(ctx, agent, "t"); hitl.ErrorCode(err) != hitl.EForbidden {
		t.Errorf("agent deletes: %v", err)
	}
	if err := e.DeleteTemplate(ctx, admin, "t"); err != nil {
		t.Fatal(err)
	}
	if err := e.DeleteTemplate(ctx, admin, "t"); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Errorf("delete twice: %v", err)
	}
}
