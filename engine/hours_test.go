package engine_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// officeHours are Monday to Friday, nine to five.
var officeHours = hitl.WorkingHours{"mon": {"09:00", "17:00"}, "tue": {"09:00", "17:00"}, "wed": {"09:00", "17:00"},
	"thu": {"09:00", "17:00"}, "fri": {"09:00", "17:00"}}

func putHours(t *testing.T, e *engine.Engine, name, zone string, hours hitl.WorkingHours) {
	t.Helper()
	if _, err := e.PutPerson(ctx, admin, name, &hitl.PersonRequest{Email: name + "@example.com", TimeZone: zone, WorkingHours: hours}); err != nil {
		t.Fatal(err)
	}
}

func zoned(t *testing.T, zone string, y int, m time.Month, d, h, min int) time.Time {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	return time.Date(y, m, d, h, min, 0, 0, loc).UTC()
}

func sameAt(a *time.Time, b time.Time) bool { return a != nil && a.Equal(b) }

// fridayEvening opens an engine at 17:30 on a Friday in Berlin, where ann works Monday to
// Friday, nine to five.
func fridayEvening(t *testing.T) (start time.Time, c *clock.Manual, e *engine.Engine, stop func()) {
	t.Helper()
	start = zoned(t, "Europe/Berlin", 2026, time.November, 27, 17, 30)
	c = clock.NewManual(start)
	e, stop = open(t, filepath.Join(t.TempDir(), "db"), c)
	putHours(t, e, "ann", "Europe/Berlin", officeHours)
	return start, c, e, stop
}

// A reminder due at 18:00 on a Friday in Berlin, for a person who works Monday to Friday nine
// to five there, comes on Monday at nine; the next one an interval later, within the hours.
func TestReminderWaitsForMondayMorning(t *testing.T) {
	start, c, e, stop := fridayEvening(t)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", AssignedTo: []string{"ann"}, RemindEvery: "30m", TimeoutSeconds: new(int64(5 * 86400))}, "")
	if err != nil {
		t.Fatal(err)
	}
	monday := zoned(t, "Europe/Berlin", 2026, time.November, 30, 9, 0)
	if inq.Priority != hitl.PriorityNormal || !sameAt(inq.NextReminderAt, monday) {
		t.Fatalf("priority %q, next reminder %v, want %v", inq.Priority, inq.NextReminderAt, monday)
	}
	c.Advance(monday.Sub(start) - time.Minute)
	eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 0)
	c.Advance(time.Minute)
	r := eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 1)[0]
	if !sameAt(r.NextReminderAt, monday.Add(30*time.Minute)) {
		t.Fatalf("after Monday's reminder the next is at %v", r.NextReminderAt)
	}
}

func TestUrgentInquiryRemindsAtNight(t *testing.T) {
	start, c, e, stop := fridayEvening(t)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", AssignedTo: []string{"ann"}, RemindEvery: "30m",
		Priority: hitl.PriorityUrgent, Escalate: []hitl.EscalationStepRequest{{After: "1h", AssignedTo: hitl.Assignees{"ann2"}}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if inq.Priority != hitl.PriorityUrgent || !sameAt(inq.NextReminderAt, start.Add(30*time.Minute)) ||
		!sameAt(inq.Escalation.NextAt, start.Add(time.Hour)) {
		t.Fatalf("urgent: next reminder %v, escalation %v", inq.NextReminderAt, inq.Escalation.NextAt)
	}
	c.Advance(30 * time.Minute)
	eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 1)
}

// Berlin leaves summer time on the last Sunday of October: Monday's nine o'clock is an hour
// later in UTC than Friday's.
func TestReminderWaitsAcrossTheClockChange(t *testing.T) {
	start := zoned(t, "Europe/Berlin", 2026, time.October, 23, 18, 0) // Friday, CEST (UTC+2)
	c := clock.NewManual(start)
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	putHours(t, e, "ann", "Europe/Berlin", officeHours)
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", AssignedTo: []string{"ann"}, RemindEvery: "1h"}, "")
	if err != nil {
		t.Fatal(err)
	}
	monday := time.Date(2026, time.October, 26, 8, 0, 0, 0, time.UTC) // 09:00 CET (UTC+1)
	if !sameAt(inq.NextReminderAt, monday) {
		t.Fatalf("next reminder %v, want %v", inq.NextReminderAt, monday)
	}
	c.Advance(monday.Sub(start))
	eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 1)
}

// A nudge waits only when nobody it reaches is at work, and then until the first of them starts.
func TestRemindersWaitForTheFirstOfSeveralZones(t *testing.T) {
	start := time.Date(2026, time.November, 27, 16, 30, 0, 0, time.UTC) // Friday: 17:30 in Berlin, 11:30 in New York
	c := clock.NewManual(start)
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	putHours(t, e, "ann", "Europe/Berlin", officeHours)
	putHours(t, e, "bob", "America/New_York", officeHours)
	putHours(t, e, "cid", "", nil) // no hours: always at work
	ask := func(every string, to ...string) *hitl.Inquiry {
		t.Helper()
		inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", AssignedTo: to, RemindEvery: every}, "")
		if err != nil {
			t.Fatal(err)
		}
		return inq
	}
	// 18:00 in Berlin is noon in New York: bob works.
	if both := ask("1h", "ann", "bob"); !sameAt(both.NextReminderAt, start.Add(time.Hour)) {
		t.Fatalf("ann and bob at 17:30 UTC: %v", both.NextReminderAt)
	}
	// 23:30 UTC: past midnight in Berlin, 18:30 in New York; Berlin's Monday comes first.
	berlinMonday := time.Date(2026, time.November, 30, 8, 0, 0, 0, time.UTC)
	if both := ask("7h", "ann", "bob"); !sameAt(both.NextReminderAt, berlinMonday) {
		t.Fatalf("ann and bob at 23:30 UTC: %v, want %v", both.NextReminderAt, berlinMonday)
	}
	newYorkMonday := time.Date(2026, time.November, 30, 14, 0, 0, 0, time.UTC)
	if alone := ask("7h", "bob"); !sameAt(alone.NextReminderAt, newYorkMonday) {
		t.Fatalf("bob alone at 23:30 UTC: %v, want %v", alone.NextReminderAt, newYorkMonday)
	}
	// Someone without hours, or a group, is always reachable.
	for _, to := range [][]string{{"bob", "cid"}, {"bob", "group:ops"}, {}} {
		if inq := ask("7h", to...); !sameAt(inq.NextReminderAt, start.Add(7*time.Hour)) {
			t.Fatalf("%v at 23:30 UTC: %v", to, inq.NextReminderAt)
		}
	}
}

// The deadline never waits: a reminder that would wait past it is not sent, and the inquiry
// times out on time.
func TestDeadlineDoesNotWaitForWorkingHours(t *testing.T) {
	start, c, e, stop := fridayEvening(t)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", AssignedTo: []string{"ann"}, RemindEvery: "30m",
		TimeoutSeconds: new(int64(3 * 3600)), Escalate: []hitl.EscalationStepRequest{{After: "1h", AssignedTo: hitl.Assignees{"bob"}}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if inq.NextReminderAt != nil {
		t.Fatalf("a reminder after the deadline: %v", inq.NextReminderAt)
	}
	c.Advance(3 * time.Hour)
	timedOut := eventsOf(t, e, inq.ID, hitl.EventInquiryTimeout, 1)[0]
	if timedOut.Status != hitl.StatusTimeout || !timedOut.UpdatedAt.Equal(start.Add(3*time.Hour)) || timedOut.Escalation.NextAt != nil {
		t.Fatalf("timed out: %s at %v, escalation %+v", timedOut.Status, timedOut.UpdatedAt, timedOut.Escalation)
	}
	eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 0)
	eventsOf(t, e, inq.ID, hitl.EventInquiryEscalated, 0)
}

// A ladder's steps fire in order, each once, adding their people; the inquiry says how far
// it got and when the next step comes.
func TestEscalationLadderStepsFireInOrderOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	start := time.Now().UTC().Truncate(time.Second)
	c := clock.NewManual(start)
	e, stop := open(t, path, c)
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ship?", AssignedTo: []string{"ann"}, Escalate: []hitl.EscalationStepRequest{
		{After: "1h", AssignedTo: hitl.Assignees{"bob"}},
		{After: "2h", AssignedTo: hitl.Assignees{"cid", "bob"}, Channels: []string{"email"}},
		{After: "3h", AssignedTo: hitl.Assignees{"group:leads"}, Channels: []string{"slack", "chat_webhook"}},
	}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if l := inq.Escalation; l == nil || len(l.Steps) != 3 || l.Reached != 0 || !sameAt(l.NextAt, start.Add(time.Hour)) ||
		inq.EscalateAfter.String() != "1h" || !slices.Equal(inq.EscalateTo, []string{"bob"}) {
		t.Fatalf("created: %+v, escalate_after %v to %v", l, inq.EscalateAfter, inq.EscalateTo)
	}
	c.Advance(time.Hour)
	first := eventsOf(t, e, inq.ID, hitl.EventInquiryEscalated, 1)[0]
	if first.Step != 1 || !slices.Equal(first.Added, []string{"bob"}) || first.Escalation.Reached != 1 ||
		!sameAt(first.Escalation.NextAt, start.Add(2*time.Hour)) || !sameAt(first.EscalatedAt, start.Add(time.Hour)) ||
		!sameAt(first.Escalation.Steps[0].ReachedAt, start.Add(time.Hour)) {
		t.Fatalf("step 1: %+v", first)
	}
	// A restart between steps: the next step's timer is read back from the store.
	stop()
	e, stop = open(t, path, c)
	defer stop()
	c.Advance(time.Hour)
	second := eventsOf(t, e, inq.ID, hitl.EventInquiryEscalated, 2)[1]
	if second.Step != 2 || !slices.Equal(second.Added, []string{"cid"}) || !slices.Equal(second.Channels, []string{"email"}) ||
		!slices.Equal(second.AssignedTo, []string{"ann", "bob", "cid"}) || !sameAt(second.EscalatedAt, start.Add(time.Hour)) {
		t.Fatalf("step 2: %+v", second)
	}
	c.Advance(time.Hour)
	third := eventsOf(t, e, inq.ID, hitl.EventInquiryEscalated, 3)[2]
	if third.Step != 3 || third.Escalation.Reached != 3 || third.Escalation.NextAt != nil {
		t.Fatalf("step 3: %+v", third.Escalation)
	}
	c.Advance(5 * time.Hour)
	eventsOf(t, e, inq.ID, hitl.EventInquiryEscalated, 3)
	got, err := e.Inquiry(ctx, admin, inq.ID)
	if err != nil || got.Escalation.Reached != 3 || got.Escalation.NextAt != nil {
		t.Fatalf("after the ladder: %+v %v", got.Escalation, err)
	}
}

// A step waits for its people's hours; the steps due by then fire together, in order.
func TestEscalationStepWaitsForWorkingHours(t *testing.T) {
	start := zoned(t, "Europe/Berlin", 2026, time.November, 27, 16, 0) // Friday
	c := clock.NewManual(start)
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	putHours(t, e, "bob", "Europe/Berlin", officeHours)
	putHours(t, e, "cid", "Europe/Berlin", officeHours)
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ship?", AssignedTo: []string{"ann"}, Escalate: []hitl.EscalationStepRequest{
		{After: "2h", AssignedTo: hitl.Assignees{"bob"}},
		{After: "3h", AssignedTo: hitl.Assignees{"cid"}},
	}}, "")
	if err != nil {
		t.Fatal(err)
	}
	monday := zoned(t, "Europe/Berlin", 2026, time.November, 30, 9, 0)
	if !sameAt(inq.Escalation.NextAt, monday) {
		t.Fatalf("first step at %v, want %v", inq.Escalation.NextAt, monday)
	}
	c.Advance(monday.Sub(start))
	evs := eventsOf(t, e, inq.ID, hitl.EventInquiryEscalated, 2)
	if evs[0].Step != 1 || evs[1].Step != 2 || evs[1].Escalation.Reached != 2 || !slices.Equal(evs[1].AssignedTo, []string{"ann", "bob", "cid"}) {
		t.Fatalf("steps on Monday: %+v / %+v", evs[0], evs[1])
	}
}

// Each ladder step notifies the people it adds on its own channels (none listed: theirs), in
// their time zone; a step's channels leave out rooms unless they list chat_webhook.
func TestLadderStepsNotifyOnTheirChannels(t *testing.T) {
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().UTC().Truncate(time.Second)
	c := clock.NewManual(start)
	e := engine.New(st, engine.Options{Clock: c, AllowPrivateURLs: true, Notify: engine.NotifyOptions{Channels: []string{hitl.ChannelEmail, hitl.ChannelSlack}, PublicURL: "https://hitl.example"}})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { e.Stop(ctx); st.Close() }()
	for name, zone := range map[string]string{"ada": "", "bob": "Asia/Tokyo", "cid": "America/Chicago"} {
		id := strings.ToUpper(name)
		if _, err := e.PutPerson(ctx, admin, name, &hitl.PersonRequest{Email: name + "@example.com", SlackUserID: "U0" + id, TimeZone: zone}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.CreateChatWebhook(ctx, admin, &hitl.ChatWebhookRequest{Kind: hitl.ChatSlack, URL: "http://127.0.0.1:9/room", Events: []string{hitl.EventInquiryEscalated}}); err != nil {
		t.Fatal(err)
	}
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Ship?", AssignedTo: []string{"ada"}, Escalate: []hitl.EscalationStepRequest{
		{After: "1h", AssignedTo: hitl.Assignees{"bob"}, Channels: []string{"slack"}},
		{After: "2h", AssignedTo: hitl.Assignees{"cid"}},
	}}, "")
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(2 * time.Hour)
	want := []string{
		"created email ada@example.com", "created slack U0ADA",
		"escalation chat_webhook", "escalation email cid@example.com", "escalation slack U0BOB", "escalation slack U0CID",
	}
	var got []string
	if !testserver.WaitFor(10*time.Second, func() bool {
		got = notifications(t, st, inq.ID)
		for i, g := range got { // a room's address is its webhook's generated ID
			if strings.HasPrefix(g, "escalation chat_webhook ") {
				got[i] = "escalation chat_webhook"
			}
		}
		slices.Sort(got)
		return slices.Equal(got, want)
	}) {
		t.Fatalf("notifications:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ds, _, err := st.Deliveries(ctx, hitl.DeliveryFilter{Kind: hitl.DeliveryNotification, InquiryID: inq.ID, Page: hitl.Page{Limit: 100}})
	if err != nil {
		t.Fatal(err)
	}
	zones := map[string]string{}
	for _, d := range ds {
		var n hitl.Notification
		if err := json.Unmarshal(d.Payload, &n); err != nil {
			t.Fatal(err)
		}
		zones[d.Recipient] = n.TimeZone
	}
	if zones["bob"] != "Asia/Tokyo" || zones["cid"] != "America/Chicago" || zones["ada"] != "" {
		t.Fatalf("the notifications' zones: %v", zones)
	}
}

// A request's ladder replaces a template's escalation (and the other way round): they describe
// one thing.
func TestLadderReplacesATemplatesEscalation(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), clock.NewManual(time.Now()))
	defer stop()
	putTemplate(t, e, "release", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "Release?", EscalateAfter: "1h", EscalateTo: hitl.Assignees{"bob"}, Priority: hitl.PriorityUrgent}})
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Template: "release", Escalate: []hitl.EscalationStepRequest{
		{After: "30m", AssignedTo: hitl.Assignees{"cid"}}, {After: "2h", AssignedTo: hitl.Assignees{"dan"}}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(inq.Escalation.Steps) != 2 || inq.EscalateAfter.String() != "30m" || !slices.Equal(inq.EscalateTo, []string{"cid"}) || inq.Priority != hitl.PriorityUrgent {
		t.Fatalf("from the template with a ladder: %+v, escalate_after %v to %v, %s", inq.Escalation, inq.EscalateAfter, inq.EscalateTo, inq.Priority)
	}
}

// A reminder for ann while she is away goes to her stand-in, so it keeps the stand-in's hours:
// 18:00 on a Friday in Berlin is noon in New York, where kim, who stands in for her, works.
func TestReminderForAnAwayPersonKeepsTheStandInsHours(t *testing.T) {
	start, c, e, stop := fridayEvening(t)
	defer stop()
	putHours(t, e, "kim", "America/New_York", officeHours)
	absent(t, e, c, "ann", "kim", 0, 7*24*time.Hour)
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", AssignedTo: []string{"ann"}, RemindEvery: "30m", TimeoutSeconds: new(int64(5 * 86400))}, "")
	if err != nil {
		t.Fatal(err)
	}
	due := start.Add(30 * time.Minute)
	if !sameAt(inq.NextReminderAt, due) {
		t.Fatalf("next reminder %v, want %v (kim's working hours, not ann's)", inq.NextReminderAt, due)
	}
	c.Advance(30 * time.Minute)
	eventsOf(t, e, inq.ID, hitl.EventInquiryReminded, 1)
}

// Times the timers wait for are in UTC, like every other time the API shows, whatever the
// zone of the person whose hours they waited for.
func TestWaitedTimersAreInUTC(t *testing.T) {
	_, _, e, stop := fridayEvening(t)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", AssignedTo: []string{"ann"}, RemindEvery: "30m",
		Escalate: []hitl.EscalationStepRequest{{After: "1h", AssignedTo: []string{"ann"}}}, TimeoutSeconds: new(int64(5 * 86400))}, "")
	if err != nil {
		t.Fatal(err)
	}
	if inq.NextReminderAt == nil || inq.NextReminderAt.Location() != time.UTC {
		t.Fatalf("next reminder %v is not in UTC", inq.NextReminderAt)
	}
	if inq.Escalation == nil || inq.Escalation.NextAt == nil || inq.Escalation.NextAt.Location() != time.UTC {
		t.Fatalf("escalation %+v: next step not in UTC", inq.Escalation)
	}
}
