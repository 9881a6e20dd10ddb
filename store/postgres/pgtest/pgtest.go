// Package pgtest gives tests a fresh PostgreSQL schema of their own on the database named by
// HITL_TEST_POSTGRES_URL. Under CI (CI=true) a missing or unreachable database fails the
// test; elsewhere the test is skipped with a message that says how to run it.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable that points the tests at a PostgreSQL database.
const EnvURL = "HITL_TEST_POSTGRES_URL"

const howTo = "set " + EnvURL + "=postgres://postgres@127.0.0.1:5432/postgres to run the PostgreSQL tests"

func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("PostgreSQL tests cannot run in CI: %s (%s)", why, howTo)
	}
	t.Skipf("PostgreSQL tests skipped: %s; %s", why, howTo)
}

// Schema creates a schema that the test drops when it ends, and returns a URL whose
// connections use it.
func Schema(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		unavailable(t, EnvURL+" is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		unavailable(t, "cannot connect: "+err.Error())
	}
	defer conn.Close(context.Background())
	b := make([]byte, 6)
	rand.Read(b)
	schema := "hitl_test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
