package engine_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// suggesting is an engine that suggests a rule after n identical approvals.
func suggesting(t *testing.T, n int) *engine.Engine {
	t.Helper()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	c := clock.NewManual(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	e := engine.New(st, engine.Options{Clock: c, RuleSuggestAfter: n})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Stop(ctx); st.Close() })
	keys(t, e, nil, "bob", "carol")
	return e
}

// answerDeploy creates a deploy call with env and has who answer it with decision.
func answerDeploy(t *testing.T, e *engine.Engine, who, env string, decision hitl.Decision) {
	t.Helper()
	inq := create(t, e, deployCall(env))
	if _, err := e.Respond(ctx, responder(who), inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"decision":"` + string(decision) + `"}`)}); err != nil {
		t.Fatal(err)
	}
}

func suggestionFor(t *testing.T, e *engine.Engine, who string, inq *hitl.Inquiry) *hitl.RuleSuggestion {
	t.Helper()
	s, err := e.RuleSuggestion(ctx, responder(who), inq.ID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRuleSuggestionAfterIdenticalApprovals: bob approved deploy staging 3 times (carol's
// approval in between neither counts nor breaks the run): the next is offered as a rule, to
// bob only, with these arguments; once the rule exists, nothing more is suggested.
func TestRuleSuggestionAfterIdenticalApprovals(t *testing.T) {
	e := suggesting(t, 3)
	answerDeploy(t, e, "bob", "staging", hitl.DecisionApprove)
	answerDeploy(t, e, "bob", "staging", hitl.DecisionApprove)
	answerDeploy(t, e, "carol", "staging", hitl.DecisionApprove)
	answerDeploy(t, e, "bob", "prod", hitl.DecisionApprove) // other arguments: another scope
	next := create(t, e, deployCall("staging"))
	if s := suggestionFor(t, e, "bob", next); s != nil {
		t.Fatalf("after 2 approvals: suggestion %+v, want none", s)
	}
	answerDeploy(t, e, "bob", "staging", hitl.DecisionApprove)
	s := suggestionFor(t, e, "bob", next)
	if s == nil || s.Tool != "deploy" || s.Agent != "bot" || s.Count != 3 || s.AllowFor != "8h" || s.AllowArgs != "exact" ||
		string(s.Args) != `{"env":"staging","replicas":2}` {
		t.Fatalf("suggestion = %+v", s)
	}
	if s := suggestionFor(t, e, "carol", next); s != nil {
		t.Fatalf("carol approved once: suggestion %+v, want none", s)
	}
	if s := suggestionFor(t, e, "bob", create(t, e, deployCall("prod"))); s != nil {
		t.Fatalf("prod approved once: suggestion %+v, want none", s)
	}
	if _, err := e.RuleSuggestion(ctx, responder("bob"), 9999); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("unknown inquiry: %v, want not found", err)
	}
	// Taking the suggestion: the approval makes the rule, which covers the next ones.
	if _, err := e.Respond(ctx, responder("bob"), next.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"decision":"approve"}`), AllowFor: s.AllowFor, AllowArgs: s.AllowArgs}); err != nil {
		t.Fatal(err)
	}
	if auto := create(t, e, deployCall("staging")); auto.Status != hitl.StatusResponded || auto.Rule == nil || auto.Rule.Author != "bob" {
		t.Fatalf("after the rule: %+v", auto)
	}
}

// TestRuleSuggestionBrokenByRejection: a rejection among the last answers, by anyone, means
// no suggestion until the run is whole again.
func TestRuleSuggestionBrokenByRejection(t *testing.T) {
	e := suggesting(t, 2)
	answerDeploy(t, e, "bob", "staging", hitl.DecisionApprove)
	answerDeploy(t, e, "carol", "staging", hitl.DecisionReject)
	answerDeploy(t, e, "bob", "staging", hitl.DecisionApprove)
	next := create(t, e, deployCall("staging"))
	if s := suggestionFor(t, e, "bob", next); s != nil {
		t.Fatalf("rejection in between: suggestion %+v, want none", s)
	}
	answerDeploy(t, e, "bob", "staging", hitl.DecisionApprove)
	if s := suggestionFor(t, e, "bob", next); s == nil || s.Count != 2 {
		t.Fatalf("after 2 in a row: suggestion %+v", s)
	}
}

// TestRuleSuggestionOff: with RuleSuggestAfter 0 nothing is ever suggested.
func TestRuleSuggestionOff(t *testing.T) {
	e := suggesting(t, 0)
	for range 3 {
		answerDeploy(t, e, "bob", "staging", hitl.DecisionApprove)
	}
	if s := suggestionFor(t, e, "bob", create(t, e, deployCall("staging"))); s != nil {
		t.Fatalf("suggestions off: %+v", s)
	}
}
