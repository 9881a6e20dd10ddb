package postgres

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/testskip"
)

func TestMain(m *testing.M) { os.Exit(testskip.Main(m)) }

// baseForTest is the database HITL_TEST_POSTGRES_URL names; without it the test is skipped
// (and fails under CI, which must run it).
func baseForTest(t *testing.T) string {
	base := os.Getenv("HITL_TEST_POSTGRES_URL")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("HITL_TEST_POSTGRES_URL is not set; CI must run the PostgreSQL tests")
		}
		testskip.Skip(t, "PostgreSQL tests (HITL_TEST_POSTGRES_URL is not set): set HITL_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres to run them")
	}
	return base
}

// schemaForTest is pgtest.Schema for this package's own tests (pgtest imports this package).
func schemaForTest(t *testing.T) string {
	url, drop, err := TempSchema(context.Background(), baseForTest(t), "hitl_test_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { drop() })
	return url
}

// TestAFailedChangeDoesNotBreakTheNext drives one writer transaction by hand on a fresh
// connection (nothing prepared yet): a change fails on a database error, and the next change
// uses statements the connection has never prepared. It must work, and commit only the
// second change.
func TestAFailedChangeDoesNotBreakTheNext(t *testing.T) {
	ctx := context.Background()
	url := schemaForTest(t)
	s, err := Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	now := time.Now().UTC().Truncate(time.Microsecond)
	tx := newTxn(ctx, conn)
	tx.beginChange()
	bad := &hitl.Inquiry{Status: hitl.StatusPending, Prompt: "x", RequestType: hitl.RequestInput, Session: "missing",
		CreatedBy: "a", AssignedTo: []string{}, Metadata: map[string]string{}, CreatedAt: now, UpdatedAt: now}
	if err := tx.InsertInquiry(bad); err == nil {
		t.Fatal("an inquiry in a missing session was inserted")
	}
	tx.endChange(false)

	tx.beginChange()
	if err := tx.InsertSession(&hitl.Session{Key: "run", Status: hitl.SessionRunning, CreatedBy: "a", Metadata: map[string]string{}, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatalf("the change after a failed one: %v", err)
	}
	if _, err := tx.HasAdminKey(); err != nil {
		t.Fatalf("the change after a failed one: %v", err)
	}
	tx.endChange(true)
	if _, err := conn.Exec(ctx, "COMMIT"); err != nil || tx.broken != nil {
		t.Fatalf("commit: %v, broken: %v", err, tx.broken)
	}
	var sessions, inquiries int
	if err := conn.QueryRow(ctx, "SELECT (SELECT COUNT(*) FROM sessions), (SELECT COUNT(*) FROM inquiries)").Scan(&sessions, &inquiries); err != nil {
		t.Fatal(err)
	}
	if sessions != 1 || inquiries != 0 {
		t.Fatalf("committed %d sessions and %d inquiries, want 1 and 0", sessions, inquiries)
	}
}
