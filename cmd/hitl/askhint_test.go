package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// hitl ask says how to answer from another terminal in the shape its question takes.
func TestAskSaysHowToAnswer(t *testing.T) {
	admin, _ := startServer(t)
	second := int64(1)
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
	// hitl wait, on an approval asked by someone else, says the same.
	if _, _, err := admin.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval, TimeoutSeconds: &second}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := cli(t, "wait", "4"); code != exitTimeout || !strings.Contains(errOut, "Waiting for an answer to inquiry 4 (hitl show 4; hitl respond 4 --approve|--reject)") {
		t.Errorf("hitl wait 4: exit %d, %q", code, errOut)
	}
}
