package slack_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/slackpeer"
	"github.com/hitl-dev/hitl/notify"
)

// TestSendThreadsAndUpdates: the first notification posts and names its message; reminders
// reply in its thread and add themselves; once resolved, every one of them loses its buttons.
func TestSendThreadsAndUpdates(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval})
	send := func(reason hitl.NotifyReason, thread string, inq *hitl.Inquiry) (notify.SendResult, error) {
		return w.client.Send(context.Background(), &notify.Notification{Thread: thread, Notification: hitl.Notification{
			Channel: hitl.ChannelSlack, Reason: reason, Recipient: "ada", Address: "U0ADA", Inquiry: inq,
			InboxURL: "https://hitl.example.com/inquiries/1"}})
	}
	first, err := send(hitl.ReasonCreated, "", inq)
	if err != nil || !strings.HasPrefix(first.Thread, "D0ADA ") || len(strings.Fields(first.Thread)) != 2 {
		t.Fatalf("created: %+v, %v; want the thread \"D0ADA TS\"", first, err)
	}
	root := strings.Fields(first.Thread)[1]
	second, err := send(hitl.ReasonReminder, first.Thread, inq)
	if err != nil {
		t.Fatal(err)
	}
	reply := w.peer.Calls("chat.postMessage")[1]
	if reply.Form.Get("channel") != "D0ADA" || reply.Form.Get("thread_ts") != root {
		t.Errorf("the reminder went to %q in thread %q, want D0ADA %s", reply.Form.Get("channel"), reply.Form.Get("thread_ts"), root)
	}
	if f := strings.Fields(second.Thread); len(f) != 3 || f[1] != root {
		t.Errorf("after the reminder the thread is %q, want the first message then the reply", second.Thread)
	}

	answered := *inq
	by := "ada"
	answered.Status, answered.RespondedBy = hitl.StatusResponded, &by
	if _, err := send(hitl.ReasonResolved, second.Thread, &answered); err != nil {
		t.Fatal(err)
	}
	updates := w.peer.Calls("chat.update")
	if len(updates) != 2 {
		t.Fatalf("%d updates, want the message and its reminder", len(updates))
	}
	for i, u := range updates {
		if u.Form.Get("ts") != strings.Fields(second.Thread)[i+1] || len(actionIDs(u.Blocks(t))) != 1 {
			t.Errorf("update %d: ts %s, buttons %v; want only the inbox link left", i, u.Form.Get("ts"), actionIDs(u.Blocks(t)))
		}
	}

	// An inquiry whose first message never got through has nothing to update.
	if _, err := send(hitl.ReasonResolved, "", &answered); err != nil || len(w.peer.Calls("chat.update")) != 2 {
		t.Errorf("resolved without a message: %v, %d updates", err, len(w.peer.Calls("chat.update")))
	}
}

// TestSendToADelegateSaysForWhom: a notification for alice sent to her delegate opens with a
// line that says for whom.
func TestSendToADelegateSaysForWhom(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval})
	if _, err := w.client.Send(context.Background(), &notify.Notification{Notification: hitl.Notification{
		Channel: hitl.ChannelSlack, Reason: hitl.ReasonCreated, Recipient: "bob", OnBehalfOf: "alice", Address: "U0ADA", Inquiry: inq,
		InboxURL: "https://hitl.example.com/inquiries/1"}}); err != nil {
		t.Fatal(err)
	}
	blocks := w.peer.Calls("chat.postMessage")[0].Blocks(t)
	if len(blocks) == 0 || blocks[0]["type"] != "context" || !strings.Contains(fmt.Sprint(blocks[0]), "For *alice*, who is away") {
		t.Fatalf("the first block is %v", blocks[0])
	}
}

// TestSendSaysFailuresInTheDispatchersTerms: 429 waits as long as Slack asks, a refusal that
// will not change stops, Slack's trouble is retried with backoff.
func TestSendSaysFailuresInTheDispatchersTerms(t *testing.T) {
	w := newWorld(t)
	inq := w.ask(&hitl.InquiryRequest{Prompt: "Ok?", RequestType: hitl.RequestApproval})
	send := func() error {
		_, err := w.client.Send(context.Background(), &notify.Notification{Notification: hitl.Notification{
			Channel: hitl.ChannelSlack, Reason: hitl.ReasonCreated, Address: "C0OPS", Inquiry: inq}})
		return err
	}
	w.peer.FailNext("chat.postMessage", slackpeer.Failure{Status: http.StatusTooManyRequests, RetryAfter: "12"})
	var wait *notify.RetryAfter
	if err := send(); !errors.As(err, &wait) || wait.Wait != 12*time.Second {
		t.Errorf("429: %v, want RetryAfter 12s", err)
	}
	w.peer.FailNext("chat.postMessage", slackpeer.Failure{Code: "channel_not_found"})
	var perm *notify.PermanentError
	if err := send(); !errors.As(err, &perm) || !strings.Contains(err.Error(), "channel_not_found") {
		t.Errorf("channel_not_found: %v, want a PermanentError that says so", err)
	}
	w.peer.FailNext("chat.postMessage", slackpeer.Failure{Status: http.StatusBadGateway})
	if err := send(); err == nil || errors.As(err, &perm) || errors.As(err, &wait) {
		t.Errorf("502: %v, want a plain error, retried with backoff", err)
	}
	w.peer.FailNext("chat.update", slackpeer.Failure{Code: "message_not_found"})
	w.peer.FailNext("chat.update", slackpeer.Failure{Status: http.StatusServiceUnavailable})
	_, err := w.client.Send(context.Background(), &notify.Notification{Thread: "C0OPS 1.1 1.2", Notification: hitl.Notification{
		Channel: hitl.ChannelSlack, Reason: hitl.ReasonResolved, Address: "C0OPS", Inquiry: inq}})
	if err == nil || errors.As(err, &perm) {
		t.Errorf("one update gone, one failed for now: %v, want a retry", err)
	}
}
