package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// finish resolves inq took after its creation: answered by by (when status is responded),
// fallen back when fellBack.
func finish(t *testing.T, s hitl.Store, inq *hitl.Inquiry, status hitl.Status, took time.Duration, by string, fellBack bool) {
	t.Helper()
	next := *inq
	next.Status, next.UpdatedAt, next.FallbackApplied = status, inq.CreatedAt.Add(took), fellBack
	if by != "" {
		next.RespondedBy, next.RespondedAt = &by, &next.UpdatedAt
	}
	must(t, s.Update(context.Background(), func(tx hitl.Tx) error { return tx.ResolveInquiry(&next) }))
}

// testStats: the window's counts per UTC day, its answers newest first with their groups and
// times, the bound on the answers read, a responder's own, and the oldest pending inquiry.
func testStats(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	day1 := base                     // 2026-11-22 10:00
	day2 := base.Add(20 * time.Hour) // 2026-11-23 06:00
	at := func(when time.Time, n int, mods ...func(*hitl.Inquiry)) *hitl.Inquiry {
		inq := newInquiry(n, mods...)
		inq.CreatedAt, inq.UpdatedAt = when.Add(time.Duration(n)*time.Second), when.Add(time.Duration(n)*time.Second)
		return insert(t, s, inq)
	}
	approval := func(i *hitl.Inquiry) { i.RequestType = hitl.RequestApproval }
	groups := func(a ...string) func(*hitl.Inquiry) { return func(i *hitl.Inquiry) { i.AssignedTo = a } }

	a1 := at(day1, 1, approval, groups("group:ops", "ann"))
	a2 := at(day1, 2, groups("group:sre", "group:ops"))
	t1 := at(day1, 3, groups("group:ops"))
	t2 := at(day1, 4)
	c1 := at(day2, 5, groups("bob"))
	a3 := at(day2, 6, approval)
	pending := at(day2, 7, groups("bob"))
	annPending := at(day2, 8, groups("ann"))             // pending, created after the other
	old := at(day1.Add(-48*time.Hour), 9, groups("ann")) // answered before the window
	finish(t, s, a1, hitl.StatusResponded, 90*time.Second, "ann", false)
	finish(t, s, a2, hitl.StatusResponded, 30*time.Minute+500*time.Millisecond, "bob", false)
	finish(t, s, t1, hitl.StatusTimeout, time.Hour, "", true)
	finish(t, s, t2, hitl.StatusTimeout, time.Hour, "", false)
	finish(t, s, c1, hitl.StatusCancelled, time.Minute, "", false)
	finish(t, s, a3, hitl.StatusResponded, 20*time.Second, "ann", false)
	finish(t, s, old, hitl.StatusResponded, time.Second, "ann", false)

	q := hitl.StatsQuery{From: day1.Add(-time.Hour), Until: day2.Add(2 * time.Hour), MaxAnswers: 100}
	data, err := s.Stats(ctx, q)
	must(t, err)
	wantDays := []hitl.DayCount{{Date: "2026-11-22", Answered: 2, TimedOut: 2, FellBack: 1}, {Date: "2026-11-23", Answered: 1, Cancelled: 1}}
	if !slices.Equal(data.Days, wantDays) {
		t.Fatalf("days %+v\nwant %+v", data.Days, wantDays)
	}
	answers := func(as []hitl.AnswerTime) string {
		out := ""
		for _, a := range as {
			out += fmt.Sprintf("%s by %s %v took %s; ", a.RequestType, a.RespondedBy, a.Groups, a.AnsweredAt.Sub(a.CreatedAt))
		}
		return out
	}
	sorted := func(as []hitl.AnswerTime) []hitl.AnswerTime {
		for _, a := range as {
			slices.Sort(a.Groups) // in no particular order
		}
		return as
	}
	want := "approval by ann [] took 20s; input by bob [group:ops group:sre] took 30m0.5s; approval by ann [group:ops] took 1m30s; "
	if got := answers(sorted(data.Answers)); got != want || data.More {
		t.Fatalf("answers (more %v):\n%s\nwant\n%s", data.More, got, want)
	}
	if !data.Answers[0].CreatedAt.Equal(a3.CreatedAt) || data.Answers[0].CreatedAt.Location() != time.UTC {
		t.Fatalf("an answer's creation read back as %v, want %v in UTC", data.Answers[0].CreatedAt, a3.CreatedAt)
	}

	// The window's ends are included; what became final outside it is not counted.
	narrow, err := s.Stats(ctx, hitl.StatsQuery{From: a2.CreatedAt.Add(30*time.Minute + 500*time.Millisecond), Until: t1.CreatedAt.Add(time.Hour), MaxAnswers: 100})
	must(t, err)
	if !slices.Equal(narrow.Days, []hitl.DayCount{{Date: "2026-11-22", Answered: 1, TimedOut: 1, FellBack: 1}}) || len(narrow.Answers) != 1 {
		t.Fatalf("a window from a2's answer to t1's timeout: %+v %s", narrow.Days, answers(narrow.Answers))
	}

	// At most MaxAnswers, the newest; More says there were others.
	q.MaxAnswers = 2
	capped, err := s.Stats(ctx, q)
	must(t, err)
	if got := answers(sorted(capped.Answers)); got != "approval by ann [] took 20s; input by bob [group:ops group:sre] took 30m0.5s; " || !capped.More {
		t.Fatalf("capped at 2 (more %v): %s", capped.More, got)
	}
	if !slices.Equal(capped.Days, wantDays) {
		t.Fatalf("the bound on answers changed the counts: %+v", capped.Days)
	}

	// A responder's own: what it answered, and what was assigned to it or its groups.
	q.MaxAnswers = 100
	q.Owner = &hitl.StatsOwner{Name: "bob", Entries: []string{"bob", "group:ops"}}
	own, err := s.Stats(ctx, q)
	must(t, err)
	if !slices.Equal(own.Days, []hitl.DayCount{{Date: "2026-11-22", Answered: 2, TimedOut: 1, FellBack: 1}, {Date: "2026-11-23", Cancelled: 1}}) {
		t.Fatalf("bob's days %+v", own.Days)
	}
	if got := answers(sorted(own.Answers)); got != "input by bob [group:ops group:sre] took 30m0.5s; approval by ann [group:ops] took 1m30s; " {
		t.Fatalf("bob's answers: %s", got)
	}
	none, err := s.Stats(ctx, hitl.StatsQuery{From: q.From, Until: q.Until, MaxAnswers: 100, Owner: &hitl.StatsOwner{Name: "cy", Entries: []string{"cy"}}})
	must(t, err)
	if len(none.Days) != 0 || len(none.Answers) != 0 || none.More {
		t.Fatalf("cy, who has nothing: %+v", none)
	}

	n, oldest, err := s.OldestPending(ctx, nil)
	must(t, err)
	if n != 2 || oldest == nil || oldest.InquiryID != pending.ID || !oldest.CreatedAt.Equal(pending.CreatedAt) {
		t.Fatalf("oldest pending: %d %+v, want 2 and inquiry %d", n, oldest, pending.ID)
	}
	n, oldest, err = s.OldestPending(ctx, &hitl.StatsOwner{Name: "ann", Entries: []string{"ann"}})
	must(t, err)
	if n != 1 || oldest == nil || oldest.InquiryID != annPending.ID {
		t.Fatalf("ann's oldest pending: %d %+v", n, oldest)
	}
	n, oldest, err = s.OldestPending(ctx, &hitl.StatsOwner{Name: "cy", Entries: []string{"cy", "group:x"}})
	if err != nil || n != 0 || oldest != nil {
		t.Fatalf("cy's oldest pending: %d %+v %v", n, oldest, err)
	}
}
