package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// GET /v1/stats on both stores: what the humans took, by request type, responder and group;
// what timed out, fell back or was cancelled; the oldest pending inquiry; the days. Admins see
// every inquiry, a responder its own, an agent nothing; a bad window is 400. The metrics say
// the same.
func TestStatsOverHTTP(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { t.Parallel(); statsOverHTTP(t) })
	t.Run("postgres", func(t *testing.T) { t.Parallel(); statsOverHTTP(t, testserver.Postgres()) })
}

func statsOverHTTP(t *testing.T, opts ...testserver.Option) {
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(12 * time.Hour) // noon: every answer on one day
	clk := clock.NewManual(start)
	e := startServer(t, append(opts, testserver.Configure(func(c *server.Config) { c.Clock = clk }))...)
	agentToken := e.token("bot", hitl.RoleAgent)
	agent := clientFor(e, agentToken)
	ann := e.principal("ann", []string{hitl.RoleResponder}, "ops")
	bob, bobToken := e.Key(hitl.KeyRequest{Name: "bob", Roles: []string{hitl.RoleResponder}, Groups: []string{"sre"}})

	q1 := ask(t, agent, hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval, AssignedTo: []string{"group:ops"}})
	q2 := ask(t, agent, hitl.InquiryRequest{Prompt: "Which port?", AssignedTo: []string{"group:sre", "group:ops"}})
	deadline := int64(300)
	q3 := ask(t, agent, hitl.InquiryRequest{Prompt: "Roll back?", AssignedTo: []string{"group:ops"}, TimeoutSeconds: &deadline,
		FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`"no"`)})
	q4 := ask(t, agent, hitl.InquiryRequest{Prompt: "Page someone?", AssignedTo: []string{"bob"}})
	q6 := ask(t, agent, hitl.InquiryRequest{Prompt: "Anything else?"})
	clk.Advance(time.Minute)
	_, err := ann.Respond(ctx, q1.ID, json.RawMessage(`{"approved":true}`), "")
	must(t, err)
	clk.Advance(time.Minute)
	_, err = bob.Respond(ctx, q2.ID, json.RawMessage(`"8080"`), "")
	must(t, err)
	clk.Advance(time.Minute)
	_, err = ann.Respond(ctx, q6.ID, json.RawMessage(`"no"`), "")
	must(t, err)
	_, err = agent.Cancel(ctx, q4.ID, "not needed")
	must(t, err)
	clk.Advance(4 * time.Minute) // past q3's deadline
	eventually(t, "the deadline passed", func() bool {
		inq, err := agent.Inquiry(ctx, q3.ID)
		return err == nil && inq.Status == hitl.StatusTimeout
	})
	q5 := ask(t, agent, hitl.InquiryRequest{Prompt: "Still there?", AssignedTo: []string{"bob"}})
	clk.Advance(30 * time.Second)

	get := func(token, query string) reply {
		t.Helper()
		return e.do("GET", "/v1/stats"+query, token, "")
	}
	r := get(adminToken, "?since=7d")
	if r.status != http.StatusOK {
		t.Fatalf("stats: %d %s", r.status, r.text)
	}
	var st hitl.Stats
	must(t, json.Unmarshal([]byte(r.text), &st))
	rows := func(rs []hitl.ResponseTimes) string {
		var out []string
		for _, x := range rs {
			out = append(out, fmt.Sprintf("%s %d %g/%g", x.Key, x.Count, x.P50Seconds, x.P90Seconds))
		}
		return strings.Join(out, "; ")
	}
	now := start.Add(7*time.Minute + 30*time.Second)
	if st.Scope != hitl.StatsAll || st.Since != 7*24*3600 || !st.Until.Equal(now) || !st.From.Equal(now.Add(-7*24*time.Hour)) ||
		st.Answered != 3 || st.TimedOut != 1 || st.FellBack != 1 || st.Cancelled != 1 || st.Pending != 1 || st.Sampled {
		t.Fatalf("stats: %s", r.text)
	}
	if o := st.OldestPending; o == nil || o.InquiryID != q5.ID || o.AgeSeconds != 30 || !o.CreatedAt.Equal(start.Add(7*time.Minute)) {
		t.Fatalf("oldest pending: %s", r.text)
	}
	if got := rows([]hitl.ResponseTimes{st.ResponseTime}); got != " 3 120/180" {
		t.Errorf("response time: %s", got)
	}
	if got := rows(st.ByRequestType); got != "approval 1 60/60; input 2 120/180" {
		t.Errorf("by request type: %s", got)
	}
	if got := rows(st.ByResponder); got != "ann 2 60/180; bob 1 120/120" {
		t.Errorf("by responder: %s", got)
	}
	if got := rows(st.ByGroup); got != "ops 2 60/120; sre 1 120/120" {
		t.Errorf("by group: %s", got)
	}
	today := start.Format(time.DateOnly)
	if len(st.PerDay) != 8 || st.PerDay[7] != (hitl.DayCount{Date: today, Answered: 3, TimedOut: 1, FellBack: 1, Cancelled: 1}) || st.PerDay[0].Answered != 0 {
		t.Errorf("per day: %+v", st.PerDay)
	}
	if !strings.Contains(r.text, `"since":"168h"`) || !strings.Contains(r.text, `"by_group":[{"key":"ops","count":2,"p50_seconds":60,"p90_seconds":120}`) {
		t.Errorf("as JSON: %s", r.text)
	}

	// The default window is 7 days; a shorter one that holds none of it counts nothing.
	if d := get(adminToken, ""); d.status != http.StatusOK || d.body["since"] != "168h" || d.body["answered"] != float64(3) {
		t.Errorf("default window: %d %s", d.status, d.text)
	}
	clk.Advance(time.Hour)
	if d := get(adminToken, "?since=30m"); d.status != http.StatusOK || d.body["answered"] != float64(0) || d.body["pending"] != float64(1) ||
		len(d.body["per_day"].([]any)) != 1 || len(d.body["by_responder"].([]any)) != 0 {
		t.Errorf("the last 30 minutes: %d %s", d.status, d.text)
	}

	// A responder sees its own: what it answered and what was assigned to it or its groups.
	own, err := ann.Stats(ctx, "7d")
	must(t, err)
	if own.Scope != hitl.StatsOwn || own.Answered != 3 || own.TimedOut != 1 || own.FellBack != 1 || own.Cancelled != 0 || own.Pending != 0 || own.OldestPending != nil {
		t.Errorf("ann's stats: %+v", own)
	}
	if got := rows(own.ByResponder); got != "ann 2 60/180; bob 1 120/120" { // bob answered q2, assigned to ann's group
		t.Errorf("ann's by responder: %s", got)
	}
	bobs := get(bobToken, "?since=7d")
	if bobs.status != http.StatusOK || bobs.body["answered"] != float64(1) || bobs.body["cancelled"] != float64(1) || bobs.body["pending"] != float64(1) ||
		bobs.body["scope"] != "own" {
		t.Errorf("bob's stats: %d %s", bobs.status, bobs.text)
	}

	// An agent has no stats; no token is 401.
	if r := get(agentToken, ""); r.status != http.StatusForbidden || r.code() != hitl.EForbidden ||
		!strings.Contains(r.body["detail"].(string), "stats need the admin or the responder role") {
		t.Errorf("agent: %d %s", r.status, r.text)
	}
	if r := get("", ""); r.status != http.StatusUnauthorized {
		t.Errorf("no token: %d %s", r.status, r.text)
	}

	// A window that is not one is 400, as problem+json that says what it must be.
	for _, q := range []string{"?since=abc", "?since=-1d", "?since=0s", "?since=367d", "?since=99999999999999d", "?since=7", "?since=7d&since=1d", "?sinse=7d", "?since="} {
		r := get(adminToken, q)
		if q == "?since=" {
			if r.status != http.StatusOK {
				t.Errorf("%s: %d %s", q, r.status, r.text)
			}
			continue
		}
		if r.status != http.StatusBadRequest || r.code() != hitl.EInvalid || r.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s", q, r.status, r.text)
			continue
		}
		if detail, _ := r.body["detail"].(string); !strings.Contains(detail, "since") {
			t.Errorf("%s: %s", q, r.text)
		}
	}

	// The metrics: the oldest pending inquiry's age, and the answers by group.
	m := e.do("GET", "/metrics", "", "").text
	for _, want := range []string{
		"\nhitl_oldest_pending_seconds 3630\n",
		"\nhitl_group_response_seconds_count{group=\"ops\"} 2\n",
		"\nhitl_group_response_seconds_count{group=\"sre\"} 1\n",
		"\nhitl_group_response_seconds_count{group=\"none\"} 1\n",
		"\nhitl_group_response_seconds_bucket{group=\"ops\",le=\"60\"} 1\n",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q", strings.TrimSpace(want))
		}
	}
}
