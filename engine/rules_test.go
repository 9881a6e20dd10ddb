package engine_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/receipt"
)

// aliceAdmin is an admin named alice, who also holds a responder key (keys(...)), so that her
// rules' approval is hers.
var aliceAdmin = &hitl.Principal{Name: "alice", Roles: []string{hitl.RoleAdmin}}

func ruled(t *testing.T) (*engine.Engine, *clock.Manual) {
	t.Helper()
	c := clock.NewManual(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	t.Cleanup(stop)
	keys(t, e, nil, "alice", "bob")
	return e, c
}

func deployCall(env string) *hitl.InquiryRequest {
	return &hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval,
		ToolCall:         &hitl.ToolCall{ID: "call_1", Name: "deploy", Arguments: json.RawMessage(`{"env":"` + env + `","replicas":2}`)},
		AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionReject}, TimeoutSeconds: seconds(600)}
}

func mustRule(t *testing.T, e *engine.Engine, req *hitl.RuleRequest) *hitl.Rule {
	t.Helper()
	r, err := e.CreateRule(ctx, aliceAdmin, req)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func create(t *testing.T, e *engine.Engine, req *hitl.InquiryRequest) *hitl.Inquiry {
	t.Helper()
	inq, _, err := e.CreateInquiry(ctx, agent, req, "")
	if err != nil {
		t.Fatal(err)
	}
	return inq
}

// TestRuleApprovesAtCreationUntilItExpires: an inquiry the rule covers is answered when it is
// created, by the rule, in the name of its author; one it does not cover (other arguments, an
// other agent) waits; after the expiry, the next waits too.
func TestRuleApprovesAtCreationUntilItExpires(t *testing.T) {
	e, c := ruled(t)
	r := mustRule(t, e, &hitl.RuleRequest{Tool: "deploy", Agent: "bot", Args: json.RawMessage(`{"env":"staging"}`), ExpiresAt: c.Now().Add(8 * time.Hour)})
	if r.Author != "alice" || r.Approvers != 1 || !strings.HasPrefix(r.ID, "rule_") {
		t.Fatalf("rule = %+v", r)
	}
	inq := create(t, e, deployCall("staging"))
	if inq.Status != hitl.StatusResponded || inq.RespondedBy == nil || *inq.RespondedBy != "rule:"+r.ID ||
		inq.Rule == nil || inq.Rule.ID != r.ID || inq.Rule.Author != "alice" || string(inq.Response) != `{"decision":"approve"}` {
		t.Fatalf("auto-approved inquiry = %+v", inq)
	}
	if inq.ToolResult == nil || inq.ToolResult.Run == nil || !*inq.ToolResult.Run {
		t.Fatalf("tool result = %+v, want run", inq.ToolResult)
	}
	// The rule's approval carries its receipt, naming the rule and its author.
	claims := verified(t, e, inq, c.Now(), inq.ToolCall.Arguments)
	if claims.Decision != "approve" || claims.Tool != "deploy" || len(claims.DecidedBy) != 1 ||
		claims.DecidedBy[0] != (receipt.Decider{Name: "rule:" + r.ID, Rule: r.ID, Author: "alice"}) {
		t.Fatalf("receipt claims = %+v", claims)
	}
	stored, err := e.Inquiry(ctx, admin, inq.ID)
	if err != nil || stored.Status != hitl.StatusResponded || stored.Rule == nil || stored.Rule.Author != "alice" || stored.Receipt != inq.Receipt {
		t.Fatalf("stored = %+v, %v", stored, err)
	}
	got, err := e.Wait(ctx, agent, inq.ID, time.Minute)
	if err != nil || got.Status != hitl.StatusResponded {
		t.Fatalf("wait = %+v, %v", got, err)
	}
	evs, err := e.Events(ctx, admin, hitl.EventFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range evs {
		if ev.InquiryID != nil && *ev.InquiryID == inq.ID {
			types = append(types, ev.Type)
		}
	}
	if strings.Join(types, " ") != "inquiry.created inquiry.responded inquiry.auto_approved" {
		t.Fatalf("events = %v", types)
	}

	if _, err := e.VerifyAudit(ctx); err != nil { // the stored inquiry is what its last event says
		t.Fatal(err)
	}
	if other := create(t, e, deployCall("production")); other.Status != hitl.StatusPending {
		t.Fatalf("production: %s, want pending (the rule covers staging only)", other.Status)
	}
	if _, _, err := e.CreateInquiry(ctx, &hitl.Principal{Name: "bot2", Roles: []string{hitl.RoleAgent}}, deployCall("staging"), ""); err != nil {
		t.Fatal(err)
	}
	c.Advance(8 * time.Hour)
	if late := create(t, e, deployCall("staging")); late.Status != hitl.StatusPending {
		t.Fatalf("after expiry: %s, want pending", late.Status)
	}
	rules, err := e.Rules(ctx, admin)
	if err != nil || len(rules) != 1 || rules[0].Matched != 1 {
		t.Fatalf("rules = %+v, %v", rules, err)
	}
}

// TestRuleSchemaAndPlainApprovals: a schema condition; a template's plain approval; a
// selection is never answered by a rule.
func TestRuleSchemaAndPlainApprovals(t *testing.T) {
	e, c := ruled(t)
	mustRule(t, e, &hitl.RuleRequest{Tool: "deploy", ArgsSchema: json.RawMessage(`{"type":"object","properties":{"replicas":{"maximum":3}}}`), ExpiresAt: c.Now().Add(time.Hour)})
	if inq := create(t, e, deployCall("production")); inq.Status != hitl.StatusResponded {
		t.Fatalf("replicas 2: %s, want responded", inq.Status)
	}
	big := deployCall("x")
	big.ToolCall.Arguments = json.RawMessage(`{"replicas":9}`)
	if inq := create(t, e, big); inq.Status != hitl.StatusPending {
		t.Fatalf("replicas 9: %s, want pending", inq.Status)
	}
}

// release stores the template "release" (a plain approval) and a rule that approves it.
func release(t *testing.T, e *engine.Engine, c *clock.Manual) {
	t.Helper()
	if _, _, err := e.PutTemplate(ctx, admin, "release", &hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "Release?", RequestType: hitl.RequestApproval}}); err != nil {
		t.Fatal(err)
	}
	mustRule(t, e, &hitl.RuleRequest{Template: "release", ExpiresAt: c.Now().Add(time.Hour)})
}

// TestRuleApprovesATemplatesPlainApproval with {"approved": true}.
func TestRuleApprovesATemplatesPlainApproval(t *testing.T) {
	e, c := ruled(t)
	release(t, e, c)
	inq := create(t, e, &hitl.InquiryRequest{Template: "release"})
	if inq.Status != hitl.StatusResponded || string(inq.Response) != `{"approved":true}` {
		t.Fatalf("template approval = %s %s", inq.Status, inq.Response)
	}
}

// TestRuleNeverRejectsNorAnswersWhatItMayNot: a tool call that does not allow approve, an
// inquiry assigned to someone else than the author, an inquiry the author asked, and a quorum
// of two stay pending; a rule made by two approvers approves the quorum.
func TestRuleNeverRejectsNorAnswersWhatItMayNot(t *testing.T) {
	e, c := ruled(t)
	mustRule(t, e, &hitl.RuleRequest{Tool: "deploy", ExpiresAt: c.Now().Add(time.Hour)})
	rejectOnly := deployCall("a")
	rejectOnly.AllowedDecisions = []hitl.Decision{hitl.DecisionReject}
	bobs := deployCall("a")
	bobs.AssignedTo = []string{"bob"}
	release(t, e, c)
	quorum := &hitl.InquiryRequest{Template: "release", AssignedTo: []string{"alice", "bob"}, Quorum: &hitl.Quorum{Required: 2}}
	for name, req := range map[string]*hitl.InquiryRequest{"reject only": rejectOnly, "assigned to bob": bobs, "quorum of 2": quorum} {
		if inq := create(t, e, req); inq.Status != hitl.StatusPending {
			t.Errorf("%s: %s, want pending", name, inq.Status)
		}
	}
	alice := &hitl.Principal{Name: "alice", Roles: []string{hitl.RoleAgent, hitl.RoleResponder}}
	if inq, _, err := e.CreateInquiry(ctx, alice, deployCall("a"), ""); err != nil || inq.Status != hitl.StatusPending {
		t.Errorf("asked by the author: %v, %v, want pending", inq, err)
	}
}

// TestShadowRuleAnswersNothing: the inquiry stays pending and inquiry.rule_matched records
// which rule would have approved it.
func TestShadowRuleAnswersNothing(t *testing.T) {
	e, c := ruled(t)
	r := mustRule(t, e, &hitl.RuleRequest{Tool: "deploy", Shadow: true, ExpiresAt: c.Now().Add(time.Hour)})
	inq := create(t, e, deployCall("a"))
	if inq.Status != hitl.StatusPending {
		t.Fatalf("shadow: %s, want pending", inq.Status)
	}
	evs, err := e.Events(ctx, admin, hitl.EventFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Type == hitl.EventInquiryRuleMatched {
			var d struct {
				Rule hitl.RuleRef `json:"matched_rule"`
			}
			if json.Unmarshal(ev.Data, &d) != nil || d.Rule.ID != r.ID || *ev.InquiryID != inq.ID {
				t.Fatalf("rule_matched = %s", ev.Data)
			}
			if _, err := e.VerifyAudit(ctx); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("no inquiry.rule_matched event")
}

// TestRevokedRuleStopsAtOnce, and revoking twice or an unknown rule.
func TestRevokedRuleStopsAtOnce(t *testing.T) {
	e, c := ruled(t)
	r := mustRule(t, e, &hitl.RuleRequest{Tool: "deploy", ExpiresAt: c.Now().Add(time.Hour)})
	if inq := create(t, e, deployCall("a")); inq.Status != hitl.StatusResponded {
		t.Fatalf("before: %s", inq.Status)
	}
	if _, err := e.RevokeRule(ctx, responder("bob"), r.ID); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("bob revokes alice's rule: %v, want not found", err)
	}
	if _, err := e.RevokeRule(ctx, admin, r.ID); err != nil {
		t.Fatal(err)
	}
	if inq := create(t, e, deployCall("a")); inq.Status != hitl.StatusPending {
		t.Fatalf("after revoking: %s, want pending", inq.Status)
	}
	if _, err := e.RevokeRule(ctx, admin, r.ID); hitl.ErrorCode(err) != hitl.EConflict || !strings.Contains(hitl.ErrorMessage(err), "already revoked at") {
		t.Fatalf("twice: %v", err)
	}
	if _, err := e.RevokeRule(ctx, admin, "rule_nope"); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("unknown: %v", err)
	}
}

// TestBadRules: each mistake is named by its field; only admins make rules.
func TestBadRules(t *testing.T) {
	e, c := ruled(t)
	now := c.Now()
	for _, tc := range []struct {
		req  hitl.RuleRequest
		path string
	}{
		{hitl.RuleRequest{ExpiresAt: now.Add(time.Hour)}, "/tool"},
		{hitl.RuleRequest{Tool: "a", Template: "b", ExpiresAt: now.Add(time.Hour)}, "/template"},
		{hitl.RuleRequest{Tool: "a"}, "/expires_at"},
		{hitl.RuleRequest{Tool: "a", ExpiresAt: now.Add(-time.Hour)}, "/expires_at"},
		{hitl.RuleRequest{Tool: "a", ExpiresAt: now.Add(8 * 24 * time.Hour)}, "/expires_at"},
		{hitl.RuleRequest{Tool: "a", ExpiresAt: now.Add(time.Hour), ArgsSchema: json.RawMessage(`{"type":"nope"}`)}, "/args_schema"},
		{hitl.RuleRequest{Tool: "a", ExpiresAt: now.Add(time.Hour), Args: json.RawMessage(`[1]`)}, "/args"},
	} {
		_, err := e.CreateRule(ctx, aliceAdmin, &tc.req)
		var he *hitl.Error
		if !asError(err, &he) || he.Code != hitl.EInvalid || len(he.Fields) == 0 || he.Fields[0].Path != tc.path {
			t.Errorf("%+v: %v, want invalid at %s", tc.req, err, tc.path)
		}
	}
	if _, err := e.CreateRule(ctx, responder("bob"), &hitl.RuleRequest{Tool: "a", ExpiresAt: now.Add(time.Hour)}); hitl.ErrorCode(err) != hitl.EForbidden {
		t.Fatalf("non-admin: %v", err)
	}
}

// TestApprovingWithAllowForMakesTheRule: bob approves with allow_for 8h; the rule, his, covers
// the same tool, agent and arguments; the next such call is approved by it, another not. A
// rejection with allow_for, a bad duration and a vote with allow_for are refused and record
// nothing.
func TestApprovingWithAllowForMakesTheRule(t *testing.T) {
	e, c := ruled(t)
	first := create(t, e, deployCall("staging"))
	bad := []*hitl.ResponseRequest{
		{Response: json.RawMessage(`{"decision":"reject"}`), AllowFor: "8h"},
		{Response: json.RawMessage(`{"decision":"approve"}`), AllowFor: "soon"},
		{Response: json.RawMessage(`{"decision":"approve"}`), AllowFor: "800h"},
		{Response: json.RawMessage(`{"decision":"approve"}`), AllowFor: "8h", AllowArgs: "some"},
	}
	for _, req := range bad {
		if _, err := e.Respond(ctx, responder("bob"), first.ID, req); hitl.ErrorCode(err) != hitl.EInvalid {
			t.Fatalf("%+v: %v, want invalid", req, err)
		}
	}
	answered, err := e.Respond(ctx, responder("bob"), first.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"decision":"approve"}`), AllowFor: "8h"})
	if err != nil || answered.Status != hitl.StatusResponded {
		t.Fatalf("approve with allow_for: %v, %v", answered, err)
	}
	rules, err := e.Rules(ctx, responder("bob"))
	if err != nil || len(rules) != 1 {
		t.Fatalf("bob's rules: %+v, %v", rules, err)
	}
	r := rules[0]
	if r.Tool != "deploy" || r.Agent != "bot" || string(r.Args) != `{"env":"staging","replicas":2}` || r.Author != "bob" || !r.ExpiresAt.Equal(c.Now().Add(8*time.Hour)) {
		t.Fatalf("rule = %+v", r)
	}
	if next := create(t, e, deployCall("staging")); next.Status != hitl.StatusResponded || next.Rule.Author != "bob" {
		t.Fatalf("next: %s", next.Status)
	}
	if other := create(t, e, deployCall("prod")); other.Status != hitl.StatusPending {
		t.Fatalf("other arguments: %s", other.Status)
	}
	release(t, e, c)
	chain := create(t, e, &hitl.InquiryRequest{Template: "release", Steps: []hitl.ApprovalStep{{AssignedTo: []string{"alice"}}, {AssignedTo: []string{"bob"}}}})
	if _, err := e.Respond(ctx, responder("alice"), chain.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`), AllowFor: "1h"}); hitl.ErrorCode(err) != hitl.EInvalid {
		t.Fatalf("a chain's vote with allow_for: %v, want invalid", err)
	}
}

// TestAQuorumMakesARuleTogether: the approving voters of a quorum who asked for a standing
// approval make one rule together, with as many approvers, lasting the shortest time asked;
// it approves the next inquiry that needs that many approvals, not one that needs more.
func TestAQuorumMakesARuleTogether(t *testing.T) {
	e, c := ruled(t)
	keys(t, e, nil, "carol")
	if _, _, err := e.PutTemplate(ctx, admin, "rollout", &hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "Roll out?", RequestType: hitl.RequestApproval}}); err != nil {
		t.Fatal(err)
	}
	ask := func(required int) *hitl.Inquiry {
		return create(t, e, &hitl.InquiryRequest{Template: "rollout", AssignedTo: []string{"alice", "bob", "carol"}, Quorum: &hitl.Quorum{Required: required}})
	}
	first := ask(2)
	for name, allowFor := range map[string]string{"alice": "8h", "bob": "2h"} {
		if _, err := e.Respond(ctx, responder(name), first.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`), AllowFor: allowFor, AllowArgs: "any"}); err != nil {
			t.Fatalf("%s's vote: %v", name, err)
		}
	}
	rules, err := e.Rules(ctx, admin)
	if err != nil || len(rules) != 1 {
		t.Fatalf("rules after the verdict: %+v, %v", rules, err)
	}
	r := rules[0]
	if r.Template != "rollout" || r.Approvers != 2 || !r.ExpiresAt.Equal(c.Now().Add(2*time.Hour)) || (r.Author != "alice" && r.Author != "bob") {
		t.Fatalf("the quorum's rule = %+v", r)
	}
	if next := ask(2); next.Status != hitl.StatusResponded || next.Rule == nil || next.Rule.ID != r.ID || next.Receipt == "" {
		t.Fatalf("an inquiry needing two approvals: %s %+v", next.Status, next.Rule)
	}
	if more := ask(3); more.Status != hitl.StatusPending {
		t.Fatalf("an inquiry needing three approvals: %s, want pending", more.Status)
	}
	// Once it is revoked, a quorum whose voters did not ask makes none.
	if _, err := e.RevokeRule(ctx, admin, r.ID); err != nil {
		t.Fatal(err)
	}
	plain := ask(2)
	for _, name := range []string{"alice", "carol"} {
		if _, err := e.Respond(ctx, responder(name), plain.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`)}); err != nil {
			t.Fatalf("%s's vote: %v", name, err)
		}
	}
	if got, err := e.Inquiry(ctx, admin, plain.ID); err != nil || got.Status != hitl.StatusResponded {
		t.Fatalf("the plain quorum: %v, %v", got, err)
	}
	if rules, _ := e.Rules(ctx, admin); len(rules) != 1 {
		t.Fatalf("%d rules after a quorum that asked for none", len(rules))
	}
}
