package sqlite

import (
	"context"
	"fmt"
	"testing"
)

// Migration 7 gives the names known before it their identities: key holders in the order
// their first key was created, then people without a key.
func TestIdentitiesBackfilled(t *testing.T) {
	ctx := context.Background()
	db, path := migratedTo(t, 6)
	for i, name := range []string{"bob", "alice", "bob"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO api_keys (id, name, roles, groups, token_hash, created_at) VALUES (?, ?, '["responder"]', '[]', ?, ?)`,
			fmt.Sprint("key_", i), name, fmt.Sprint("hash-", i), i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO people (name, display_name, email, slack_user_id, channels, updated_at) VALUES ('carol', '', 'carol@example.com', '', '["email"]', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids, err := s.IdentityIDs(ctx, []string{"alice", "bob", "carol"})
	if err != nil || fmt.Sprint(ids) != "map[alice:2 bob:1 carol:3]" {
		t.Fatalf("identities after the migration: %v, %v", ids, err)
	}
	k, err := s.KeyByTokenHash(ctx, "hash-2")
	if err != nil || k.IdentityID != 1 {
		t.Fatalf("bob's second key: %+v, %v", k, err)
	}
}
