package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The single sign-on settings come from flags or HITL_* alike, and ones that cannot work stop
// serve before it opens anything; the client secret never shows.
func TestServeChecksSingleSignOnSettings(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "hitl.db")
	t.Setenv("HITL_OIDC_CLIENT_SECRET", "s3cret")
	for _, c := range []struct {
		env, args []string
		want      string
	}{
		{[]string{"HITL_INBOX_TOKEN_LOGIN", "false"}, nil, "--inbox-token-login=false leaves nobody a way into the inbox without --oidc-issuer"},
		{nil, []string{"--inbox-token-login=false"}, "--inbox-token-login=false leaves nobody a way into the inbox without --oidc-issuer"},
		{[]string{"HITL_INBOX_TOKEN_LOGIN", "maybe"}, nil, `HITL_INBOX_TOKEN_LOGIN="maybe"`},
		{nil, nil, "--oidc-client-id, --oidc-client-secret and --oidc-admin-group need --oidc-issuer"},
		{[]string{"HITL_OIDC_ISSUER", "https://login.example.com"}, nil, "--oidc-issuer needs --oidc-client-id"},
		{[]string{"HITL_OIDC_ISSUER", "https://login.example.com"}, []string{"--oidc-client-id", "hitl", "--oidc-admin-group", "/hitl-admins"},
			`--oidc-admin-group "/hitl-admins" is no hitl group name`},
	} {
		if c.env != nil {
			t.Setenv(c.env[0], c.env[1])
		}
		code, stdout, errOut := cli(t, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db}, c.args...)...)
		if code == exitOK || !strings.Contains(errOut, c.want) || stdout != "" || strings.Contains(errOut, "s3cret") {
			t.Errorf("serve %v %v: exit %d, stdout %q, stderr %q; want %q", c.env, c.args, code, stdout, errOut, c.want)
		}
		if c.env != nil {
			os.Unsetenv(c.env[0])
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("serve with bad single sign-on settings created %v", entries)
	}
}
