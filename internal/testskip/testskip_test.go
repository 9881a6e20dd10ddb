package testskip

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// A person who runs go test ./... on a terminal sees, without -v, which suites were skipped
// and why: go test itself prints nothing of a passing package but its "ok" line.
func TestGoTestOnATerminalSaysWhatWasSkipped(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	cmd := exec.Command(goBin, "test", "-count=1", "./testdata/skipping")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var screen bytes.Buffer
	io.Copy(&screen, tty) // until go test exits and the terminal closes
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go test: %v\n%s", err, screen.String())
	}
	out := strings.ReplaceAll(screen.String(), "\r\n", "\n")
	want := "skipped 2 tests: the demo suite (no database): set HITL_DEMO_DB to run it\n"
	if !strings.Contains(out, want) || !strings.Contains(out, "ok  \tgithub.com/hitl-dev/hitl/internal/testskip/testdata/skipping") {
		t.Fatalf("go test on a terminal printed:\n%s\nwant the line %q", out, want)
	}
}

func TestSummaryIsOneLinePerReason(t *testing.T) {
	mu.Lock()
	saved := skipped
	skipped = map[string]int{"b: set B": 1, "a: set A": 3}
	mu.Unlock()
	defer func() { mu.Lock(); skipped = saved; mu.Unlock() }()
	var b bytes.Buffer
	summary(&b)
	if got, want := b.String(), "skipped 3 tests: a: set A\nskipped 1 test: b: set B\n"; got != want {
		t.Fatalf("summary:\n%s\nwant:\n%s", got, want)
	}
}
