package slack_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/slack"
	"github.com/hitl-dev/hitl/internal/slackpeer"
)

// A vote by a Slack button that does not decide the quorum is told to the voter as a vote,
// with where the vote stands, and the message shows the votes so far with its buttons; a
// changed vote is refused in words; the deciding vote ends the message as any answer does.
func TestVoteByButton(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval,
		AssignedTo: []string{"ada", "bob"}, Quorum: &hitl.Quorum{Required: 2}})
	ref, blocks := w.post(inq, "C0OPS")

	w.interact(click("U0ADA", ref, button(t, blocks, "Approve")))
	if got := w.inquiry(inq.ID); got.Status != hitl.StatusPending || len(got.Votes) != 1 {
		t.Fatalf("after ada's click: %s with %d votes", got.Status, len(got.Votes))
	}
	eph := w.peer.Calls("chat.postEphemeral")
	if len(eph) != 1 || eph[0].Form.Get("user") != "U0ADA" ||
		!strings.Contains(eph[0].Form.Get("text"), "Your approval is recorded: 1 of 2 approvals;") ||
		!strings.Contains(eph[0].Form.Get("text"), "waits for the others") {
		t.Fatalf("what ada was told: %+v", eph)
	}
	updates := w.peer.Calls("chat.update")
	if len(updates) != 1 {
		t.Fatalf("%d updates of the message after a vote", len(updates))
	}
	shown := updates[0].Blocks(t)
	if text := texts(shown); !strings.Contains(text, "1 of 2 approvals: ada approved") {
		t.Errorf("the message after ada's vote: %s", text)
	}
	if ids := slackpeer.ActionIDs(shown); !strings.Contains(strings.Join(ids, " "), "hitl.approve") {
		t.Errorf("the message lost its buttons after a vote that did not decide: %v", ids)
	}

	w.interact(click("U0ADA", ref, button(t, blocks, "Reject")))
	eph = w.peer.Calls("chat.postEphemeral")
	if len(eph) != 2 || !strings.Contains(eph[1].Form.Get("text"), "Nothing was recorded: ada already approved inquiry") ||
		strings.Contains(eph[1].Form.Get("text"), "already waiting") {
		t.Fatalf("ada's changed vote: %+v", eph)
	}

	w.interact(click("U0BOB", ref, button(t, blocks, "Approve")))
	if got := w.inquiry(inq.ID); got.Status != hitl.StatusResponded {
		t.Fatalf("after bob's vote: %s", got.Status)
	}
	if n := len(w.peer.Calls("chat.postEphemeral")); n != 2 {
		t.Errorf("the deciding vote was told as a vote (%d ephemerals)", n)
	}
	updates = w.peer.Calls("chat.update")
	if last := updates[len(updates)-1].Blocks(t); strings.Contains(strings.Join(slackpeer.ActionIDs(last), " "), "hitl.approve") {
		t.Errorf("the decided message still has its buttons: %s", texts(last))
	}
}

// A direct message redrawn after a vote that does not decide keeps showing the deadline in the
// zone of the person it was posted to (who is the one clicking in it), not in UTC.
func TestRedrawnDirectMessageKeepsThePersonsZone(t *testing.T) {
	w := newWorld(t)
	if _, err := w.engine.PutPerson(context.Background(), root, "ada", &hitl.PersonRequest{SlackUserID: "U0ADA", TimeZone: "Asia/Tokyo"}); err != nil {
		t.Fatal(err)
	}
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval, TimeoutSeconds: new(int64(3600)),
		AssignedTo: []string{"ada", "bob"}, Quorum: &hitl.Quorum{Required: 2}})
	ref, err := w.client.Post(context.Background(), slack.Message{Inquiry: inq, To: "D0ADA", Reason: slack.ReasonCreated, TimeZone: "Asia/Tokyo"})
	if err != nil {
		t.Fatal(err)
	}
	posted := w.peer.Calls("chat.postMessage")
	blocks := posted[len(posted)-1].Blocks(t)
	if text := texts(blocks); !strings.Contains(text, "JST") {
		t.Fatalf("the posted message does not show Tokyo time: %s", text)
	}

	w.interact(click("U0ADA", ref, button(t, blocks, "Approve")))
	updates := w.peer.Calls("chat.update")
	if len(updates) != 1 {
		t.Fatalf("%d updates of the message after a vote", len(updates))
	}
	if text := texts(updates[0].Blocks(t)); !strings.Contains(text, "JST") || strings.Contains(text, "UTC") {
		t.Errorf("the redrawn message does not show the deadline in Tokyo time: %s", text)
	}
}
