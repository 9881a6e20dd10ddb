package main

import (
	"strings"
	"testing"
)

// TestRulesCommands: add, list, revoke; a bad duration, a bad rule and revoking twice fail with
// words for people.
func TestRulesCommands(t *testing.T) {
	startServer(t)
	code, out, errOut := cli(t, "rules", "add", "--tool", "deploy", "--agent", "ci-bot", "--args", `{"env":"staging"}`, "--for", "8h")
	if code != 0 || !strings.HasPrefix(out, "rule_") {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	id := strings.TrimSpace(out)
	if code, out, _ := cli(t, "rules", "ls"); code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "tool deploy") || !strings.Contains(out, "active") {
		t.Fatalf("ls: %d %q", code, out)
	}
	if code, _, errOut := cli(t, "rules", "add", "--tool", "deploy", "--for", "soon"); code == 0 || !strings.Contains(errOut, "not a duration") {
		t.Fatalf("bad duration: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "rules", "add", "--tool", "a", "--template", "b", "--for", "1h"); code != exitError || !strings.Contains(errOut, "/template") {
		t.Fatalf("both: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "rules", "revoke", id); code != 0 || !strings.Contains(errOut, "revoked") {
		t.Fatalf("revoke: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "rules", "revoke", id); code != exitError || !strings.Contains(errOut, "already revoked at") {
		t.Fatalf("revoke twice: %d %q", code, errOut)
	}
	if code, out, _ := cli(t, "rules", "ls"); code != 0 || !strings.Contains(out, "revoked") {
		t.Fatalf("ls after revoking: %d %q", code, out)
	}
}
