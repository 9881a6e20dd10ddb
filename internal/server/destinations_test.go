package server_test

import (
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/server"
)

// Webhooks, inquiry callbacks and session callbacks reach global unicast addresses only:
// the special-purpose ranges, and the IPv6 forms that carry a private IPv4 address, are
// refused when registered, at the field, saying what the address is.
func TestDestinationsGlobalUnicastOnly(t *testing.T) {
	e := webhookEnv(t, server.WebhookConfig{}) // private addresses refused
	agent := e.token("bot", "agent")
	for host, says := range map[string]string{
		"255.255.255.255":       "limited broadcast address",
		"240.0.0.1":             "reserved address (RFC 1112)",
		"198.18.0.1":            "benchmarking address (RFC 2544)",
		"192.0.0.1":             "IETF protocol assignment (RFC 6890)",
		"192.0.2.1":             "documentation address (RFC 5737)",
		"203.0.113.5":           "documentation address (RFC 5737)",
		"[64:ff9b::7f00:1]":     "NAT64 address (RFC 6052) of 127.0.0.1, a loopback address",
		"[64:ff9b::a9fe:a9fe]":  "NAT64 address (RFC 6052) of 169.254.169.254, a link-local address",
		"[2002:7f00:1::1]":      "6to4 address (RFC 3056) of 127.0.0.1, a loopback address",
		"[2002:c0a8:101::1]":    "6to4 address (RFC 3056) of 192.168.1.1, a private-use address",
		"[::7f00:1]":            "IPv4-compatible address",
		"[100::1]":              "discard-only address (RFC 6666)",
		"[2001:db8::1]":         "documentation address (RFC 3849)",
		"[::ffff:10.0.0.1]":     "IPv4-mapped address (RFC 4291) of 10.0.0.1, a private-use address",
		"[fd00:ec2::254]:8080":  "unique local address (RFC 4193)",
		"[2001:0:4136:e378::1]": "Teredo address (RFC 4380)",
	} {
		url := "https://" + host + "/hook"
		for _, c := range []struct {
			what, method, path, token, body, field string
		}{
			{"webhook", "POST", "/v1/webhooks", adminToken, `{"url":"` + url + `","events":["*"]}`, "/url"},
			{"inquiry callback", "POST", "/v1/inquiries", agent, `{"prompt":"x","callback_url":"` + url + `"}`, "/callback_url"},
			{"session callback", "PUT", "/v1/sessions/s1", agent, `{"callback_url":"` + url + `"}`, "/callback_url"},
		} {
			r := e.do(c.method, c.path, c.token, c.body)
			if r.status != 400 || r.code() != hitl.EInvalid || !strings.Contains(r.text, `"`+c.field+`"`) ||
				!strings.Contains(r.text, says) || !strings.Contains(r.text, "--webhook-allow-private") {
				t.Errorf("%s to %s: %d %s, want 400 at %s saying %q", c.what, url, r.status, r.text, c.field, says)
			}
		}
	}
	if ws, err := e.Admin.Webhooks(ctx); err != nil || len(ws) != 0 {
		t.Errorf("refused webhooks were stored: %v %v", ws, err)
	}
	if p, err := e.Admin.Inquiries(ctx, client.ListOptions{}); err != nil || len(p.Data) != 0 {
		t.Errorf("refused inquiries were stored: %v %v", p, err)
	}
	// Public addresses pass, and so do NAT64 and 6to4 addresses of public IPv4 addresses.
	for _, url := range []string{"https://8.8.8.8/hook", "https://[2606:4700:4700::1111]/hook",
		"https://[64:ff9b::808:808]/hook", "https://[2002:808:808::1]/hook"} {
		if r := e.do("POST", "/v1/webhooks", adminToken, `{"url":"`+url+`","events":["session.completed"]}`); r.status != 201 {
			t.Errorf("webhook to %s: %d %s", url, r.status, r.text)
		}
	}
}
