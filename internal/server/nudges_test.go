package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// nudgeData is the data of inquiry.reminded and inquiry.escalated.
type nudgeData struct {
	hitl.Inquiry
	Reminder int      `json:"reminder"`
	Added    []string `json:"added"`
}

func decodeNudge(t *testing.T, ev *hitl.Event) nudgeData {
	t.Helper()
	var d nudgeData
	must(t, json.Unmarshal(ev.Data, &d))
	return d
}

// An inquiry that reminds and escalates says so in its JSON; the timers follow the server's
// clock, and their events reach the assignees, the new ones included.
func TestRemindersAndEscalationOverHTTP(t *testing.T) {
	t.Parallel()
	start := time.Now().UTC().Truncate(time.Second)
	clk := clock.NewManual(start)
	e := startServer(t, testserver.Configure(func(c *server.Config) { c.Clock = clk }))
	agent := e.token("bot", hitl.RoleAgent)
	bob := e.principal("bob", []string{hitl.RoleResponder})

	r := e.do("POST", "/v1/inquiries", agent, `{"prompt":"Ship it?","assigned_to":["ann"],"remind_every":"90m","escalate_after":"2h","escalate_to":["bob","group:leads"]}`,
		"Content-Type", "application/json")
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.text)
	}
	if r.body["remind_every"] != "1h30m" || r.body["escalate_after"] != "2h" || r.body["reminders_sent"] != float64(0) ||
		r.body["next_reminder_at"] != start.Add(90*time.Minute).Format(time.RFC3339) || r.body["escalated_at"] != nil {
		t.Fatalf("created: %s", r.text)
	}
	id := int64(r.body["id"].(float64))
	if _, err := bob.Inquiry(ctx, id); err == nil {
		t.Fatal("bob sees the inquiry before it escalates")
	}
	events, err := bob.Events(ctx, client.StreamOptions{FromNow: true, Types: []string{hitl.EventInquiryReminded, hitl.EventInquiryEscalated}})
	must(t, err)

	clk.Advance(90 * time.Minute)
	reminded := firstOfType(t, e, id, hitl.EventInquiryReminded)
	if d := decodeNudge(t, reminded); d.Reminder != 1 || d.RemindersSent != 1 || !d.NextReminderAt.Equal(start.Add(3*time.Hour)) {
		t.Fatalf("reminder: %s", reminded.Data)
	}

	clk.Advance(30 * time.Minute)
	ev := next(t, events) // bob sees the escalation that made him an assignee, not the reminder before it
	d := decodeNudge(t, ev)
	if ev.Type != hitl.EventInquiryEscalated || !slices.Equal(d.Added, []string{"bob", "group:leads"}) ||
		!slices.Equal(d.AssignedTo, []string{"ann", "bob", "group:leads"}) || !d.EscalatedAt.Equal(start.Add(2*time.Hour)) {
		t.Fatalf("escalation seen by bob: %s %s", ev.Type, ev.Data)
	}
	got, err := bob.Respond(ctx, id, json.RawMessage(`"yes"`), "")
	must(t, err)
	if got.NextReminderAt != nil || got.RemindersSent != 1 {
		t.Fatalf("answered: next reminder %v after %d", got.NextReminderAt, got.RemindersSent)
	}

	r = e.do("POST", "/v1/inquiries", agent, `{"prompt":"x","remind_every":"20s"}`, "Content-Type", "application/json")
	if !strings.Contains(r.text, "/remind_every: must be a duration like 30m, at least 1m") {
		t.Fatalf("a reminder too often: %d %s", r.status, r.text)
	}
}

// firstOfType waits for the inquiry's first event of a type, read as an admin.
func firstOfType(t *testing.T, e *env, id int64, typ string) *hitl.Event {
	t.Helper()
	var evs []*hitl.Event
	eventually(t, typ, func() bool {
		page, err := e.Admin.EventPage(ctx, client.EventOptions{InquiryID: id, Types: []string{typ}})
		if err != nil {
			return false
		}
		evs = page.Data
		return len(evs) > 0
	})
	return evs[0]
}

// timedCluster is two nodes on one manual clock, with n inquiries asked through either, whose
// timers both nodes hold when it returns.
func timedCluster(t *testing.T, n int, request func(i int) hitl.InquiryRequest) (*cluster, *clock.Manual, []int64) {
	t.Helper()
	clk := clock.NewManual(time.Now().UTC().Truncate(time.Second))
	c := newCluster(t, 2, func(cfg *server.Config) { cfg.Clock = clk })
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	created, err := c.agent[1].Events(sctx, client.StreamOptions{FromNow: true, Types: []string{hitl.EventInquiryCreated}})
	must(t, err)
	var ids []int64
	for i := range n {
		ids = append(ids, ask(t, c.agent[i%2], request(i)).ID)
	}
	// Node 2 streams a creation after it took its timers: then both nodes hold them all.
	for range n {
		next(t, created)
	}
	return c, clk, ids
}

// Two nodes hold every timer and fire together: each reminder and each escalation happens once.
func TestRemindersExactlyOnceAcrossNodes(t *testing.T) {
	const n = 30
	c, clk, ids := timedCluster(t, n, func(i int) hitl.InquiryRequest {
		return hitl.InquiryRequest{Prompt: fmt.Sprintf("q%d", i), AssignedTo: []string{"vic"},
			RemindEvery: "1m", EscalateAfter: "90s", EscalateTo: []string{"ops"}}
	})
	fire := func(d time.Duration, typ string, want int) []*hitl.Event {
		t.Helper()
		clk.Advance(d)
		var evs []*hitl.Event
		eventually(t, fmt.Sprintf("%d %s events", want, typ), func() bool {
			evs = c.events(t, typ)
			return len(evs) >= want
		})
		return evs
	}
	fire(time.Minute, hitl.EventInquiryReminded, n)
	escalated := fire(30*time.Second, hitl.EventInquiryEscalated, n)
	fire(30*time.Second, hitl.EventInquiryReminded, 2*n)
	// A third round after the other two settled: a duplicate of the first two would be in the log by now.
	reminded3 := fire(time.Minute, hitl.EventInquiryReminded, 3*n)
	if len(reminded3) != 3*n || len(c.events(t, hitl.EventInquiryEscalated)) != n {
		t.Fatalf("%d reminders and %d escalations for %d inquiries over three intervals", len(reminded3), len(escalated), n)
	}
	counts := map[int64][]int{}
	for _, ev := range reminded3 {
		counts[*ev.InquiryID] = append(counts[*ev.InquiryID], decodeNudge(t, ev).Reminder)
	}
	for _, id := range ids {
		if !slices.Equal(counts[id], []int{1, 2, 3}) {
			t.Fatalf("inquiry %d: reminders %v", id, counts[id])
		}
	}
	for _, ev := range escalated {
		if d := decodeNudge(t, ev); !slices.Equal(d.Added, []string{"ops"}) || !slices.Equal(d.AssignedTo, []string{"vic", "ops"}) {
			t.Fatalf("escalation: %s", ev.Data)
		}
	}
}
