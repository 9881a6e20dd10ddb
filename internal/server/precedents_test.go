package server_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// GET /v1/inquiries/{id}/precedents on both stores: the earlier answers of the same tool with
// arguments of the same shape, who gave them and their comment; another's inquiry and an
// unknown one are 404, no key 401, an unknown query parameter 400.
func TestPrecedentsOverHTTP(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { t.Parallel(); precedentsOverHTTP(t) })
	t.Run("postgres", func(t *testing.T) { t.Parallel(); precedentsOverHTTP(t, testserver.Postgres()) })
}

func precedentsOverHTTP(t *testing.T, opts ...testserver.Option) {
	e := startServer(t, opts...)
	agent := clientFor(e, e.token("bot", hitl.RoleAgent))
	ann, annToken := e.Key(hitl.KeyRequest{Name: "ann", Roles: []string{hitl.RoleResponder}})
	call := func(args string, to ...string) hitl.InquiryRequest {
		return hitl.InquiryRequest{Prompt: "Scale?", RequestType: hitl.RequestApproval, AssignedTo: to,
			ToolCall:         &hitl.ToolCall{ID: "c", Name: "scale", Arguments: json.RawMessage(args)},
			AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionReject}}
	}
	before := ask(t, agent, call(`{"service":"api","replicas":3}`))
	_, err := ann.Respond(ctx, before.ID, json.RawMessage(`{"decision":"approve"}`), "load is up")
	must(t, err)
	now := ask(t, agent, call(`{"replicas":9,"service":"web"}`))
	bobs := ask(t, agent, call(`{"service":"api","replicas":3}`, "bob"))

	r := e.do("GET", "/v1/inquiries/"+strconv.FormatInt(now.ID, 10)+"/precedents", annToken, "")
	if r.status != http.StatusOK {
		t.Fatalf("precedents: %d %s", r.status, r.text)
	}
	var got hitl.Precedents
	must(t, json.Unmarshal([]byte(r.text), &got))
	if got.InquiryID != now.ID || len(got.Precedents) != 1 {
		t.Fatalf("precedents: %s", r.text)
	}
	p := got.Precedents[0]
	if p.InquiryID != before.ID || p.Match != hitl.PrecedentTool || p.RespondedBy != "ann" || p.Comment != "load is up" ||
		p.Decision != hitl.DecisionApprove || p.RespondedAt.IsZero() {
		t.Fatalf("precedent: %s", r.text)
	}
	for _, c := range []struct {
		path, token string
		status      int
		says        string
	}{
		{"/v1/inquiries/" + strconv.FormatInt(bobs.ID, 10) + "/precedents", annToken, http.StatusNotFound, "not found"},
		{"/v1/inquiries/999999/precedents", annToken, http.StatusNotFound, "not found"},
		{"/v1/inquiries/x/precedents", annToken, http.StatusNotFound, "not found"},
		{"/v1/inquiries/" + strconv.FormatInt(now.ID, 10) + "/precedents?limit=9", annToken, http.StatusBadRequest, "limit"},
		{"/v1/inquiries/" + strconv.FormatInt(now.ID, 10) + "/precedents", "", http.StatusUnauthorized, "unauthorized"},
	} {
		if r := e.do("GET", c.path, c.token, ""); r.status != c.status || !strings.Contains(r.text, c.says) {
			t.Errorf("%s: %d %s; want %d with %q", c.path, r.status, r.text, c.status, c.says)
		}
	}
}
