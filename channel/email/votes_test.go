package email_test

import (
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/mailtest"
)

// A vote by email reply that does not decide the quorum is confirmed as a vote, with where the
// vote stands, not as an answer; a second, different vote is refused in words, not as closed.
func TestVoteByReply(t *testing.T) {
	w := newWorld(t)
	addr := w.startReplies(t)
	inq := w.ask(t, &hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval,
		AssignedTo: []string{"ada", "bob"}, Quorum: &hitl.Quorum{Required: 2}})
	to := w.replyTo(t, inq)
	send := func(body string) {
		t.Helper()
		if err := mailtest.Send(t, addr, "ada@example.com", to, replyMail("ada@example.com", to, body)); err != nil {
			t.Fatalf("the reply was refused: %v", err)
		}
	}

	send("approve\nchecked the canary\n")
	got := w.relay.Next(t)
	for _, want := range []string{"Your approval is recorded: 1 of 2 approvals;", "waits for the others", "The inbox: " + w.srv.URL + "/"} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("the confirmation lacks %q:\n%s", want, got.Text)
		}
	}
	if strings.Contains(got.Text, "not recorded") || strings.Contains(got.Text, "Answered by") {
		t.Errorf("the confirmation of a vote reads as a refusal or an answer:\n%s", got.Text)
	}
	now := w.inquiry(t, inq.ID)
	if now.Status != hitl.StatusPending || len(now.Votes) != 1 || !now.Votes[0].Approved || now.Votes[0].Comment != "checked the canary" {
		t.Fatalf("after the reply: %s with votes %+v", now.Status, now.Votes)
	}

	send("reject\n")
	refused := w.explained(t, "ada@example.com", "ada already approved inquiry", "a vote cannot be changed")
	if strings.Contains(refused.Text, "closed") {
		t.Errorf("a refused second vote says the question is closed:\n%s", refused.Text)
	}
	w.pending(t, inq.ID)
}
