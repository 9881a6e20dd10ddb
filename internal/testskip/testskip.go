// Package testskip makes skipped suites visible without -v: a test skips through Skip with a
// reason, and the package's TestMain (Main) prints one line per reason at the end, so that
// `go test ./...` tells a newcomer which suites did not run and how to run them.
package testskip

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"
)

var (
	mu      sync.Mutex
	skipped = map[string]int{} // reason → tests skipped for it
)

// Skip skips the test for reason, which says what did not run and how to run it ("PostgreSQL
// tests: set HITL_TEST_POSTGRES_URL=…"), and counts it for Main's summary.
func Skip(t testing.TB, reason string) {
	t.Helper()
	mu.Lock()
	skipped[reason]++
	mu.Unlock()
	t.Skip(reason)
}

// Main runs the package's tests and returns the exit status for os.Exit, after one line per
// reason tests were skipped for. `go test ./...` shows a passing package's output to nobody,
// so the lines go to the terminal the tests run on when there is one, else to stderr (shown
// with -v, and in CI logs when a package fails).
func Main(m *testing.M) int {
	code := m.Run()
	out := io.Writer(os.Stderr)
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		out = tty
	}
	summary(out)
	return code
}

// summary writes one line per reason: "skipped 3 tests: PostgreSQL tests (…): set …".
func summary(w io.Writer) {
	mu.Lock()
	defer mu.Unlock()
	for _, reason := range slices.Sorted(maps.Keys(skipped)) {
		fmt.Fprintf(w, "skipped %d %s: %s\n", skipped[reason], plural(skipped[reason]), reason)
	}
}

func plural(n int) string {
	if n == 1 {
		return "test"
	}
	return "tests"
}
