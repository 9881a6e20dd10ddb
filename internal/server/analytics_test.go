package server_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// Decision analytics over HTTP on both stores: opening an inquiry (GET /v1/inquiries/{id})
// records the first view; GET /v1/stats has rows by person for admins and only the caller's
// own for a responder; an agent is 403, no key 401, a bad window 400; the metrics are labelled
// by group, template and tool and name nobody.
func TestDecisionAnalyticsOverHTTP(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { t.Parallel(); decisionAnalyticsOverHTTP(t) })
	t.Run("postgres", func(t *testing.T) { t.Parallel(); decisionAnalyticsOverHTTP(t, testserver.Postgres()) })
}

func decisionAnalyticsOverHTTP(t *testing.T, opts ...testserver.Option) {
	clk := clock.NewManual(time.Now().UTC().Truncate(time.Hour))
	e := startServer(t, append(opts, testserver.Configure(func(c *server.Config) { c.Clock = clk }))...)
	agentToken := e.token("bot", hitl.RoleAgent)
	agent := clientFor(e, agentToken)
	ann, annToken := e.Key(hitl.KeyRequest{Name: "ann", Roles: []string{hitl.RoleResponder}, Groups: []string{"ops"}})
	bob, _ := e.Key(hitl.KeyRequest{Name: "bob", Roles: []string{hitl.RoleResponder}, Groups: []string{"ops"}})
	call := hitl.InquiryRequest{Prompt: "Restart the queue?", RequestType: hitl.RequestApproval, AssignedTo: []string{"group:ops"},
		ToolCall:         &hitl.ToolCall{ID: "c", Name: "restart", Arguments: json.RawMessage(`{"service":"queue"}`)},
		AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionReject}}
	q1, q2 := ask(t, agent, call), ask(t, agent, call)
	clk.Advance(20 * time.Second)
	for _, token := range []string{annToken, agentToken} { // the agent's read is no view
		if r := e.do("GET", "/v1/inquiries/"+strconv.FormatInt(q1.ID, 10), token, ""); r.status != http.StatusOK {
			t.Fatalf("open: %d %s", r.status, r.text)
		}
	}
	clk.Advance(40 * time.Second)
	_, err := ann.Respond(ctx, q1.ID, json.RawMessage(`{"decision":"approve"}`), "")
	must(t, err)
	_, err = bob.Respond(ctx, q2.ID, json.RawMessage(`{"decision":"reject","message":"no"}`), "")
	must(t, err)

	stats := func(token string) hitl.Stats {
		t.Helper()
		r := e.do("GET", "/v1/stats?since=1d", token, "")
		if r.status != http.StatusOK {
			t.Fatalf("stats: %d %s", r.status, r.text)
		}
		var st hitl.Stats
		must(t, json.Unmarshal([]byte(r.text), &st))
		return st
	}
	d := stats(adminToken).Decisions
	if len(d.ByPerson) != 2 || d.Total.Answers != 2 || d.Total.FirstView.Count != 1 || d.Total.FirstView.P50Seconds != 20 ||
		d.ByPerson[0].Key != "ann" || d.ByPerson[0].Decision.P50Seconds != 40 || d.ByPerson[1].Decision.P50Seconds != 60 ||
		len(d.ByTool) != 1 || d.ByTool[0].Key != "restart" || *d.ByTool[0].ApprovalThisWeek != 0.5 {
		t.Fatalf("admin: %+v", d)
	}
	if d := stats(annToken).Decisions; len(d.ByPerson) != 1 || d.ByPerson[0].Key != "ann" || d.ByGroup[0].Answers != 2 {
		t.Fatalf("ann sees %+v", d)
	}
	for _, c := range []struct {
		token, query string
		status       int
		says         string
	}{{agentToken, "", http.StatusForbidden, "forbidden"}, {"", "", http.StatusUnauthorized, "unauthorized"},
		{annToken, "?since=0d", http.StatusBadRequest, "since must be a duration"}} {
		if r := e.do("GET", "/v1/stats"+c.query, c.token, ""); r.status != c.status || !strings.Contains(r.text, c.says) {
			t.Errorf("%q %s: %d %s", c.token, c.query, r.status, r.text)
		}
	}
	m := e.do("GET", "/metrics", "", "").text
	for _, want := range []string{`hitl_decision_seconds_count{group="ops",template="",tool="restart"} 2`,
		`hitl_time_to_first_view_seconds_count{group="ops",template="",tool="restart"} 1`,
		`hitl_decisions_too_fast_total{group="ops",template="",tool="restart"} 0`} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	for _, line := range strings.Split(m, "\n") {
		if strings.HasPrefix(line, "hitl_decision") || strings.HasPrefix(line, "hitl_time_to_first_view") {
			if strings.Contains(line, "ann") || strings.Contains(line, "bob") {
				t.Errorf("a metric names a person: %s", line)
			}
		}
	}
}
