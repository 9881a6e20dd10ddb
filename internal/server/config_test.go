package server_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl/internal/ratelimit"
	"github.com/hitl-dev/hitl/internal/server"
)

func TestConfigReportsEveryProblem(t *testing.T) {
	t.Parallel()
	cfg := server.Config{Addr: "no-port", DB: "mysql://localhost/hitl", AdminToken: "short", MaxBodyBytes: 10, AuthFailuresPerMinute: -1, MaxConns: -1, BodyReadTimeout: -1, SecretKey: "c2hvcnQ=",
		RateLimit: ratelimit.Options{Default: ratelimit.Limit{Burst: 10}, Roles: map[string]ratelimit.Limit{"agnet": {Count: 5, Per: time.Second}}}}
	err := cfg.Validate()
	if err == nil {
		t.Fatal("a bad configuration passed")
	}
	for _, want := range []string{"addr", "postgres:// URL", "HITL_ADMIN_TOKEN", "max body", "--auth-failures-per-minute", "--max-conns", "--body-read-timeout", "HITL_SECRET_KEY: the base64 decodes to 5 bytes",
		"--rate-burst, HITL_RATE_BURST) without a rate limit", `(--rate-limit-role) "agnet": not a role`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not mention %q: %v", want, err)
		}
	}
	if _, err := server.Open(context.Background(), cfg, slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("Open accepted a bad configuration")
	}
	for _, db := range []string{t.TempDir() + "/hitl.db", "postgres://postgres@127.0.0.1:5432/hitl"} {
		ok := server.Config{Addr: "127.0.0.1:0", DB: db, MaxBodyBytes: 1 << 20}
		if err := ok.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	if name := (&server.Config{DB: "postgres://hitl:secret@db:5432/hitl"}).DBName(); strings.Contains(name, "secret") {
		t.Fatalf("DBName shows the password: %s", name)
	}
}

// Single sign-on settings that cannot work are refused at start, in the flags' words.
func TestConfigChecksSingleSignOn(t *testing.T) {
	t.Parallel()
	base := func() server.Config {
		return server.Config{Addr: "127.0.0.1:0", DB: t.TempDir() + "/hitl.db", MaxBodyBytes: 1 << 20}
	}
	for name, c := range map[string]struct {
		change func(*server.Config)
		want   string
	}{
		"a client without a provider":  {func(c *server.Config) { c.SSO.ClientID = "hitl" }, "need --oidc-issuer"},
		"no way in":                    {func(c *server.Config) { c.NoTokenLogin = true }, "--inbox-token-login=false leaves nobody"},
		"an issuer that is no URL":     {func(c *server.Config) { c.SSO.Issuer, c.SSO.ClientID = "login.example.com", "hitl" }, `--oidc-issuer "login.example.com"`},
		"an issuer without its client": {func(c *server.Config) { c.SSO.Issuer = "https://login.example.com" }, "needs --oidc-client-id"},
	} {
		cfg := base()
		c.change(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q in it", name, err, c.want)
		}
	}
	ok := base()
	ok.SSO.Issuer, ok.SSO.ClientID, ok.NoTokenLogin = "https://login.example.com/realms/acme", "hitl", true
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}

// The VAPID contact (--push-contact) is a mailto: address or an https:// URL, or nothing.
func TestConfigChecksPushContact(t *testing.T) {
	t.Parallel()
	for contact, ok := range map[string]bool{
		"": true, "mailto:ops@example.com": true, "https://ops.example.com/contact": true,
		"ops@example.com": false, "mailto:": false, "mailto:Ops <ops@example.com>": false, "mailto:not an address": false,
		"http://ops.example.com": false, "https://": false, "https://user:pw@example.com": false, "tel:+15550100": false,
	} {
		cfg := server.Config{Addr: "127.0.0.1:0", DB: t.TempDir() + "/hitl.db", MaxBodyBytes: 1 << 20, PushContact: contact}
		err := cfg.Validate()
		if ok != (err == nil) {
			t.Errorf("%q: %v", contact, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--push-contact") {
			t.Errorf("%q: the error does not name the flag: %v", contact, err)
		}
	}
}
