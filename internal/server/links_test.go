package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
)

func TestAnswerLinkAPI(t *testing.T) {
	e := newEnv(t)
	agent := e.token("bot", hitl.RoleAgent)
	responder := e.token("ann", hitl.RoleResponder)
	inq := ask(t, clientFor(e, agent), hitl.InquiryRequest{Prompt: "ok?", AssignedTo: []string{"ann"}})
	path := fmt.Sprintf("/v1/inquiries/%d/links", inq.ID)
	for _, tc := range []struct {
		name, token, body string
		status            int
		code              string
	}{
		{"no token", "", `{"for":"ann"}`, http.StatusUnauthorized, hitl.EUnauthorized},
		{"a responder", responder, `{"for":"ann"}`, http.StatusForbidden, hitl.EForbidden},
		{"the asking agent", agent, `{"for":"ann"}`, http.StatusForbidden, hitl.EForbidden},
		{"malformed JSON", adminToken, `{"for":`, http.StatusBadRequest, hitl.EInvalid},
		{"an unknown field", adminToken, `{"for":"ann","role":"admin"}`, http.StatusBadRequest, hitl.EInvalid},
		{"nobody", adminToken, `{}`, http.StatusBadRequest, hitl.EInvalid},
		{"someone not assigned", adminToken, `{"for":"eve"}`, http.StatusBadRequest, hitl.EInvalid},
		{"a TTL out of range", adminToken, `{"for":"ann","ttl_seconds":1}`, http.StatusBadRequest, hitl.EInvalid},
		{"an unknown inquiry", adminToken, `{"for":"ann"}`, http.StatusNotFound, hitl.ENotFound},
	} {
		p := path
		if tc.name == "an unknown inquiry" {
			p = "/v1/inquiries/99999/links"
		}
		r := e.do(http.MethodPost, p, tc.token, tc.body, "Content-Type", "application/json")
		if r.status != tc.status || r.code() != tc.code {
			t.Errorf("%s: %d %s, want %d %s (%s)", tc.name, r.status, r.code(), tc.status, tc.code, r.text)
		}
	}
	r := e.do(http.MethodPost, path, adminToken, `{"for":"ann","ttl_seconds":600}`, "Content-Type", "application/json")
	if r.status != http.StatusCreated || !strings.HasPrefix(r.body["url"].(string), e.URL+"/a/v2.") || r.body["for"] != "ann" || r.body["relayed_by"] != "admin" {
		t.Fatalf("link: %d %s", r.status, r.text)
	}
}

func TestListSearchAndDeadlineOrder(t *testing.T) {
	e := newEnv(t)
	agent := clientFor(e, e.token("bot", hitl.RoleAgent))
	later, soon := int64(3600), int64(60)
	a := ask(t, agent, hitl.InquiryRequest{Prompt: "Restart the CACHE?", TimeoutSeconds: &later})
	b := ask(t, agent, hitl.InquiryRequest{Prompt: "Flush the cache now?", TimeoutSeconds: &soon})
	c := ask(t, agent, hitl.InquiryRequest{Prompt: "Rotate keys?"})
	ids := func(r reply) string {
		var out []string
		items, _ := r.body["data"].([]any)
		for _, it := range items {
			out = append(out, fmt.Sprint(it.(map[string]any)["id"]))
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct{ query, want string }{
		{"q=cache", fmt.Sprintf("%d,%d", b.ID, a.ID)},
		{"q=cache&order=deadline", fmt.Sprintf("%d,%d", b.ID, a.ID)},
		{"order=deadline", fmt.Sprintf("%d,%d,%d", b.ID, a.ID, c.ID)},
		{"order=newest", fmt.Sprintf("%d,%d,%d", c.ID, b.ID, a.ID)},
		{"q=nothing", ""},
	} {
		r := e.do(http.MethodGet, "/v1/inquiries?"+tc.query, adminToken, "")
		if r.status != http.StatusOK || ids(r) != tc.want {
			t.Errorf("%s: %d %s, want %s", tc.query, r.status, ids(r), tc.want)
		}
	}
	for _, q := range []string{"order=sideways", "q=" + strings.Repeat("x", 201)} {
		if r := e.do(http.MethodGet, "/v1/inquiries?"+q, adminToken, ""); r.status != http.StatusBadRequest || r.code() != hitl.EInvalid {
			t.Errorf("%.30s: %d %s", q, r.status, r.code())
		}
	}
}
