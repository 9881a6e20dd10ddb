package engine_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/pgtest"
	"github.com/hitl-dev/hitl/store/postgres"
)

// A sign-in through the identity provider makes the person and their sign-in key, with the
// token's groups (those that are no group names left out) and the admin role for the admin
// group; the next sign-in with the same groups keeps the key, one with other groups replaces
// it (and ends the sessions that spoke with the old groups), and what an admin set for the
// person stays.
func TestSignInWithSSO(t *testing.T) {
	onBothStores(t, testSignInWithSSO)
}

// onBothStores runs test on an engine over a SQLite file and over a PostgreSQL schema.
func onBothStores(t *testing.T, test func(*testing.T, *engine.Engine)) {
	t.Run("sqlite", func(t *testing.T) {
		e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
		defer stop()
		test(t, e)
	})
	t.Run("postgres", func(t *testing.T) {
		st, err := postgres.Open(ctx, pgtest.Schema(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		e := engine.New(st, engine.Options{})
		if err := e.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer e.Stop(ctx)
		test(t, e)
	})
}

func testSignInWithSSO(t *testing.T, e *engine.Engine) {
	in := engine.SSOSignIn{Name: "ann@example.com", DisplayName: "Ann Lee", Email: "ann@example.com",
		Groups: []string{"ops", "/full/path", "ops", "hitl-admins"}, AdminGroup: "hitl-admins"}
	first, err := e.SignInWithSSO(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(first.Roles, []string{hitl.RoleAdmin, hitl.RoleResponder}) || !slices.Equal(first.Groups, []string{"hitl-admins", "ops"}) ||
		!slices.Equal(first.Dismissed, []string{"/full/path"}) {
		t.Fatalf("access: %+v", first)
	}
	p, err := e.AuthenticateSession(ctx, first.Session)
	if err != nil || p.Name != "ann@example.com" || !engine.IsSignInKey(p.KeyID) || !slices.Equal(p.Groups, first.Groups) {
		t.Fatalf("the session's principal: %+v, %v", p, err)
	}
	person, err := e.Person(ctx, admin, "ann@example.com")
	if err != nil || person.DisplayName != "Ann Lee" || person.Email != "ann@example.com" {
		t.Fatalf("the person: %+v, %v", person, err)
	}
	// The changes are audit events, by the person, as an admin's changes are.
	evs, err := e.Events(ctx, admin, hitl.EventFilter{Types: []string{hitl.EventKeyCreated, hitl.EventPersonUpdated}, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var audited []string
	for _, ev := range evs {
		if ev.Actor == "ann@example.com" {
			audited = append(audited, ev.Type)
		}
	}
	if !slices.Equal(audited, []string{hitl.EventKeyCreated, hitl.EventPersonUpdated}) {
		t.Fatalf("the sign-in's audit events: %v", audited)
	}
	if _, err := e.PutPerson(ctx, admin, "ann@example.com", &hitl.PersonRequest{DisplayName: "Ann Lee", Email: "ann@example.com", SlackUserID: "U0ANN"}); err != nil {
		t.Fatal(err)
	}

	second, err := e.SignInWithSSO(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := e.AuthenticateSession(ctx, second.Session)
	if err != nil || p2.KeyID != p.KeyID {
		t.Fatalf("the same groups made another key: %+v, %v (first %s)", p2, err, p.KeyID)
	}
	if _, err := e.AuthenticateSession(ctx, first.Session); err != nil {
		t.Fatalf("a second sign-in with the same groups ended the first: %v", err)
	}

	in.Groups = []string{"finance"}
	third, err := e.SignInWithSSO(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	p3, err := e.AuthenticateSession(ctx, third.Session)
	if err != nil || p3.KeyID == p.KeyID || !slices.Equal(p3.Roles, []string{hitl.RoleResponder}) || !slices.Equal(p3.Groups, []string{"finance"}) {
		t.Fatalf("after the groups changed: %+v, %v", p3, err)
	}
	if _, err := e.AuthenticateSession(ctx, first.Session); hitl.ErrorCode(err) != hitl.EUnauthorized {
		t.Fatalf("a session with the old groups still works: %v", err)
	}
	if keys := unrevokedKeys(t, e, "ann@example.com"); len(keys) != 1 {
		t.Fatalf("ann has %d unrevoked keys", len(keys))
	}
	// Sign-ins at the same moment may each make a key; the next sign-in leaves one.
	done := make(chan error, 4)
	for range 4 {
		go func() { _, err := e.SignInWithSSO(ctx, in); done <- err }()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	in.Groups = []string{"finance", "ops"}
	if _, err := e.SignInWithSSO(ctx, in); err != nil {
		t.Fatal(err)
	}
	if keys := unrevokedKeys(t, e, "ann@example.com"); len(keys) != 1 || !slices.Equal(keys[0].Groups, in.Groups) {
		t.Fatalf("after sign-ins at once and new groups: %+v", keys)
	}
	if person, _ := e.Person(ctx, admin, "ann@example.com"); person.SlackUserID != "U0ANN" {
		t.Fatalf("a sign-in dropped what the admin set: %+v", person)
	}
}

// A name the provider gives that an admin's key already holds with other powers, or that is
// no name hitl can use, signs nobody in and changes nothing.
func TestSignInWithSSORefused(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	if _, err := e.CreateKey(ctx, admin, &hitl.KeyRequest{Name: "bob@example.com", Roles: []string{hitl.RoleAgent}}); err != nil {
		t.Fatal(err)
	}
	before, err := e.Keys(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.SignInWithSSO(ctx, engine.SSOSignIn{Name: "bob@example.com", Email: "bob@example.com", Groups: []string{"ops"}})
	if hitl.ErrorCode(err) != hitl.EConflict || !strings.Contains(hitl.ErrorMessage(err), "already has an API key") {
		t.Fatalf("a name an admin's agent key holds: %v", err)
	}
	_, err = e.SignInWithSSO(ctx, engine.SSOSignIn{Name: "Ann Lee (ops)"})
	if hitl.ErrorCode(err) != hitl.EInvalid || !strings.Contains(hitl.ErrorMessage(err), "not a name hitl can use") {
		t.Fatalf("a name with spaces: %v", err)
	}
	after, err := e.Keys(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("refused sign-ins made keys: %d before, %d after", len(before), len(after))
	}
	people, err := e.People(ctx, admin)
	if err != nil || len(people) != 0 {
		t.Fatalf("refused sign-ins made people: %+v, %v", people, err)
	}
}

func unrevokedKeys(t *testing.T, e *engine.Engine, name string) []*hitl.Key {
	t.Helper()
	keys, err := e.Keys(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	var out []*hitl.Key
	for _, k := range keys {
		if k.Name == name && k.RevokedAt == nil {
			out = append(out, k)
		}
	}
	return out
}
