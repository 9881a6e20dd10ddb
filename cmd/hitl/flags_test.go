package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// Every duration flag reads days as the docs say: ask --timeout 2d as --remind-every 2d.
func TestDurationFlagsTakeDays(t *testing.T) {
	admin, _ := startServer(t)
	done := make(chan int, 1)
	go func() {
		code, _, _ := cli(t, "ask", "Ship it this week?", "--timeout", "2d", "--remind-every", "1d")
		done <- code
	}()
	id := pendingID(t, admin)
	inq, err := admin.Inquiry(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if inq.TimeoutAt == nil || time.Until(*inq.TimeoutAt) < 47*time.Hour || time.Until(*inq.TimeoutAt) > 49*time.Hour {
		t.Errorf("--timeout 2d: the deadline is %v", inq.TimeoutAt)
	}
	if code, _, errOut := cli(t, "claim", fmt.Sprint(id), "--ttl", "1d"); code != exitOK {
		t.Errorf("claim --ttl 1d: exit %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "cancel", fmt.Sprint(id)); code != exitOK {
		t.Fatalf("cancel: %d %s", code, errOut)
	}
	if code := <-done; code != exitCancelled {
		t.Fatalf("ask exited %d", code)
	}
	for _, flag := range []string{"--timeout", "--remind-every", "--escalate-after"} {
		code, _, errOut := cli(t, "ask", "x", flag, "2x")
		if want := `invalid argument "2x" for "` + flag + `" flag: "2x" is not a duration: write it like 90d or 36h`; code != exitUsage || !strings.Contains(errOut, want) {
			t.Errorf("ask %s 2x: exit %d %q, want %q", flag, code, errOut, want)
		}
	}
}

// A mistake in ask's flags is a usage error that names the flag and says what it takes,
// before anything is asked.
func TestAskFlagMistakesAreUsageErrors(t *testing.T) {
	startServer(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--type", "aproval"}, `--type must be approval, clarification, selection or input, not "aproval"`},
		{[]string{"--option", "hall"}, "--option: a selection needs at least two options to choose from; give --option once for each"},
		{[]string{"--schema", `{"type":"object","properties":{"n":{"type":"integr"}}}`}, "--schema is not a valid JSON Schema: at /properties/n/type:"},
		{[]string{"--schema", `{"type":`}, "--schema: not valid JSON"},
	} {
		code, _, errOut := cli(t, append([]string{"ask", "x"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 2 {
			t.Errorf("ask %s: exit %d %q, want %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}

// A token the server does not know, or one revoked, says where it came from, as a server that
// does not answer says where its address came from.
func TestAnUnknownTokenSaysWhereItCameFrom(t *testing.T) {
	admin, url := startServer(t)
	t.Setenv("HITL_TOKEN", "hitl_nobodys")
	code, _, errOut := cli(t, "whoami")
	if want := "the hitl server at " + url + " refused the token: it is unknown or revoked (the token is from HITL_TOKEN; set HITL_TOKEN to use another)"; code != exitError || !strings.Contains(errOut, want) {
		t.Errorf("unknown token from HITL_TOKEN: exit %d %q, want %q", code, errOut, want)
	}

	k, err := admin.CreateKey(context.Background(), &hitl.KeyRequest{Name: "gone", Roles: []string{hitl.RoleResponder}})
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.RevokeKey(context.Background(), k.ID); err != nil {
		t.Fatal(err)
	}
	// A key without the role a command needs: where the token came from, too.
	agent, err := admin.CreateKey(context.Background(), &hitl.KeyRequest{Name: "deployer", Roles: []string{hitl.RoleAgent}})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HITL_TOKEN", agent.Token)
	code, _, errOut = cli(t, "webhooks", "callback-secret")
	if want := "this needs the admin role (the token is from HITL_TOKEN; set HITL_TOKEN to use another key)"; code != exitError || !strings.Contains(errOut, want) {
		t.Errorf("an agent's key for an admin's command: exit %d %q, want %q", code, errOut, want)
	}

	t.Setenv("HITL_TOKEN", "")
	t.Setenv("HITL_URL", "")
	creds := filepath.Join(t.TempDir(), "credentials.json")
	os.WriteFile(creds, []byte(`{"url":"`+url+`","token":"`+k.Token+`"}`), 0o600)
	t.Setenv("HITL_CREDENTIALS", creds)
	code, _, errOut = cli(t, "ls")
	if want := "refused the token: it is unknown or revoked (the token is from the credentials file " + creds; code != exitError || !strings.Contains(errOut, want) {
		t.Errorf("revoked token from the credentials file: exit %d %q, want %q", code, errOut, want)
	}
}

// Ctrl-C on hitl ask leaves the question open and says so, with how to withdraw it or wait
// for it again; hitl wait N then waits and prints the answer as ask would have.
func TestCtrlCOnAskSaysTheInquiryIsStillPending(t *testing.T) {
	s := testserver.Start(t)
	admin := s.Admin
	t.Setenv("HITL_URL", s.URL)
	t.Setenv("HITL_TOKEN", s.AdminToken)
	t.Setenv("HITL_CREDENTIALS", filepath.Join(t.TempDir(), "credentials.json"))
	ask := exec.Command(os.Args[0], "ask", "Venue?", "--option", "hall", "--option", "garden")
	ask.Env = append(os.Environ(), "HITL_TEST_RUN_MAIN=1")
	var stderr syncBuffer
	ask.Stderr = &stderr
	if err := ask.Start(); err != nil {
		t.Fatal(err)
	}
	id := pendingID(t, admin)
	// The inquiry exists before ask says so: the signal must come once ask handles it.
	testserver.Eventually(t, 5*time.Second, "hitl ask to say it asked", func() bool {
		return strings.Contains(stderr.String(), "Asked inquiry")
	})
	ask.Process.Signal(syscall.SIGINT)
	ask.Wait()
	want := fmt.Sprintf("hitl: stopped by SIGINT: inquiry %d is still pending: withdraw it with 'hitl cancel %d', or wait for its answer again with 'hitl wait %d'", id, id, id)
	if code := ask.ProcessState.ExitCode(); code != 130 || !strings.Contains(stderr.String(), want) {
		t.Fatalf("Ctrl-C on ask: exit %d %q, want %q", code, stderr.String(), want)
	}
	if inq, err := admin.Inquiry(context.Background(), id); err != nil || inq.Status != hitl.StatusPending {
		t.Fatalf("after Ctrl-C the inquiry is %v (%v), want pending", inq, err)
	}

	done := cliAsync(t, "wait", fmt.Sprint(id))
	testserver.Eventually(t, 5*time.Second, "hitl wait to wait", func() bool { return s.Engine().Waiting() > 0 })
	if code, _, errOut := cli(t, "respond", fmt.Sprint(id), "garden"); code != exitOK {
		t.Fatalf("respond: %d %s", code, errOut)
	}
	r := testserver.Receive(t, done, 10*time.Second, "hitl wait to end")
	if r.code != exitOK || r.stdout != "\"garden\"\n" || !strings.Contains(r.stderr, "Answered by admin.") {
		t.Fatalf("hitl wait: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	// An inquiry already resolved: at once, with ask's exit statuses.
	if code, out, _ := cli(t, "wait", fmt.Sprint(id)); code != exitOK || out != "\"garden\"\n" {
		t.Errorf("hitl wait on an answered inquiry: exit %d %q", code, out)
	}
	cancelled, _, err := admin.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: "Still needed?"}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Cancel(context.Background(), cancelled.ID, "obsolete"); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := cli(t, "wait", fmt.Sprint(cancelled.ID)); code != exitCancelled {
		t.Errorf("hitl wait on a cancelled inquiry: exit %d %q", code, errOut)
	}
}

// TestLongNamesOfLsAndRm: every ls and rm command answers to list and delete too.
func TestLongNamesOfLsAndRm(t *testing.T) {
	root := newRoot()
	for _, path := range [][]string{{"list"}, {"keys", "list"}, {"people", "list"}, {"people", "delete"}, {"groups", "delete"}, {"templates", "delete"}, {"webhooks", "list"}, {"webhooks", "delete"}} {
		cmd, _, err := root.Find(path)
		if err != nil || (cmd.Name() != "ls" && cmd.Name() != "rm") {
			t.Errorf("hitl %v: %v, found %q; want the ls or rm command", path, err, cmd.Name())
		}
	}
}
