package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRefusesBadEmailSettings: bad email settings, by flag or HITL_* variable, stop serve
// with one line that names the setting, never shows the relay's password, and touch no database.
func TestServeRefusesBadEmailSettings(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HITL_CREDENTIALS", filepath.Join(dir, "credentials.json"))
	t.Setenv("HITL_SMTP_URL", "smtp://ada:s3cret@mail.example.com:587?tls=maybe")
	t.Setenv("HITL_MAIL_FROM", "hitl@example.com")
	db := filepath.Join(dir, "hitl.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "hitl: --smtp-url (HITL_SMTP_URL): SMTP URL: tls must be none (a local relay, in clear) or starttls (the default)\n"},
		{[]string{"--smtp-url", "smtp://ada:s3cret@mail.example.com", "--smtp-listen", "127.0.0.1:0"},
			"hitl: --smtp-listen (HITL_SMTP_LISTEN) takes replies addressed to reply+...@ the mail domain: set --mail-domain (HITL_MAIL_DOMAIN) too\n"},
		{[]string{"--smtp-url", "smtp://ada:s3cret@mail.example.com", "--mail-authserv-id", "mx.example.com (Postfix)"},
			"hitl: --mail-authserv-id (HITL_MAIL_AUTHSERV_ID) \"mx.example.com (Postfix)\": want the one word your mail server writes first in the Authentication-Results header it adds, like mx.example.com\n"},
	} {
		code, stdout, errOut := cli(t, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db}, c.args...)...)
		if code != exitError || errOut != c.want || stdout != "" || strings.Contains(errOut, "s3cret") {
			t.Errorf("serve %v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, stdout, errOut, exitError, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("serve with bad email settings created %v", entries)
	}
}
