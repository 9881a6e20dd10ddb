package bench_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/audit"
	"github.com/hitl-dev/hitl/internal/bench"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// TestCopiedInquiriesAreAudited: the bench's preloaded inquiries are stored as the engine
// stores one, each row with its event, so a server on them finds the audit chain whole and
// every row what its events say, and every copy keeps a deadline of its own.
func TestCopiedInquiriesAreAudited(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(st, engine.Options{})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(time.Hour)
	agent := &hitl.Principal{Name: "bench-preload", Roles: []string{hitl.RoleAgent}}
	if _, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Later", TimeoutAt: &at}, ""); err != nil {
		t.Fatal(err)
	}
	e.Stop(ctx)
	st.Close()

	const copies = 12_000 // more than one transaction's worth
	if err := bench.CopyPendingInquiry(path, copies); err != nil {
		t.Fatal(err)
	}
	st, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, err := audit.VerifyLog(ctx, st, audit.Published{})
	if err != nil || v.Events < copies+1 {
		t.Fatalf("the chain: %+v, %v", v, err)
	}
	var found []string
	count, err := audit.VerifyStates(ctx, st, func(m *audit.Mismatch) error { found = append(found, m.Error()); return nil })
	if err != nil || len(found) > 0 || count.Inquiries != copies+1 {
		t.Fatalf("the stored states: %+v, %v, %q", count, err, found)
	}
	pending, _, err := st.Inquiries(ctx, hitl.InquiryFilter{Status: hitl.StatusPending, Visibility: hitl.Visibility{All: true}, Page: hitl.Page{Limit: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	deadlines := map[time.Time]bool{}
	for _, inq := range pending {
		deadlines[*inq.TimeoutAt] = true
	}
	if len(deadlines) < len(pending)/2 {
		t.Fatalf("%d of %d copies have a deadline of their own", len(deadlines), len(pending))
	}
	// The copies stand for questions asked long ago: a server started on them has no
	// outbox backlog of their events to work through beside what it is measured on.
	last, err := st.LastEventSeq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cursor, err := st.OutboxCursor(ctx); err != nil || cursor != last {
		t.Fatalf("the outbox cursor is at %d (%v), want the last copy's event, %d", cursor, err, last)
	}
}
