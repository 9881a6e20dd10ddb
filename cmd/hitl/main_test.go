package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/buildinfo"
	"github.com/hitl-dev/hitl/internal/pgtest"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/internal/testskip"
)

// TestMain lets the test binary stand in for the hitl binary: with HITL_TEST_RUN_MAIN=1 it
// runs the program itself, so tests can start, kill and restart real server processes.
func TestMain(m *testing.M) {
	if os.Getenv("HITL_TEST_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(testskip.Main(m))
}

const adminToken = testserver.AdminToken

// cli runs the hitl command in-process and returns its exit status and output.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// cliResult is what a command run by cliAsync did.
type cliResult struct {
	code           int
	stdout, stderr string
}

// cliAsync runs the hitl command as cli does, in the background: for the commands that wait.
func cliAsync(t *testing.T, args ...string) <-chan cliResult {
	done := make(chan cliResult, 1)
	go func() {
		code, out, errOut := cli(t, args...)
		done <- cliResult{code, out, errOut}
	}()
	return done
}

// startServer runs a server in-process (loopback webhook receivers allowed) and points the
// CLI at it through HITL_URL and HITL_TOKEN; it returns the admin's client and the URL.
func startServer(t *testing.T) (*client.Client, string) {
	t.Helper()
	s := testserver.Start(t, testserver.AllowPrivate())
	t.Setenv("HITL_URL", s.URL)
	t.Setenv("HITL_TOKEN", s.AdminToken)
	t.Setenv("HITL_CREDENTIALS", filepath.Join(t.TempDir(), "credentials.json"))
	return s.Admin, s.URL
}

// pendingID waits until exactly one pending inquiry exists and returns it.
func pendingID(t *testing.T, c *client.Client) int64 {
	t.Helper()
	var id int64
	testserver.Eventually(t, 5*time.Second, "a pending inquiry", func() bool {
		page, err := c.Inquiries(context.Background(), client.ListOptions{Status: "pending"})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Data) == 1 {
			id = page.Data[0].ID
		}
		return id != 0
	})
	return id
}

func TestAskExitStatuses(t *testing.T) {
	admin, _ := startServer(t)
	ctx := context.Background()

	type result struct {
		code           int
		stdout, stderr string
	}
	askAsync := func(args ...string) chan result {
		ch := make(chan result, 1)
		go func() {
			code, out, errOut := cli(t, append([]string{"ask"}, args...)...)
			ch <- result{code, out, errOut}
		}()
		return ch
	}

	// Answered: exit 0, the answer as JSON on stdout.
	ch := askAsync("Deploy v2.5.0?", "--type", "approval", "--context", `{"version":"v2.5.0"}`, "--session", "ci-42")
	id := pendingID(t, admin)
	if code, _, errOut := cli(t, "respond", fmt.Sprint(id), "--approve", "--comment", "ship it"); code != 0 {
		t.Fatalf("respond: %d %s", code, errOut)
	}
	r := <-ch
	if r.code != exitOK || strings.TrimSpace(r.stdout) != `{"approved":true,"comment":"ship it"}` {
		t.Fatalf("answered ask: %d %q %q", r.code, r.stdout, r.stderr)
	}

	// Selection answered with a bare word.
	ch = askAsync("Which venue?", "--option", "hall", "--option", "garden")
	id = pendingID(t, admin)
	if code, _, errOut := cli(t, "respond", fmt.Sprint(id), "garden"); code != 0 {
		t.Fatalf("respond garden: %d %s", code, errOut)
	}
	if r := <-ch; r.code != exitOK || strings.TrimSpace(r.stdout) != `"garden"` {
		t.Fatalf("selection ask: %d %q %q", r.code, r.stdout, r.stderr)
	}

	// Cancelled: exit 4.
	ch = askAsync("Still needed?")
	id = pendingID(t, admin)
	if code, _, errOut := cli(t, "cancel", fmt.Sprint(id), "--reason", "obsolete"); code != 0 {
		t.Fatalf("cancel: %d %s", code, errOut)
	}
	if r := <-ch; r.code != exitCancelled || !strings.Contains(r.stderr, "obsolete") {
		t.Fatalf("cancelled ask: %d %q", r.code, r.stderr)
	}

	// Timed out under fail: exit 3; under a fallback: exit 0 with the fallback and a note.
	if code, _, errOut := cli(t, "ask", "Quick?", "--timeout", "1s"); code != exitTimeout || !strings.Contains(errOut, "timed out") {
		t.Fatalf("timed out ask: %d %q", code, errOut)
	}
	code, out, errOut := cli(t, "ask", "Quick?", "--timeout", "1s", "--fallback-policy", "complete_with_fallback", "--fallback", `"skip"`)
	if code != exitOK || strings.TrimSpace(out) != `"skip"` || !strings.Contains(errOut, "fallback") {
		t.Fatalf("fallback ask: %d %q %q", code, out, errOut)
	}

	// Bad usage: exit 2, before anything is sent. A server refusal: exit 1 with its detail.
	for _, args := range [][]string{{"ask"}, {"ask", "x", "--schema", "{not json"}, {"ask", "x", "--bogus"}, {"respond", "abc", "1"}, {"respond", "1", "--approve", "--reject"}, {"nope"}} {
		if code, _, errOut := cli(t, args...); code != exitUsage || errOut == "" {
			t.Errorf("%v: exit %d %q, want %d", args, code, errOut, exitUsage)
		}
	}
	if code, _, errOut := cli(t, "ask", "x", "--schema", `{"type":"nope"}`); code != exitUsage || !strings.Contains(errOut, "--schema is not a valid JSON Schema: at /type:") || strings.Contains(errOut, "goroutine") {
		t.Fatalf("refused ask: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "show", "99999"); code != exitError || !strings.Contains(errOut, "not found") {
		t.Fatalf("show unknown: %d %q", code, errOut)
	}
	page, err := admin.Inquiries(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 5 {
		t.Fatalf("%d inquiries stored, want the 5 asked", len(page.Data))
	}
}

func TestListShowKeysWhoami(t *testing.T) {
	admin, _ := startServer(t)
	ctx := context.Background()
	inq, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Rename the service?", Session: "s-1", AssignedTo: []string{"group:ops"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := cli(t, "ls", "--status", "pending")
	if code != 0 || !strings.Contains(out, "Rename the service?") || !strings.Contains(out, "s-1") {
		t.Fatalf("ls: %d %q", code, out)
	}
	if _, err := admin.Cancel(ctx, inq.ID, "renamed by hand"); err != nil {
		t.Fatal(err)
	}
	code, out, _ = cli(t, "ls", "--status", "cancelled")
	if code != 0 || !strings.Contains(out, "Rename the service?") {
		t.Fatalf("ls --status cancelled: %d %q", code, out)
	}
	inq, _, err = admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Rename the service?", Session: "s-1"}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Respond(ctx, inq.ID, json.RawMessage(`"yes"`), ""); err != nil {
		t.Fatal(err)
	}
	code, out, _ = cli(t, "ls", "--status", "answered")
	if code != 0 || !strings.Contains(out, " answered ") || strings.Contains(out, "responded") {
		t.Fatalf("ls --status answered shows the status in words: %d %q", code, out)
	}
	inq, _, err = admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Rename the service?", Session: "s-1", AssignedTo: []string{"group:ops"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ = cli(t, "show", fmt.Sprint(inq.ID))
	if code != 0 || !strings.Contains(out, "group:ops") || !strings.Contains(out, "pending") {
		t.Fatalf("show: %d %q", code, out)
	}
	code, out, _ = cli(t, "show", fmt.Sprint(inq.ID), "--json")
	var shown hitl.Inquiry
	if code != 0 || json.Unmarshal([]byte(out), &shown) != nil || shown.ID != inq.ID {
		t.Fatalf("show --json: %d %q", code, out)
	}
	code, token, errOut := cli(t, "keys", "create", "olga", "--role", "responder", "--group", "ops")
	if code != 0 || !strings.HasPrefix(strings.TrimSpace(token), "hitl_") {
		t.Fatalf("keys create: %d %q %q", code, token, errOut)
	}
	code, out, _ = cli(t, "keys", "ls")
	if code != 0 || !strings.Contains(out, "olga") || !regexp.MustCompile(`olga +\d+ +responder`).MatchString(out) || strings.Contains(out, strings.TrimSpace(token)) {
		t.Fatalf("keys ls: %d %q", code, out)
	}
	t.Setenv("HITL_TOKEN", strings.TrimSpace(token))
	// whoami is a table, as keys ls is, with the key the token belongs to; JSON with --json.
	code, out, errOut = cli(t, "whoami")
	if code != 0 || !regexp.MustCompile(`(?m)^NAME +IDENTITY +ROLES +GROUPS +KEY\nolga +[1-9]\d* +responder +ops +key_\S+\n$`).MatchString(out) ||
		!strings.Contains(errOut, "with the token from HITL_TOKEN") {
		t.Fatalf("whoami: %d %q %q", code, out, errOut)
	}
	code, out, _ = cli(t, "whoami", "--json")
	me := hitl.Caller{Principal: new(hitl.Principal)}
	if code != 0 || json.Unmarshal([]byte(out), &me) != nil || me.Name != "olga" || me.IdentityID == 0 || fmt.Sprint(me.Roles, me.Groups) != "[responder] [ops]" || !strings.HasPrefix(me.KeyID, "key_") {
		t.Fatalf("whoami --json: %d %q", code, out)
	}
	code, out, _ = cli(t, "ls", "--mine")
	if code != 0 || !strings.Contains(out, "Rename") {
		t.Fatalf("ls --mine: %d %q", code, out)
	}
	code, _, errOut = cli(t, "respond", fmt.Sprint(inq.ID), "42")
	if code != exitError || !strings.Contains(errOut, "does not fit") {
		t.Fatalf("invalid answer: %d %q", code, errOut)
	}
	t.Setenv("HITL_TOKEN", "revoked-or-wrong")
	if code, _, errOut := cli(t, "whoami"); code != exitError || !strings.Contains(errOut, "unknown or revoked") {
		t.Fatalf("bad token: %d %q", code, errOut)
	}
}

func TestTailPrintsNewEvents(t *testing.T) {
	admin, _ := startServer(t)
	ctx := context.Background()
	if _, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "old news"}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r, w := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(tctx, []string{"tail", "--type", "inquiry.created"}, strings.NewReader(""), w, io.Discard)
		w.Close()
	}()
	first := make(chan string, 1) // the first line tail prints; the others are read and dropped
	go func() {
		for lines := bufio.NewScanner(r); lines.Scan(); {
			select {
			case first <- lines.Text():
			default:
			}
		}
	}()
	// Ask until tail, once connected, prints one: it starts at the end of the log, so the
	// first line it prints must be a fresh one, never the old one.
	var line string
	testserver.Eventually(t, 10*time.Second, "tail to print an event", func() bool {
		if _, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "fresh news"}, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		select {
		case line = <-first:
			return true
		default:
			return false
		}
	})
	if !strings.Contains(line, "fresh news") || strings.Contains(line, "old news") || !strings.Contains(line, "inquiry.created") {
		t.Fatalf("tail printed %q", line)
	}
	cancel()
	<-done
}

// TestFirstStartWritesTheAdminKey runs `hitl serve` on an empty database: it prints the new
// admin token once and saves it, with the URL, in a credentials file only its owner can read,
// which the other commands then use with no set-up.
func TestFirstStartWritesTheAdminKey(t *testing.T) {
	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials.json")
	t.Setenv("HITL_CREDENTIALS", creds)
	t.Setenv("HITL_ADMIN_TOKEN", "")
	t.Setenv("HITL_URL", "")
	t.Setenv("HITL_TOKEN", "")
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, "hitl.db"), "--log-level", "error"}, strings.NewReader(""), &out, io.Discard)
	}()
	var saved struct{ URL, Token string }
	testserver.Eventually(t, 10*time.Second, "serve to write the credentials file", func() bool {
		b, err := os.ReadFile(creds)
		return err == nil && json.Unmarshal(b, &saved) == nil && saved.Token != ""
	})
	fi, err := os.Stat(creds)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file mode %v (%v), want 600", fi.Mode().Perm(), err)
	}
	if code, stdout, errOut := cli(t, "whoami"); code != 0 || !regexp.MustCompile(`(?m)^admin +\d+ +admin `).MatchString(stdout) {
		t.Fatalf("whoami with the saved credentials: %d %q %q", code, stdout, errOut)
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("serve exited %d", code)
	}
	if !strings.Contains(out.String(), saved.Token) || !strings.Contains(out.String(), saved.URL) {
		t.Fatalf("serve did not print the token and URL it saved:\n%s", out.String())
	}
}

// TestASecondServerKeepsTheFirstsCredentials: the credentials file is the CLI's for one
// server. A second server's first start replaces the token and says whose it replaced; a later
// start of a server whose key is not the one saved leaves the file alone; a start of the
// server whose key is saved, on another address, moves the URL on.
func TestASecondServerKeepsTheFirstsCredentials(t *testing.T) {
	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials.json")
	t.Setenv("HITL_CREDENTIALS", creds)
	t.Setenv("HITL_ADMIN_TOKEN", "")
	saved := func() (f struct{ URL, Token string }) {
		t.Helper()
		b, err := os.ReadFile(creds)
		if err != nil || json.Unmarshal(b, &f) != nil {
			t.Fatalf("the credentials file: %v %s", err, b)
		}
		return f
	}
	// start runs serve on db until it listens, then stops it; what it printed.
	start := func(db string) string {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		var out syncBuffer
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, db), "--log-level", "error"}, strings.NewReader(""), &out, io.Discard)
		}()
		testserver.Eventually(t, 10*time.Second, "serve to listen", func() bool { return strings.Contains(out.String(), "hitl listening on") })
		cancel()
		if code := <-done; code != exitOK {
			t.Fatalf("serve exited %d:\n%s", code, out.String())
		}
		return out.String()
	}
	start("first.db")
	first := saved()
	out := start("second.db")
	second := saved()
	if second.Token == first.Token || !strings.Contains(out, "It replaces the token saved there for the server at "+first.URL) {
		t.Fatalf("a second server's first start did not say it replaced the first's token:\n%s", out)
	}
	start("first.db") // its key is not the one saved now
	if f := saved(); f != second {
		t.Fatalf("the first server's start rewrote the second's credentials: %+v, was %+v", f, second)
	}
	out = start("second.db") // on another port: the URL moves on, with its token
	if f := saved(); f.Token != second.Token || !strings.Contains(out, "hitl listening on "+f.URL+" ") {
		t.Fatalf("the second server's start on another address: %+v, was %+v:\n%s", f, second, out)
	}
}

// TestServeProfiles: --pprof serves Go's profiles on an address of their own; an address it
// cannot have stops the start before anything is opened.
func TestServeProfiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HITL_CREDENTIALS", filepath.Join(dir, "credentials.json"))
	t.Setenv("HITL_ADMIN_TOKEN", adminToken)
	freeAddr := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().String()
	}
	addr, api := freeAddr(), freeAddr()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var errOut bytes.Buffer
	go func() {
		done <- run(ctx, []string{"serve", "--addr", api, "--db", filepath.Join(dir, "hitl.db"), "--log-level", "error", "--pprof", addr},
			strings.NewReader(""), io.Discard, &errOut)
	}()
	testserver.Eventually(t, 10*time.Second, "the profiles to be served", func() bool {
		resp, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode == http.StatusOK && strings.Contains(string(b), "goroutine profile:")
	})
	testserver.Eventually(t, 10*time.Second, "the server to be ready", func() bool {
		resp, err := http.Get("http://" + api + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}

	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	other := t.TempDir()
	code, _, busy := cli(t, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(other, "hitl.db"), "--pprof", held.Addr().String())
	if code != exitError || !strings.Contains(busy, "--pprof "+held.Addr().String()) {
		t.Fatalf("--pprof on a busy address: %d %q", code, busy)
	}
	if entries, _ := os.ReadDir(other); len(entries) != 0 {
		t.Fatalf("serve with a busy --pprof address created %v", entries)
	}
}

func TestMigrate(t *testing.T) {
	url := pgtest.Schema(t)
	if code, _, errOut := cli(t, "migrate", "--db", url); code != exitOK || !strings.Contains(errOut, "up to date") {
		t.Fatalf("migrate: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "migrate", "--db", url); code != exitOK {
		t.Fatalf("migrating again: %d %q", code, errOut)
	}
	if code, _, _ := cli(t, "migrate", "--db", filepath.Join(t.TempDir(), "hitl.db")); code != exitUsage {
		t.Fatalf("migrate of a SQLite file: exit %d, want %d", code, exitUsage)
	}
}

// TestVersion: `hitl version`, `hitl --version` and `hitl -v` print the same line: the module
// version, the VCS revision and the toolchain. A test binary records no VCS stamp, so it
// says "(devel)" and "revision unknown" rather than fail.
func TestVersion(t *testing.T) {
	bi := buildinfo.Get()
	want := fmt.Sprintf("hitl %s, revision %s, %s\n", bi.Version, bi.Revision, bi.GoVersion)
	if bi.Version != buildinfo.Devel || bi.Revision != buildinfo.Unknown {
		t.Logf("this test binary has build information: %+v", bi)
	}
	for _, args := range [][]string{{"version"}, {"--version"}, {"-v"}} {
		code, stdout, errOut := cli(t, args...)
		if code != exitOK || stdout != want || errOut != "" {
			t.Errorf("hitl %s: %d %q %q, want %q", strings.Join(args, " "), code, stdout, errOut, want)
		}
	}
	if code, _, _ := cli(t, "version", "extra"); code != exitUsage {
		t.Errorf("hitl version extra: exit %d, want %d", code, exitUsage)
	}
}

// TestServeOnABusyAddress: a second `hitl serve` on a busy address exits 1 with one line that
// names the address, and logs nothing else: it has opened no database and started no engine.
func TestServeOnABusyAddress(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	dir := t.TempDir()
	t.Setenv("HITL_CREDENTIALS", filepath.Join(dir, "credentials.json"))
	addr := held.Addr().String()
	code, stdout, errOut := cli(t, "serve", "--addr", addr, "--db", filepath.Join(dir, "hitl.db"), "--log-level", "debug")
	want := "hitl: " + addr + " is in use — is another hitl serve running? (--addr)\n"
	if code != exitError || errOut != want || stdout != "" {
		t.Fatalf("serve on a busy address: exit %d, stdout %q, stderr %q; want exit %d and stderr %q", code, stdout, errOut, exitError, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("serve on a busy address created %v", entries)
	}
}

// The CLI speaks to people: ages in one unit, the help of the command that was misused, a
// server that does not answer named with where its address came from, bare words as answers.
func TestCLIInWords(t *testing.T) {
	for d, want := range map[time.Duration]string{9 * time.Second: "9s", 3*time.Minute + 59*time.Second: "3m", 2*time.Hour + 5*time.Minute: "2h", 47 * time.Hour: "47h", 5*24*time.Hour + time.Hour: "5d", -time.Second: "0s"} {
		if got := span(d); got != want {
			t.Errorf("span(%s) = %q, want %q", d, got, want)
		}
	}
	if _, _, errOut := cli(t, "ask", "x", "--bogus"); !strings.Contains(errOut, "Run 'hitl ask --help' for usage.") {
		t.Errorf("a usage error names the command's own help: %q", errOut)
	}
	if _, _, errOut := cli(t, "keys", "create"); !strings.Contains(errOut, "hitl: expected the principal's name\nRun 'hitl keys create --help' for usage.") {
		t.Errorf("a usage error names the subcommand's help: %q", errOut)
	}
	if code, _, errOut := cli(t, "ls", "--status", "timed_outt"); code != exitUsage || !strings.Contains(errOut, "want pending, answered, timed-out or cancelled") {
		t.Errorf("ls --status with a status that is none: exit %d %q", code, errOut)
	}

	// Nothing listens on a port that was just closed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	t.Setenv("HITL_URL", down)
	t.Setenv("HITL_TOKEN", "hitl_anything")
	code, _, errOut := cli(t, "ls")
	if want := "cannot reach the hitl server at " + down + " — is `hitl serve` running? (the address is from HITL_URL"; code != exitError || !strings.Contains(errOut, want) || strings.Contains(errOut, "dial tcp") {
		t.Errorf("server down: exit %d %q, want %q", code, errOut, want)
	}
	t.Setenv("HITL_URL", "")
	t.Setenv("HITL_TOKEN", "")
	credentials := filepath.Join(t.TempDir(), "credentials.json")
	os.WriteFile(credentials, []byte(`{"url":"`+down+`","token":"hitl_x"}`), 0o600)
	t.Setenv("HITL_CREDENTIALS", credentials)
	if _, _, errOut := cli(t, "whoami"); !strings.Contains(errOut, "the address is from the credentials file "+credentials) {
		t.Errorf("server down, address from the credentials file: %q", errOut)
	}

	// On a terminal stdout and stderr are one screen: the answer, then who gave it.
	admin, _ := startServer(t)
	var screen syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"ask", "Venue?", "--option", "hall", "--option", "garden"}, strings.NewReader(""), &screen, &screen)
	}()
	id := pendingID(t, admin)
	if code, _, errOut := cli(t, "respond", fmt.Sprint(id), "garden"); code != 0 {
		t.Fatalf("respond: %d %s", code, errOut)
	}
	if code := testserver.Receive(t, done, 10*time.Second, "hitl ask to end"); code != exitOK {
		t.Fatalf("ask: exit %d: %s", code, screen.String())
	}
	if s := screen.String(); !strings.Contains(s, "\"garden\"\nAnswered by admin.\n") {
		t.Errorf("the answer, then who gave it:\n%s", s)
	}

	// --fallback takes a bare word as respond does.
	code, out, errOut := cli(t, "ask", "Venue?", "--option", "hall", "--option", "garden", "--timeout", "1s", "--fallback-policy", "complete_with_fallback", "--fallback", "garden")
	if code != exitOK || strings.TrimSpace(out) != `"garden"` || !strings.Contains(errOut, "Nobody answered by the deadline: this is the fallback value.") {
		t.Errorf("--fallback garden: exit %d %q %q", code, out, errOut)
	}
}

// show prints what a person needs to answer: the facts, the context indented, what the
// answer takes field by field, and the deadline with what happens after it, in words.
func TestShowSaysWhatTheAnswerIs(t *testing.T) {
	admin, _ := startServer(t)
	deadline := time.Now().Add(2 * time.Hour)
	inq, _, err := admin.CreateInquiry(context.Background(), &hitl.InquiryRequest{
		Prompt: "Scale the service?", Context: json.RawMessage(`{"diff":"- a\n+ b","service":"api"}`), TimeoutAt: &deadline,
		ResponseSchema: json.RawMessage(`{"type":"object","required":["region"],"properties":{"region":{"title":"Region","enum":["eu","us"]},"replicas":{"type":"integer","maximum":20},"note":{"type":"string","description":"anything else"}}}`),
		FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`{"region":"eu"}`),
	}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := cli(t, "show", fmt.Sprint(inq.ID))
	for _, want := range []string{
		"Status    pending",
		"(in 1h; if nobody answers by then, the fallback value is used)",
		"Context:\n  {\n    \"diff\": \"- a\\n+ b\",\n    \"service\": \"api\"\n  }\n",
		"region    required  one of eu, us — Region\n",
		"replicas            a whole number, at most 20\n",
		"note                text — anything else\n",
		"Answer schema:\n  {\n    \"type\": \"object\",",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	if _, err := admin.Respond(context.Background(), inq.ID, json.RawMessage(`{"region":"us","replicas":3}`), ""); err != nil {
		t.Fatal(err)
	}
	_, out, _ = cli(t, "show", fmt.Sprint(inq.ID))
	if !strings.Contains(out, "Status       answered") || !strings.Contains(out, "Response:\n  {\n    \"region\": \"us\",\n    \"replicas\": 3\n  }") || strings.Contains(out, "if nobody answers") {
		t.Errorf("show of the answered inquiry:\n%s", out)
	}
}

// syncBuffer is a bytes.Buffer two goroutines write: stdout and stderr of one terminal.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A group of commands refuses a subcommand it does not have, as the root does, instead of
// showing its help and exiting 0; on its own it shows its help.
func TestUnknownSubcommandIsAUsageError(t *testing.T) {
	for _, args := range [][]string{{"audit", "verfy"}, {"webhooks", "bogus"}, {"secrets", "rotat"}} {
		code, _, errOut := cli(t, args...)
		if want := fmt.Sprintf("unknown command %q for \"hitl %s\"", args[1], args[0]); code != exitUsage || !strings.Contains(errOut, want) {
			t.Errorf("hitl %s: %d %q; want exit 2 and %q", strings.Join(args, " "), code, errOut, want)
		}
	}
	if code, out, _ := cli(t, "audit"); code != exitOK || !strings.Contains(out, "verify") {
		t.Errorf("hitl audit on its own: %d %q; want its help", code, out)
	}
}
