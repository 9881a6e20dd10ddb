package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRefusesHalfASlackApp: a bot token without the signing secret stops serve with one
// line that names what is missing, before any database is opened; the token is never shown,
// not even as a flag's default in --help.
func TestServeRefusesHalfASlackApp(t *testing.T) {
	const token = "xoxb-secret-0123456789"
	t.Setenv("HITL_SLACK_BOT_TOKEN", token)
	dir := t.TempDir()
	t.Setenv("HITL_CREDENTIALS", filepath.Join(dir, "credentials.json"))
	code, stdout, errOut := cli(t, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, "hitl.db"), "--log-level", "debug")
	if code != exitError || stdout != "" || strings.Count(errOut, "\n") != 1 ||
		!strings.Contains(errOut, "--slack-signing-secret, HITL_SLACK_SIGNING_SECRET") || strings.Contains(errOut, token) {
		t.Fatalf("a token without a signing secret: exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("serve with half a Slack app created %v", entries)
	}
	t.Setenv("HITL_SLACK_SIGNING_SECRET", "signing-secret-0123456789")
	if _, help, _ := cli(t, "serve", "--help"); !strings.Contains(help, "--slack-bot-token") || strings.Contains(help, token) || strings.Contains(help, "signing-secret-0123") {
		t.Errorf("serve --help shows a Slack secret or lacks the flag:\n%s", help)
	}
}
