package engine_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/clock"
)

// TestDecisionAnalytics on known data with a manual clock: the exact p50/p90 of the time to
// first view and to decision, the share answered within the deadline, approval rates this
// week and last and their change, the decisions made faster than reading takes, and rows by
// person for an admin but only one's own for a responder.
func TestDecisionAnalytics(t *testing.T) {
	t0 := time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
	c := clock.NewManual(t0)
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	ann := &hitl.Principal{Name: "ann", Roles: []string{hitl.RoleResponder}, Groups: []string{"ops"}}
	bob := &hitl.Principal{Name: "bob", Roles: []string{hitl.RoleResponder}, Groups: []string{"ops"}}
	putTemplate(t, e, "deploy", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{
		Prompt: "Deploy {{.v}}?", RequestType: hitl.RequestApproval, AssignedTo: hitl.Assignees{"group:ops"}, TimeoutSeconds: seconds(600)}})
	ask := func(req *hitl.InquiryRequest) *hitl.Inquiry { t.Helper(); return created(t, e, req) }
	answer := func(who *hitl.Principal, inq *hitl.Inquiry, approved bool) {
		t.Helper()
		if _, err := e.Respond(ctx, who, inq.ID, hitl.ApprovalResponse(approved, "")); err != nil {
			t.Fatal(err)
		}
	}
	at := func(d time.Duration) { c.Advance(d - c.Now().Sub(t0)) }

	// Last week: ann approves one of two.
	for _, ok := range []bool{true, false} {
		answer(ann, ask(&hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval}), ok)
	}
	// This week (8 days on): four deploys and one that times out.
	t0 = t0.Add(8 * 24 * time.Hour)
	at(0)
	long := json.RawMessage(`{"notes":"` + strings.Repeat("word ", 79) + `"}`) // 80 words: 20 s of reading
	deploy := func(v string, timeout int64, ctxt json.RawMessage) *hitl.Inquiry {
		return ask(&hitl.InquiryRequest{Template: "deploy", Vars: json.RawMessage(`{"v":"` + v + `"}`), TimeoutSeconds: seconds(timeout), Context: ctxt})
	}
	q1, q2, q3, q4, q5 := deploy("1", 600, long), deploy("2", 600, nil), deploy("3", 600, nil), deploy("4", 1000, nil), deploy("5", 300, nil)
	at(10 * time.Second)
	e.Viewed(ctx, ann, q1)
	e.Viewed(ctx, ann, q2)
	e.Viewed(ctx, agent, q3) // the asking agent's reads are no views
	at(15 * time.Second)
	e.Viewed(ctx, bob, q3)
	at(18 * time.Second)
	e.Viewed(ctx, ann, q1) // a later view changes nothing
	at(20 * time.Second)
	answer(ann, q1, true) // 10 s after ann saw it; reading takes 20 s: too fast
	at(40 * time.Second)
	answer(ann, q2, false)
	at(70 * time.Second)
	answer(bob, q3, true)
	at(301 * time.Second)
	if _, err := e.Respond(ctx, ann, q5.ID, hitl.ApprovalResponse(true, "")); hitl.ErrorCode(err) != hitl.EConflict {
		t.Fatalf("late answer: %v", err)
	}
	at(700 * time.Second)
	answer(ann, q4, true) // never opened: 700 s from its creation

	st, err := e.Stats(ctx, admin, "7d")
	if err != nil {
		t.Fatal(err)
	}
	d := st.Decisions
	if d == nil || d.ReadingWordsPerMinute != 240 {
		t.Fatalf("decisions %+v", d)
	}
	f := func(v *float64) any {
		if v == nil {
			return nil
		}
		return *v
	}
	check := func(what string, r hitl.DecisionFigures, answers int, fv50, fv90, d50, d90 float64, within any, this, last, change any, tooFast int) {
		t.Helper()
		if r.Answers != answers || r.FirstView.P50Seconds != fv50 || r.FirstView.P90Seconds != fv90 || r.Decision.P50Seconds != d50 ||
			r.Decision.P90Seconds != d90 || f(r.WithinDeadline) != within || f(r.ApprovalThisWeek) != this || f(r.ApprovalLastWeek) != last ||
			f(r.ApprovalChange) != change || r.TooFast != tooFast {
			t.Errorf("%s: %+v first view %+v decision %+v within %v approval %v %v %v", what, r, r.FirstView, r.Decision,
				f(r.WithinDeadline), f(r.ApprovalThisWeek), f(r.ApprovalLastWeek), f(r.ApprovalChange))
		}
	}
	// Decisions 10, 30, 55, 700 s; first views 10, 10, 15 s; 4 of 5 deadlines met.
	check("total", d.Total, 4, 10, 15, 30, 700, 0.8, 0.75, 0.5, 0.25, 1)
	if len(d.ByPerson) != 2 || d.ByPerson[0].Key != "ann" || d.ByPerson[1].Key != "bob" {
		t.Fatalf("by person %+v", d.ByPerson)
	}
	check("ann", d.ByPerson[0], 3, 10, 10, 30, 700, 1.0, 0.6667, 0.5, 0.1667, 1)
	check("bob", d.ByPerson[1], 1, 15, 15, 55, 55, 1.0, 1.0, nil, nil, 0)
	if len(d.ByGroup) != 1 || d.ByGroup[0].Key != "ops" || len(d.ByTemplate) != 1 || d.ByTemplate[0].Key != "deploy" || len(d.ByTool) != 0 {
		t.Fatalf("groups %+v templates %+v tools %+v", d.ByGroup, d.ByTemplate, d.ByTool)
	}
	check("ops", d.ByGroup[0], 4, 10, 15, 30, 700, 0.8, 0.75, nil, nil, 1)

	// A responder sees its own row only, and the rest over what it may see.
	st, err = e.Stats(ctx, bob, "7d")
	if err != nil {
		t.Fatal(err)
	}
	if rows := st.Decisions.ByPerson; len(rows) != 1 || rows[0].Key != "bob" {
		t.Fatalf("bob sees %+v", rows)
	}
	if st.Decisions.ByGroup[0].Answers != 4 {
		t.Fatalf("bob's groups %+v", st.Decisions.ByGroup)
	}
}
