// Package pgtest gives tests a fresh PostgreSQL schema of their own on the database named by
// HITL_TEST_POSTGRES_URL. Under CI (CI=true) a missing or unreachable database fails the
// test; elsewhere the test is skipped with a message that says how to run it.
package pgtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hitl-dev/hitl/internal/testskip"
	"github.com/hitl-dev/hitl/store/postgres"
)

// EnvURL names the variable that points the tests at a PostgreSQL database.
const EnvURL = "HITL_TEST_POSTGRES_URL"

const howTo = "set " + EnvURL + "=postgres://postgres@127.0.0.1:5432/postgres to run them"

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
	url, drop, err := postgres.TempSchema(ctx, base, "hitl_test_")
	if err != nil {
		unavailable(t, err.Error())
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("dropping the test schema: %v", err)
		}
	})
	return url
}

func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("PostgreSQL tests cannot run in CI: %s (%s)", why, howTo)
	}
	testskip.Skip(t, "PostgreSQL tests ("+why+"): "+howTo)
}
