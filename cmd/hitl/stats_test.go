package main

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

func TestStatsCommand(t *testing.T) {
	admin, url := startServer(t)
	ctx := context.Background()
	inq, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval, AssignedTo: []string{"group:ops"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Still there?"}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ops, _ := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "olga", Roles: []string{hitl.RoleResponder}, Groups: []string{"ops"}})
	if _, err := client.New(url, ops.Token, nil).Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), ""); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := cli(t, "stats")
	if code != 0 || !strings.HasPrefix(out, "Every inquiry, ") || !strings.Contains(out, "Answered 1, timed out 0 (0 fell back), cancelled 0") ||
		!strings.Contains(out, "Waiting now 1, the oldest inquiry") {
		t.Fatalf("stats: %d %q %q", code, out, errOut)
	}
	for _, row := range []string{`all +- +1 `, `type +approval +1 `, `responder +olga +1 `, `group +ops +1 `,
		`How people decide \(too fast: less time than reading takes at 240 words a minute\)`, `person +olga +1 .* 100% +- +[01]$`} {
		if !regexp.MustCompile(`(?m)^` + row).MatchString(out) {
			t.Errorf("stats lack a row like %q:\n%s", row, out)
		}
	}
	code, out, _ = cli(t, "stats", "--since", "24h", "--json")
	var st hitl.Stats
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Since != 24*3600 || st.Answered != 1 || len(st.PerDay) == 0 {
		t.Fatalf("stats --json: %d %q", code, out)
	}
	code, _, errOut = cli(t, "stats", "--since", "forever")
	if code != exitError || !strings.Contains(errOut, "since must be a duration of more than 0s and at most 366d") {
		t.Fatalf("a bad window: %d %q", code, errOut)
	}
	bot, _ := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "bot", Roles: []string{hitl.RoleAgent}})
	t.Setenv("HITL_TOKEN", bot.Token)
	if code, _, errOut := cli(t, "stats"); code != exitError || !strings.Contains(errOut, "stats need the admin or the responder role") {
		t.Fatalf("an agent: %d %q", code, errOut)
	}
	t.Setenv("HITL_TOKEN", ops.Token)
	if code, out, _ := cli(t, "stats"); code != 0 || !strings.HasPrefix(out, "Your own inquiries") || !strings.Contains(out, "Waiting now 0\n") {
		t.Fatalf("a responder: %d %q", code, out)
	}
}
