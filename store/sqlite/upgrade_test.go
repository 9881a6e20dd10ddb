package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/storetest"
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

func TestUpgrades(t *testing.T) {
	storetest.RunUpgrades(t, olderDatabase, false)
}

// olderDatabase is a database that a hitl at version left (storetest.Older).
func olderDatabase(t *testing.T, version int64) storetest.Older {
	db, path := migratedTo(t, version)
	return storetest.Older{Dialect: dialect, DB: db, Open: func() (hitl.Store, error) { return Open(context.Background(), path) }}
}

// A database another hitl migrated is refused, not served or half migrated.
func TestMigratedElsewhere(t *testing.T) {
	storetest.RunMigratedElsewhere(t, olderDatabase)
}

// migratedTo is a new database file with the migrations up to version applied: the state of
// a database that an older hitl left, for a test of the migrations after it.
func migratedTo(t *testing.T, version int64) (*sql.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := migrations(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(context.Background(), version); err != nil {
		t.Fatal(err)
	}
	return db, path
}
