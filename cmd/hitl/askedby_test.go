package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// TestShowAskedBy: hitl show names the key that asked, and the agent beside it only when the
// agent says something else, never the two run together.
func TestShowAskedBy(t *testing.T) {
	for _, c := range []struct{ key, agent, want string }{
		{"refund-agent", "refund-agent", "refund-agent"},
		{"my-agent", "a2a", "my-agent (agent a2a)"},
		{"ops", "", "ops"},
		{"", "deployer", "deployer"},
	} {
		var out bytes.Buffer
		inq := &hitl.Inquiry{ID: 1, Status: hitl.StatusPending, Prompt: "Go?", CreatedBy: c.key, Origin: c.agent, CreatedAt: time.Now()}
		if err := describeAsked(&out, inq); err != nil {
			t.Fatal(err)
		}
		var line string
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, "Asked by") {
				line = strings.TrimSpace(strings.TrimPrefix(l, "Asked by"))
			}
		}
		if line != c.want {
			t.Errorf("key %q, agent %q: Asked by %q, want %q\n%s", c.key, c.agent, line, c.want, out.String())
		}
	}
}
