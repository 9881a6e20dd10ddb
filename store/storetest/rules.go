package storetest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hitl-dev/hitl"
)

// testRules: rules are listed oldest first with their whole document; an id is stored once;
// a rule is revoked once (EConflict after), an unknown one is not found.
func testRules(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	list, err := s.Rules(ctx)
	must(t, err)
	if len(list) != 0 {
		t.Fatalf("rules of an empty store: %+v", list)
	}
	insert := func(r *hitl.Rule) error { return s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertRule(r) }) }
	second := &hitl.Rule{ID: "rule_b", RuleRequest: hitl.RuleRequest{Template: "release", ExpiresAt: base.Add(3600e9)}, Author: "ada", Approvers: 2, CreatedAt: base.Add(60e9)}
	first := &hitl.Rule{ID: "rule_a", RuleRequest: hitl.RuleRequest{Tool: "deploy", Agent: "bot", Args: json.RawMessage(`{"env":"staging"}`),
		ArgsSchema: json.RawMessage(`{"type":"object"}`), Shadow: true, ExpiresAt: base.Add(3600e9)}, Author: "bob", Approvers: 1, CreatedAt: base, Matched: 7}
	must(t, insert(second))
	must(t, insert(first))
	if err := insert(first); hitl.ErrorCode(err) != hitl.EConflict {
		t.Fatalf("the same id twice: %v, want conflict", err)
	}
	list, err = s.Rules(ctx)
	must(t, err)
	if len(list) != 2 || list[0].ID != "rule_a" || list[1].ID != "rule_b" {
		t.Fatalf("rules oldest first: %+v", list)
	}
	got := list[0]
	if got.Tool != "deploy" || got.Agent != "bot" || string(got.Args) != `{"env":"staging"}` || string(got.ArgsSchema) != `{"type":"object"}` ||
		!got.Shadow || got.Author != "bob" || got.Approvers != 1 || !got.ExpiresAt.Equal(first.ExpiresAt) || got.Matched != 0 || got.RevokedAt != nil {
		t.Fatalf("stored rule %+v, want %+v (without matched)", got, first)
	}
	revoked := *got
	at := base.Add(120e9)
	revoked.RevokedAt, revoked.RevokedBy = &at, "root"
	revoke := func(r *hitl.Rule) error { return s.Update(ctx, func(tx hitl.Tx) error { return tx.RevokeRule(r) }) }
	must(t, revoke(&revoked))
	if err := revoke(&revoked); hitl.ErrorCode(err) != hitl.EConflict {
		t.Fatalf("revoked twice: %v, want conflict", err)
	}
	if err := revoke(&hitl.Rule{ID: "rule_none", RevokedAt: &at}); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("unknown rule: %v, want not found", err)
	}
	list, err = s.Rules(ctx)
	must(t, err)
	if list[0].RevokedAt == nil || !list[0].RevokedAt.Equal(at) || list[0].RevokedBy != "root" || list[1].RevokedAt != nil {
		t.Fatalf("after revoking: %+v", list)
	}
}
