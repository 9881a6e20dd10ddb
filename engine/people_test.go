package engine_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
)

// TestPrincipalBySlackUser: a Slack user is the person whose slack_user_id it is, with the
// roles and groups of that name's keys; nobody, a person without a key, and a person whose
// keys are all revoked are refused in words.
func TestPrincipalBySlackUser(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	for name, slackID := range map[string]string{"ada": "U0ADA", "bob": "U0BOB", "cy": "U0CY"} {
		if _, err := e.PutPerson(ctx, admin, name, &hitl.PersonRequest{SlackUserID: slackID}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.CreateKey(ctx, admin, &hitl.KeyRequest{Name: "ada", Roles: []string{hitl.RoleResponder}, Groups: []string{"sre"}}); err != nil {
		t.Fatal(err)
	}
	bobKey, err := e.CreateKey(ctx, admin, &hitl.KeyRequest{Name: "bob", Roles: []string{hitl.RoleResponder}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.RevokeKey(ctx, admin, bobKey.ID); err != nil {
		t.Fatal(err)
	}

	p, err := e.PrincipalBySlackUser(ctx, "U0ADA")
	if err != nil || p.Name != "ada" || !slices.Equal(p.Roles, []string{hitl.RoleResponder}) || !slices.Equal(p.Groups, []string{"sre"}) {
		t.Fatalf("U0ADA: %+v, %v; want ada, responder, group sre", p, err)
	}
	for _, id := range []string{"U0BOB", "U0CY", "U0EVE", ""} {
		_, err := e.PrincipalBySlackUser(ctx, id)
		if hitl.ErrorCode(err) != hitl.ENotFound || !strings.Contains(hitl.ErrorMessage(err), "not mapped to a hitl person with a key") {
			t.Errorf("%q: %v, want not found in words", id, err)
		}
	}

	// One Slack user is one person: a second person with ada's id is refused, ada keeps it.
	_, err = e.PutPerson(ctx, admin, "eve", &hitl.PersonRequest{SlackUserID: "U0ADA"})
	if hitl.ErrorCode(err) != hitl.EConflict || !strings.Contains(hitl.ErrorMessage(err), "ada already has the Slack id U0ADA") {
		t.Errorf("a second person with U0ADA: %v", err)
	}
	if _, err := e.PutPerson(ctx, admin, "ada", &hitl.PersonRequest{SlackUserID: "U0ADA", Email: "ada@example.com"}); err != nil {
		t.Errorf("ada set again with her own Slack id: %v", err)
	}
}
