package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/sqlite"
	"github.com/hitl-dev/hitl/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) (hitl.Store, error) {
		path := filepath.Join(t.TempDir(), "hitl.db")
		t.Cleanup(func() { checkSearchIndex(t, path) })
		return sqlite.Open(context.Background(), path)
	})
}

// checkSearchIndex checks that the search index (migration 32) indexes each inquiry's prompt
// as it stands, and nothing else: whatever a test wrote, removed or restored, its triggers
// kept the index in step. A removal they missed would leave the index holding a prompt the
// inquiries no longer do, which the integrity check finds.
func checkSearchIndex(t *testing.T, path string) {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("INSERT INTO inquiry_search (inquiry_search, rank) VALUES ('integrity-check', 1)"); err != nil {
		t.Errorf("the search index is out of step with the inquiries: %v", err)
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx hitl.Tx) error {
		return tx.InsertKey(&hitl.Key{ID: "k", Name: "n", Roles: []string{"agent"}, Groups: []string{}}, "h")
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = sqlite.Open(ctx, path) // migrations run again: nothing to do, nothing lost
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.KeyByTokenHash(ctx, "h"); err != nil {
		t.Fatalf("after reopening: %v", err)
	}
}

func TestDatabaseFilesAreOwnerOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hitl.db")
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, f := range []string{path, path + "-wal"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if mode := fi.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %o, want 600", filepath.Base(f), mode)
		}
	}
}

func TestOpenRefusesADirectory(t *testing.T) {
	if _, err := sqlite.Open(context.Background(), t.TempDir()); err == nil {
		t.Fatal("opening a directory as the database succeeded")
	}
}

func TestUseAfterCloseFailsCleanly(t *testing.T) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hitl.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for range 100 { // the late sends race the closed writer; none may hang
		err := s.Update(ctx, func(tx hitl.Tx) error { return nil })
		if hitl.ErrorCode(err) != hitl.EUnavailable {
			t.Fatalf("Update after Close: %v", err)
		}
		if _, err := s.Inquiry(ctx, 1); hitl.ErrorCode(err) != hitl.EUnavailable {
			t.Fatalf("read after Close: %v", err)
		}
	}
}

func TestTamperedLogIsFound(t *testing.T) {
	storetest.RunTamper(t, openTampered)
}

func TestTamperedStateIsFound(t *testing.T) {
	storetest.RunStateTamper(t, openTampered)
}

// openTampered opens a new store with a Tamperer of its database.
func openTampered(t *testing.T) (hitl.Store, storetest.Tamperer) {
	path := filepath.Join(t.TempDir(), "hitl.db")
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return s, storetest.SQLTamperer(func(stmt string, args ...any) error {
		_, err := db.Exec(stmt, args...)
		return err
	}, func(int) string { return "?" })
}
