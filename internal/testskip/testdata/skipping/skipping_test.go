// Package skipping is a suite that skips, for testskip's own test to run with go test.
package skipping

import (
	"os"
	"testing"

	"github.com/hitl-dev/hitl/internal/testskip"
)

func TestMain(m *testing.M) { os.Exit(testskip.Main(m)) }

func TestNeedsADatabase(t *testing.T) {
	testskip.Skip(t, "the demo suite (no database): set HITL_DEMO_DB to run it")
}

func TestAlsoNeedsADatabase(t *testing.T) {
	testskip.Skip(t, "the demo suite (no database): set HITL_DEMO_DB to run it")
}

func TestRuns(t *testing.T) {}
