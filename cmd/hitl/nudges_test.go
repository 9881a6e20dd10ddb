package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

func TestAskWithRemindersAndEscalation(t *testing.T) {
	admin, _ := startServer(t)
	done := make(chan int, 1)
	go func() {
		code, _, _ := cli(t, "ask", "Ship it?", "--assign", "ann", "--remind-every", "30m", "--escalate-after", "2h",
			"--escalate-to", "bob", "--escalate-to", "group:leads", "--urgent")
		done <- code
	}()
	id := pendingID(t, admin)
	inq, err := admin.Inquiry(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if inq.RemindEvery.String() != "30m" || inq.EscalateAfter.String() != "2h" || inq.Priority != hitl.PriorityUrgent || !slices.Equal(inq.EscalateTo, []string{"bob", "group:leads"}) || inq.NextReminderAt == nil {
		t.Fatalf("asked with remind_every %v, escalate_after %v to %v, next reminder %v", inq.RemindEvery, inq.EscalateAfter, inq.EscalateTo, inq.NextReminderAt)
	}
	_, out, _ := cli(t, "show", fmt.Sprint(id))
	for _, want := range []string{"Reminders    every 30m, 0 sent; the next at ", "Escalation   to bob and the group leads when nobody has answered 2h after it was asked"} {
		if !strings.Contains(out, want) {
			t.Errorf("show does not say %q:\n%s", want, out)
		}
	}
	if code, _, errOut := cli(t, "cancel", fmt.Sprint(id)); code != 0 {
		t.Fatalf("cancel: %d %s", code, errOut)
	}
	if code := <-done; code != exitCancelled {
		t.Fatalf("ask exited %d", code)
	}
	ladder, _, err := admin.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: "Climb?", Escalate: []hitl.EscalationStepRequest{
		{After: "1h", AssignedTo: hitl.Assignees{"bob"}}, {After: "2h", AssignedTo: hitl.Assignees{"group:leads"}, Channels: []string{"slack"}}}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, out, _ = cli(t, "show", fmt.Sprint(ladder.ID))
	for _, want := range []string{"Escalation 1  after 1h adds bob; next, at ", "Escalation 2  after 2h adds the group leads by slack\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("show does not say %q:\n%s", want, out)
		}
	}
	code, _, errOut := cli(t, "ask", "x", "--remind-every", "10s")
	if code != exitError || !strings.Contains(errOut, "must be a duration like 30m, at least 1m") {
		t.Fatalf("bad reminder: %d %q", code, errOut)
	}
}

func TestTailSaysWhatARemindersAndAnEscalationDid(t *testing.T) {
	id := int64(7)
	for typ, want := range map[string]string{
		hitl.EventInquiryReminded:  `inquiry 7 pending "Ship it?": reminded the assignees (2nd reminder)`,
		hitl.EventInquiryEscalated: `inquiry 7 pending "Ship it?": escalated to bob and the group leads`,
	} {
		data, _ := json.Marshal(map[string]any{"id": 7, "status": "pending", "prompt": "Ship it?", "assigned_to": []string{"ann", "bob", "group:leads"},
			"reminder": 2, "added": []string{"bob", "group:leads"}})
		var out bytes.Buffer
		printEvent(&out, &hitl.Event{Seq: 3, Type: typ, Time: time.Now(), InquiryID: &id, Actor: "system", Data: data})
		if !strings.Contains(out.String(), want) {
			t.Errorf("tail printed %q, want %q in it", out.String(), want)
		}
	}
}
