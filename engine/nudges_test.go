package engine_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// nudgeEvent is a reminder's or an escalation's event data.
type nudgeEvent struct {
	hitl.Inquiry
	Reminder int      `json:"reminder"`
	Added    []string `json:"added"`
	Step     int      `json:"step"`
	Channels []string `json:"channels"`
}

// eventsOf waits until the inquiry has n events of type typ and returns them.
func eventsOf(t *testing.T, e *engine.Engine, id int64, typ string, n int) []nudgeEvent {
	t.Helper()
	var evs []*hitl.Event
	testserver.Eventually(t, 5*time.Second, typ+" events", func() bool {
		var err error
		evs, err = e.Events(ctx, admin, hitl.EventFilter{InquiryID: id, Types: []string{typ}, Limit: 100})
		return err == nil && len(evs) >= n
	})
	if len(evs) != n {
		t.Fatalf("%d %s events, want %d", len(evs), typ, n)
	}
	out := make([]nudgeEvent, n)
	for i, ev := range evs {
		if err := json.Unmarshal(ev.Data, &out[i]); err != nil {
			t.Fatal(err)
		}
		if ev.Actor != "system" || *ev.InquiryID != id {
			t.Fatalf("%s event by %s about %d", typ, ev.Actor, *ev.InquiryID)
		}
	}
	return out
}

func TestRemindersFireOncePerIntervalUntilAnswered(t *testing.T) {
	start := time.Now().UTC().Truncate(time.Second)
	c := clock.NewManual(start)
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", AssignedTo: []string{"ann"}, RemindEvery: "30m"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if inq.RemindEvery == nil || inq.RemindEvery.String() != "30m" || !inq.NextReminderAt.Equal(start.Add(30*time.Minute)) {
		t.Fatalf("created with remind_every %v, next reminder %v", inq.RemindEvery, inq.NextReminderAt)
	}
	c.Advance(29 * time.Minute) // not yet
	c.Advance(time.Minute)
	first := eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 1)[0]
	if first.Reminder != 1 || first.RemindersSent != 1 || !first.NextReminderAt.Equal(start.Add(time.Hour)) || first.Prompt != "ok?" {
		t.Fatalf("first reminder: %+v", first)
	}
	c.Advance(30 * time.Minute)
	evs := eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 2) // the first did not fire again
	if evs[1].Reminder != 2 || !evs[1].NextReminderAt.Equal(start.Add(90*time.Minute)) {
		t.Fatalf("second reminder: %+v", evs[1])
	}
	answered, err := e.Respond(ctx, human, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"yes"`)})
	if err != nil {
		t.Fatal(err)
	}
	if answered.NextReminderAt != nil || answered.RemindersSent != 2 {
		t.Fatalf("answered: next reminder %v after %d", answered.NextReminderAt, answered.RemindersSent)
	}
	// Another inquiry's reminder fires after the answered one's would have: the answered one stays quiet.
	other, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "and this?", RemindEvery: "31m"}, "")
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(31 * time.Minute)
	eventsOf(t, e, other.ID, hitl.EventInquiryReminded, 1)
	eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 2)
}

func TestRemindersStopBeforeTheDeadline(t *testing.T) {
	start := time.Now().UTC().Truncate(time.Second)
	c := clock.NewManual(start)
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", RemindEvery: "1h", TimeoutSeconds: seconds(7200)}, "")
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Hour)
	if r := eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 1)[0]; r.NextReminderAt != nil {
		t.Fatalf("a reminder at the deadline is planned: %v", r.NextReminderAt)
	}
}

func TestEscalationAddsAssigneesOnce(t *testing.T) {
	start := time.Now().UTC().Truncate(time.Second)
	c := clock.NewManual(start)
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ship?", AssignedTo: []string{"ann", "group:leads"},
		EscalateAfter: "2h", EscalateTo: []string{"bob", "group:leads"}, RemindEvery: "1h"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Inquiry(ctx, bob, inq.ID); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("bob before the escalation: %v", err)
	}
	c.Advance(time.Hour)
	eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 1)
	eventsOf(t, e, inq.ID, hitl.EventInquiryEscalated, 0)
	c.Advance(time.Hour) // the escalation and the second reminder are due together
	esc := eventsOf(t, e, inq.ID, hitl.EventInquiryEscalated, 1)[0]
	if !slices.Equal(esc.Added, []string{"bob"}) || !slices.Equal(esc.AssignedTo, []string{"ann", "group:leads", "bob"}) ||
		esc.EscalatedAt == nil || !esc.EscalatedAt.Equal(start.Add(2*time.Hour)) {
		t.Fatalf("escalated: added %v, assigned to %v at %v", esc.Added, esc.AssignedTo, esc.EscalatedAt)
	}
	eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 2)
	seen, err := e.Inquiry(ctx, bob, inq.ID)
	if err != nil || seen.EscalatedAt == nil {
		t.Fatalf("bob after the escalation: %v %v", seen, err)
	}
	if _, err := e.Respond(ctx, bob, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"go"`)}); err != nil {
		t.Fatalf("bob answers: %v", err)
	}
	c.Advance(3 * time.Hour)
	eventsOf(t, e, inq.ID, hitl.EventInquiryEscalated, 1)
}

func TestOverdueReminderFiresOnceAfterRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	start := time.Now().UTC().Truncate(time.Second)
	c := clock.NewManual(start)
	e, stop := open(t, path, c)
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", RemindEvery: "30m", EscalateAfter: "1h", EscalateTo: []string{"bob"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	stop()
	// Down for five hours: ten reminders and the escalation were missed.
	c.Advance(5 * time.Hour)
	e, stop = open(t, path, c)
	defer stop()
	r := eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 1)[0]
	if r.Reminder != 1 || !r.NextReminderAt.Equal(start.Add(5*time.Hour+30*time.Minute)) {
		t.Fatalf("after the restart: reminder %d, next at %v", r.Reminder, r.NextReminderAt)
	}
	// The unassigned inquiry stays open to everyone; bob is added for the notifications.
	if esc := eventsOf(t, e, inq.ID, hitl.EventInquiryEscalated, 1)[0]; !slices.Equal(esc.Added, []string{"bob"}) || len(esc.AssignedTo) != 0 {
		t.Fatalf("escalated: added %v, assigned to %v", esc.Added, esc.AssignedTo)
	}
	c.Advance(30 * time.Minute)
	eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 2)
}
