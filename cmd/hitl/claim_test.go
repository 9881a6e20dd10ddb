package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// TestClaimCommand: hitl claim takes an inquiry, another person's answer is refused in words
// naming the holder, --release gives it back.
func TestClaimCommand(t *testing.T) {
	admin, url := startServer(t)
	ctx := context.Background()
	inq, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Which region?"}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id := strconv.FormatInt(inq.ID, 10)
	me, err := admin.Me(ctx)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut := cli(t, "claim", id, "--ttl", "10m")
	if code != 0 || !strings.Contains(errOut, "claimed by "+me.Name+" until") {
		t.Fatalf("claim: %d %q", code, errOut)
	}
	key, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "bob", Roles: []string{hitl.RoleResponder}})
	if err != nil {
		t.Fatal(err)
	}
	bob := client.New(url, key.Token, nil)
	_, err = bob.Respond(ctx, inq.ID, json.RawMessage(`"eu"`), "")
	if err == nil || !strings.Contains(err.Error(), "claimed by") {
		t.Fatalf("bob answered a claimed inquiry: %v", err)
	}
	if code, _, errOut = cli(t, "claim", id, "--ttl", "5ms"); code != 2 || !strings.Contains(errOut, "at least 1s") {
		t.Fatalf("claim with a tiny ttl: %d %q", code, errOut)
	}
	if code, _, errOut = cli(t, "claim", "--release", id); code != 0 || !strings.Contains(errOut, "released") {
		t.Fatalf("release: %d %q", code, errOut)
	}
	if code, _, errOut = cli(t, "claim", "--release", id); code == 0 || !strings.Contains(errOut, "is not claimed") {
		t.Fatalf("release twice: %d %q", code, errOut)
	}
	if _, err := bob.Respond(ctx, inq.ID, json.RawMessage(`"eu"`), ""); err != nil {
		t.Fatalf("bob answers once released: %v", err)
	}
}

// TestShowSaysWhereAVoteStands: hitl show lists the quorum, the votes so far and the claim.
func TestShowSaysWhereAVoteStands(t *testing.T) {
	admin, url := startServer(t)
	ctx := context.Background()
	key, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "ann", Roles: []string{hitl.RoleResponder}})
	if err != nil {
		t.Fatal(err)
	}
	inq, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Ship v2?", RequestType: hitl.RequestApproval,
		AssignedTo: []string{"ann", "bob"}, Quorum: &hitl.Quorum{Required: 2}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.New(url, key.Token, nil).Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "looks good"); err != nil {
		t.Fatal(err)
	}
	code, out, _ := cli(t, "show", strconv.FormatInt(inq.ID, 10))
	for _, want := range []string{"2 approvals; ended by the first rejection", "1 of 2 approvals", "ann approved at", ": looks good"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("show lacks %q: %d\n%s", want, code, out)
		}
	}
}
