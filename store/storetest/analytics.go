package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// testDecisions: first views are recorded once per inquiry and person (a later view changes
// nothing); Decisions reads the window's answered and timed-out inquiries newest first with
// the first view by anyone and by the person who answered, narrowed to what the visibility
// allows and bounded by Max.
func testDecisions(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	view := func(inq *hitl.Inquiry, person string, after time.Duration) {
		t.Helper()
		must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.RecordView(inq.ID, person, inq.CreatedAt.Add(after)) }))
	}
	a := insert(t, s, newInquiry(1, func(i *hitl.Inquiry) { i.AssignedTo = []string{"ann", "bob"} }))
	b := insert(t, s, newInquiry(2, func(i *hitl.Inquiry) { i.AssignedTo = []string{"carol"} }))
	c := insert(t, s, newInquiry(3))
	pending := insert(t, s, newInquiry(4))
	view(a, "bob", 5*time.Second)
	view(a, "ann", 8*time.Second)
	view(a, "ann", 2*time.Second) // not the first: changes nothing
	view(b, "carol", time.Second)
	view(pending, "ann", time.Second)
	finish(t, s, a, hitl.StatusResponded, 30*time.Second, "ann", false)
	finish(t, s, b, hitl.StatusTimeout, time.Minute, "", false)
	finish(t, s, c, hitl.StatusResponded, 2*time.Minute, "dan", false)

	q := hitl.DecisionQuery{From: base, Until: base.Add(time.Hour), Visibility: hitl.Visibility{All: true}, Max: 10}
	facts, more, err := s.Decisions(ctx, q)
	must(t, err)
	if more || len(facts) != 3 || facts[0].Inquiry.ID != c.ID || facts[1].Inquiry.ID != b.ID || facts[2].Inquiry.ID != a.ID {
		t.Fatalf("decisions %+v more %v", facts, more)
	}
	if f := facts[2]; f.FirstViewAt == nil || !f.FirstViewAt.Equal(a.CreatedAt.Add(5*time.Second)) ||
		f.AnswererViewAt == nil || !f.AnswererViewAt.Equal(a.CreatedAt.Add(8*time.Second)) {
		t.Fatalf("a's views %v %v", f.FirstViewAt, f.AnswererViewAt)
	}
	if f := facts[1]; f.Inquiry.Status != hitl.StatusTimeout || f.FirstViewAt == nil || f.AnswererViewAt != nil {
		t.Fatalf("b %+v", f)
	}
	if f := facts[0]; f.FirstViewAt != nil || f.AnswererViewAt != nil {
		t.Fatalf("c was never seen: %+v", f)
	}
	q.Max = 2
	if facts, more, err := s.Decisions(ctx, q); err != nil || !more || len(facts) != 2 {
		t.Fatalf("bounded: %d %v %v", len(facts), more, err)
	}
	q.Max, q.Visibility = 10, hitl.Visibility{Responder: true, AnswerableBy: []string{"ann"}}
	facts, _, err = s.Decisions(ctx, q)
	must(t, err)
	if len(facts) != 2 || facts[0].Inquiry.ID != c.ID || facts[1].Inquiry.ID != a.ID {
		t.Fatalf("ann's: %+v", facts)
	}
	q.From = base.Add(time.Hour)
	if facts, _, err := s.Decisions(ctx, q); err != nil || len(facts) != 0 {
		t.Fatalf("outside the window: %+v %v", facts, err)
	}
}
