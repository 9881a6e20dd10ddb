package webpush

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
)

// TestMessages: what a device shows for each reason, and a message that always fits a push
// service, however long its prompt and tokens.
func TestMessages(t *testing.T) {
	by := "ada"
	inq := &hitl.Inquiry{ID: 7, Prompt: "Ship it?", RequestType: hitl.RequestApproval, CreatedBy: "bot", Status: hitl.StatusPending}
	n := &hitl.Notification{Reason: hitl.ReasonCreated, Inquiry: inq, PublicURL: "https://hitl.example", InboxURL: "https://hitl.example/inquiries/7",
		AnswerURL: "https://hitl.example/a/tok", ActionToken: "act"}
	m := Message(n)
	if m.Title != "Approval from bot" || m.Tag != "hitl-inquiry-7" || m.URL != n.AnswerURL || len(m.Actions) != 2 || m.ActionURL != "https://hitl.example/push/action" {
		t.Fatalf("created: %+v", m)
	}
	standIn := *n
	standIn.OnBehalfOf = "alice"
	if m := Message(&standIn); m.Title != "Approval from bot for alice, who is away" {
		t.Fatalf("to a stand-in: %+v", m)
	}
	done := *inq
	done.Status, done.RespondedBy = hitl.StatusResponded, &by
	m = Message(&hitl.Notification{Reason: hitl.ReasonResolved, Inquiry: &done, InboxURL: n.InboxURL})
	if m.Title != "Answered by ada" || m.Tag != "hitl-inquiry-7" || len(m.Actions) != 0 || m.URL != n.InboxURL {
		t.Fatalf("resolved: %+v", m)
	}
	expired := *inq
	expired.Status = hitl.StatusTimeout
	if m := Message(&hitl.Notification{Reason: hitl.ReasonResolved, Inquiry: &expired}); m.Title != "Timed out" {
		t.Fatalf("timed out: %+v", m)
	}

	long := *inq
	long.Prompt = strings.Repeat("日本語の長い質問", 200)
	big := *n
	big.Inquiry, big.AnswerURL, big.ActionToken = &long, "https://hitl.example/a/"+strings.Repeat("x", 1700), strings.Repeat("y", 1700)
	if whole, _ := json.Marshal(Message(&big)); len(whole) <= maxPayload {
		t.Fatalf("the test's message fits whole (%d bytes): make it longer", len(whole))
	}
	b, err := payload(Message(&big))
	if err != nil || len(b) > maxPayload || !strings.Contains(string(b), "日本語") {
		t.Fatalf("a long message: %d bytes, %v", len(b), err)
	}
}
