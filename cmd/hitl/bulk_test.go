package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// TestRespondSession: hitl respond --session KEY --approve answers every pending approval of
// the session assigned to the caller, one line each, and exits 1 when any was refused.
func TestRespondSession(t *testing.T) {
	admin, url := startServer(t)
	ctx := context.Background()
	agentKey, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "deploy-bot", Roles: []string{hitl.RoleAgent}})
	must(t, err)
	kimKey, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "kim", Roles: []string{hitl.RoleResponder}, Groups: []string{"sre"}})
	must(t, err)
	agent := client.New(url, agentKey.Token, nil)
	t.Setenv("HITL_TOKEN", kimKey.Token)
	ask := func(req hitl.InquiryRequest) *hitl.Inquiry {
		t.Helper()
		req.Session, req.RequestType = "train-42", hitl.RequestApproval
		inq, _, err := agent.CreateInquiry(ctx, &req, client.CreateOptions{})
		must(t, err)
		return inq
	}
	forKim := ask(hitl.InquiryRequest{Prompt: "Deploy api?", AssignedTo: hitl.Assignees{"kim"}})
	forSRE := ask(hitl.InquiryRequest{Prompt: "Deploy web?", AssignedTo: hitl.Assignees{"group:sre"}})
	forLee := ask(hitl.InquiryRequest{Prompt: "Deploy billing?", AssignedTo: hitl.Assignees{"lee"}})

	code, out, errOut := cli(t, "respond", "--session", "train-42", "--approve", "--comment", "train 42 is green")
	if code != exitOK || out != fmt.Sprintf("Inquiry %d approved.\nInquiry %d approved.\n", forSRE.ID, forKim.ID) || !strings.Contains(errOut, "2 of 2 approved") {
		t.Fatalf("respond --session: %d %q %q", code, out, errOut)
	}
	for _, id := range []int64{forKim.ID, forSRE.ID} {
		got, err := agent.Inquiry(ctx, id)
		must(t, err)
		if got.Status != hitl.StatusResponded || string(got.Response) != `{"approved":true,"comment":"train 42 is green"}` || *got.RespondedBy != "kim" {
			t.Errorf("inquiry %d: %s %s", id, got.Status, got.Response)
		}
	}
	if got, err := agent.Inquiry(ctx, forLee.ID); err != nil || got.Status != hitl.StatusPending {
		t.Errorf("lee's inquiry: %v %v", got, err)
	}

	// Nothing left: said, and not a failure.
	if code, out, errOut := cli(t, "respond", "--session", "train-42", "--approve"); code != exitOK || out != "" || !strings.Contains(errOut, "Nothing to answer") {
		t.Errorf("nothing left: %d %q %q", code, out, errOut)
	}

	// An approval whose schema the answer does not fit is refused; the others are answered.
	strict := ask(hitl.InquiryRequest{Prompt: "Deploy db?", AssignedTo: hitl.Assignees{"kim"},
		ResponseSchema: json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"},"ticket":{"type":"string"}},"required":["approved","ticket"]}`)})
	plain := ask(hitl.InquiryRequest{Prompt: "Deploy docs?", AssignedTo: hitl.Assignees{"kim"}})
	code, out, errOut = cli(t, "respond", "--session", "train-42", "--reject")
	if code != exitError || !strings.Contains(out, fmt.Sprintf("Inquiry %d rejected.", plain.ID)) ||
		!strings.Contains(out, fmt.Sprintf("Inquiry %d not answered: the answer does not fit the inquiry: /ticket", strict.ID)) ||
		!strings.Contains(errOut, "1 of 2 inquiries were not answered") {
		t.Errorf("a refused inquiry: %d %q %q", code, out, errOut)
	}

	for _, args := range [][]string{{"respond", "--session", "train-42"}, {"respond", "--session", "train-42", "--approve", "7"}, {"respond", "--session", "train-42", "--approve", "--reject"}} {
		if code, _, errOut := cli(t, args...); code != exitUsage {
			t.Errorf("%v: %d %q", args, code, errOut)
		}
	}
	if code, _, errOut := cli(t, "respond", "--session", "has spaces", "--approve"); code != exitError || !strings.Contains(errOut, "filter/session") {
		t.Errorf("bad session key: %d %q", code, errOut)
	}
}

// TestDeclineCommand: hitl decline ID --reason cancels an inquiry with the reason (inquiries
// are declinable by default); one the agent kept to answers says why.
func TestDeclineCommand(t *testing.T) {
	admin, _ := startServer(t)
	ctx := context.Background()
	declinable, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Book the room?"}, client.CreateOptions{})
	must(t, err)
	plain, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Book the hall?", CancellableByResponder: new(false)}, client.CreateOptions{})
	must(t, err)

	if code, _, errOut := cli(t, "decline", fmt.Sprint(declinable.ID), "--reason", "I do not book rooms"); code != exitOK || !strings.Contains(errOut, "declined") {
		t.Fatalf("decline: %d %q", code, errOut)
	}
	got, err := admin.Inquiry(ctx, declinable.ID)
	must(t, err)
	if got.Status != hitl.StatusCancelled || got.CancelReason == nil || *got.CancelReason != "I do not book rooms" {
		t.Errorf("declined: %s %v", got.Status, got.CancelReason)
	}
	if code, _, errOut := cli(t, "decline", fmt.Sprint(plain.ID)); code != exitError || !strings.Contains(errOut, "cancellable_by_responder") {
		t.Errorf("not declinable: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "decline", fmt.Sprint(declinable.ID)); code != exitError || !strings.Contains(errOut, "already cancelled") {
		t.Errorf("declined twice: %d %q", code, errOut)
	}
	if code, _, _ := cli(t, "decline"); code != exitUsage {
		t.Errorf("decline without an id: %d", code)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
