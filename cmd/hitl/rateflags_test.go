package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A rate limit written wrong stops serve with the forms it takes.
func TestServeRejectsBadRateLimits(t *testing.T) {
	db := filepath.Join(t.TempDir(), "hitl.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate-limit", "5/h"}, `invalid argument "5/h" for "--rate-limit" flag: rate "5/h": write N/s (per second) or N/m (per minute), for example 50/s; 0 or off: no limit`},
		{[]string{"--rate-limit-role", "agent"}, "write ROLE=N/s or ROLE=N/s:BURST, for example agent=200/s:400"},
		{[]string{"--rate-limit-role", "agent=5/s:x"}, `role agent: burst "x" must be a whole number of at least 1`},
		{[]string{"--rate-burst", "-1"}, "rate burst (--rate-burst): must not be negative"},
	} {
		code, _, stderr := cli(t, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, stderr, c.want)
		}
	}
}
