package engine_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
)

// TestClaimChoices: what a person may do with a claim follows the rules of Claim and Release,
// on the engine's clock: a claim whose time has passed on it is no one's, though its timer
// has not fired yet.
func TestClaimChoices(t *testing.T) {
	c := clock.NewManual(time.Now().UTC().Truncate(time.Second))
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), timersHeld{c})
	defer stop()
	asker := &hitl.Principal{Name: "ops-bot", Roles: []string{hitl.RoleAgent, hitl.RoleResponder}, Groups: []string{"ops"}}
	yes := true
	inq, _, err := e.CreateInquiry(ctx, asker, &hitl.InquiryRequest{Prompt: "which?", AssignedTo: []string{"group:ops"}, ExcludeRequester: &yes}, "")
	if err != nil {
		t.Fatal(err)
	}
	alice, bob, carol := responder("alice", "ops"), responder("bob", "ops"), responder("carol")
	choices := func(p *hitl.Principal) engine.ClaimChoices {
		t.Helper()
		cur, err := e.Inquiry(ctx, admin, inq.ID)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.ClaimChoices(ctx, p, cur)
		if err != nil {
			t.Fatal(err)
		}
		if !got.At.Equal(c.Now()) {
			t.Fatalf("choices at %v, want the engine's clock %v", got.At, c.Now())
		}
		return got
	}
	want := func(who string, got engine.ClaimChoices, claim, release, brk bool) {
		t.Helper()
		if got.Claim != claim || got.Release != release || got.Break != brk {
			t.Errorf("%s: %+v, want claim %v, release %v, break %v", who, got, claim, release, brk)
		}
	}
	want("alice, unclaimed", choices(alice), true, false, false)
	want("carol, not assigned", choices(carol), false, false, false)
	want("the asker, kept from answering", choices(asker), false, false, false)

	if _, err := e.Claim(ctx, alice, inq.ID, seconds(60)); err != nil {
		t.Fatal(err)
	}
	want("alice, holding it", choices(alice), false, true, false)
	want("bob, while alice holds it", choices(bob), false, false, false)
	want("an admin, while alice holds it", choices(admin), false, false, true)

	// The engine's clock passes the claim's end; its timer has not fired.
	c.Advance(61 * time.Second)
	want("bob, after the claim's end", choices(bob), true, false, false)
	want("alice, after the claim's end", choices(alice), true, false, false)

	if _, err := e.Respond(ctx, bob, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"mine"`)}); err != nil {
		t.Fatal(err)
	}
	want("bob, once answered", choices(bob), false, false, false)
}
