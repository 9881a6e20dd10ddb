package main

import (
	"strings"
	"testing"
)

// hitl ask says how to answer from another terminal in the shape its question takes.
func TestAskSaysHowToAnswer(t *testing.T) {
	startServer(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--type", "approval"}, "hitl respond 1 --approve|--reject"},
		{[]string{"--option", "hall", "--option", "garden"}, "hitl respond 2 hall"},
		{[]string{"--type", "input"}, "hitl respond 3 JSON, or a form on a terminal"},
	} {
		code, _, errOut := cli(t, append([]string{"ask", "Which?", "--timeout", "1s"}, c.args...)...)
		if code != exitTimeout || !strings.Contains(errOut, "waiting for an answer (hitl show ") || !strings.Contains(errOut, c.want) {
			t.Errorf("hitl ask %v: exit %d, %q; want %q in it", c.args, code, errOut, c.want)
		}
	}
}
