package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// terminal is `hitl respond` running on a real pseudo-terminal, as a person at a keyboard
// sees it: the test types keys and reads the screen.
type terminal struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	seen bytes.Buffer
	done chan error
	// drained closes when the screen has everything the command wrote: the read after its
	// exit fails only once the output is read.
	drained chan struct{}
}

func respondOnTerminal(t *testing.T, id int64) *terminal {
	t.Helper()
	cmd := exec.Command(os.Args[0], "respond", strconv.FormatInt(id, 10))
	// GORACE: under -race, the terminal library's input reader reads its file descriptor
	// while the library closes it at the end of the form (a race inside charm's cancelreader,
	// not in hitl); the race detector's exit status would hide the one this test checks.
	cmd.Env = append(os.Environ(), "HITL_TEST_RUN_MAIN=1", "TERM=xterm-256color", "ACCESSIBLE=", "GORACE=exitcode=0")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, cmd: cmd, tty: tty, done: make(chan error, 1), drained: make(chan struct{})}
	go func() {
		defer close(term.drained)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			term.mu.Lock()
			term.seen.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { term.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		tty.Close()
	})
	return term
}

func (term *terminal) screen() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.seen.String()
}

// waitFor waits until the screen shows text.
func (term *terminal) waitFor(text string) {
	term.t.Helper()
	testserver.Eventually(term.t, 10*time.Second, "the terminal to show "+strconv.Quote(text), func() bool {
		return strings.Contains(term.screen(), text)
	})
}

func (term *terminal) typeKeys(keys string) {
	term.t.Helper()
	if _, err := term.tty.WriteString(keys); err != nil {
		term.t.Fatal(err)
	}
}

// exit waits for the command to end and returns its exit status.
func (term *terminal) exit() int {
	term.t.Helper()
	err := testserver.Receive(term.t, term.done, 10*time.Second, "hitl respond to exit")
	select {
	case <-term.drained:
	case <-time.After(10 * time.Second):
		term.t.Fatal("hitl respond exited but its output never ended")
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	term.t.Fatal(err)
	return -1
}

func askVenue(t *testing.T, admin *client.Client) int64 {
	t.Helper()
	inq, _, err := admin.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: "Which venue?", Context: json.RawMessage(`{"guests": 40}`),
		Options: []hitl.Option{{Value: "hall"}, {Value: "garden", Label: "The garden"}, {Value: "roof"}}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return inq.ID
}

// On a terminal the form reads keys, not lines: arrow down and Enter choose the second option.
// What was asked comes first, as hitl show prints it; the choice stays in view on the comment
// page after it, as an approval's does; and the last line says what was sent. The comment goes
// beside the answer, as hitl respond --comment sends it.
func TestRespondFormOnATerminal(t *testing.T) {
	admin, _ := startServer(t)
	id := askVenue(t, admin)
	term := respondOnTerminal(t, id)
	term.waitFor("roof")
	if screen := term.screen(); !regexp.MustCompile(`(?s)Prompt +Which venue\?.*Context:\s+\{\s+"guests": 40\s+\}.*roof`).MatchString(screen) {
		t.Fatalf("the context is not shown before the question:\n%s", screen)
	}
	term.typeKeys("\x1b[B") // arrow down
	term.typeKeys("\r")     // Enter
	term.waitFor("You chose: The garden")
	term.waitFor("Comment (optional)")
	term.typeKeys("near the trees\r")
	if code := term.exit(); code != 0 {
		t.Fatalf("exit %d; the screen:\n%s", code, term.screen())
	}
	if !strings.Contains(term.screen(), `Sent: The garden, with the comment "near the trees"`) {
		t.Fatalf("the form does not say what was sent:\n%s", term.screen())
	}
	inq, err := admin.Inquiry(context.Background(), id)
	if err != nil || inq.Status != hitl.StatusResponded || string(inq.Response) != `"garden"` || inq.Comment == nil || *inq.Comment != "near the trees" {
		t.Fatalf("after arrow down, Enter and a comment: %+v, %v", inq, err)
	}
}

// A selection's comment may be left empty, and then the sent line is the choice alone.
func TestRespondFormOnATerminalWithoutAComment(t *testing.T) {
	admin, _ := startServer(t)
	id := askVenue(t, admin)
	term := respondOnTerminal(t, id)
	term.waitFor("roof")
	term.typeKeys("\r") // the first option
	term.waitFor("You chose: hall")
	term.typeKeys("\r")
	if code := term.exit(); code != 0 || !strings.Contains(term.screen(), "Sent: hall\r\n") {
		t.Fatalf("exit %d; the screen:\n%s", code, term.screen())
	}
	inq, err := admin.Inquiry(context.Background(), id)
	if err != nil || string(inq.Response) != `"hall"` || inq.Comment != nil {
		t.Fatalf("answered: %+v, %v", inq, err)
	}
}

// The full-screen approval form speaks in words: the prompt, Approve / Reject, and a comment
// box that says it is optional — not the schema's field names.
func TestApprovalFormOnATerminalUsesTitles(t *testing.T) {
	admin, _ := startServer(t)
	inq, _, err := admin.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: "Deploy v2.5.0?", RequestType: hitl.RequestApproval}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	term := respondOnTerminal(t, inq.ID)
	term.waitFor("Reject")
	if screen := term.screen(); !strings.Contains(screen, "Deploy v2.5.0?") || !strings.Contains(screen, "Approve") || strings.Contains(screen, "approved") {
		t.Fatalf("the approval form:\n%s", screen)
	}
	term.typeKeys("\x1b[D\r") // Reject is highlighted first, so Enter alone never approves; ← Approve, Enter
	term.waitFor("Comment (optional)")
	term.waitFor("You chose: Approve")
	term.typeKeys("fine\r")
	if code := term.exit(); code != 0 {
		t.Fatalf("exit %d; the screen:\n%s", code, term.screen())
	}
	if !strings.Contains(term.screen(), `Sent: approved, with the comment "fine"`) {
		t.Fatalf("the form does not say what was sent:\n%s", term.screen())
	}
	got, err := admin.Inquiry(context.Background(), inq.ID)
	if err != nil || string(got.Response) != `{"approved":true,"comment":"fine"}` || got.Comment == nil || *got.Comment != "fine" {
		t.Fatalf("answered %s, comment %v, %v", got.Response, got.Comment, err)
	}
}

// A signal never answers: SIGTERM, SIGHUP and Ctrl-C close the form, send nothing, and say so.
func TestRespondFormStoppedBySignalSendsNothing(t *testing.T) {
	admin, _ := startServer(t)
	for _, tc := range []struct {
		name string
		stop func(*terminal)
		code int
		says string
	}{
		{"SIGTERM", func(term *terminal) { term.cmd.Process.Signal(syscall.SIGTERM) }, 143, "stopped by SIGTERM"},
		{"SIGHUP", func(term *terminal) { term.cmd.Process.Signal(syscall.SIGHUP) }, 129, "stopped by SIGHUP"},
		{"Ctrl-C", func(term *terminal) { term.typeKeys("\x03") }, 130, "stopped by SIGINT"},
		{"Ctrl-C on the comment page", func(term *terminal) {
			term.typeKeys("\r")
			term.waitFor("You chose: hall")
			term.typeKeys("half a comm\x03")
		}, 130, "stopped by SIGINT"},
	} {
		id := askVenue(t, admin)
		term := respondOnTerminal(t, id)
		term.waitFor("roof")
		tc.stop(term)
		if code := term.exit(); code != tc.code || !strings.Contains(term.screen(), tc.says) || !strings.Contains(term.screen(), "nothing was sent") {
			t.Errorf("%s: exit %d (want %d); the screen:\n%s", tc.name, code, tc.code, term.screen())
		}
		inq, err := admin.Inquiry(context.Background(), id)
		if err != nil || inq.Status != hitl.StatusPending {
			t.Errorf("%s: the inquiry after the form was stopped: %+v, %v", tc.name, inq, err)
		}
	}
}

// /dev/null is a character device, not a terminal: with no answer, respond says it expected
// one and exits 2 instead of drawing a form on it.
func TestRespondWithoutATerminalExpectsAnAnswer(t *testing.T) {
	admin, _ := startServer(t)
	id := askVenue(t, admin)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	// A process of its own: a form drawn on /dev/null would never end.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "respond", strconv.FormatInt(id, 10))
	cmd.Env = append(os.Environ(), "HITL_TEST_RUN_MAIN=1", "ACCESSIBLE=")
	var errOut bytes.Buffer
	cmd.Stdin, cmd.Stderr = devnull, &errOut
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitUsage || !strings.Contains(errOut.String(), "expected an answer") {
		t.Fatalf("respond with /dev/null as input: %v, %q", err, errOut.String())
	}
	inq, err := admin.Inquiry(context.Background(), id)
	if err != nil || inq.Status != hitl.StatusPending {
		t.Fatalf("the inquiry: %+v, %v", inq, err)
	}
}
