package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
)

// retain does what the engine's retention does, once: find what the rule allows off the
// writer, remove it, and append the checkpoint in the same transaction.
func retain(t *testing.T, s hitl.Store, r hitl.RetentionRule) *hitl.Removal {
	t.Helper()
	ctx := context.Background()
	b, err := s.RetentionCandidates(ctx, r, 100)
	must(t, err)
	var removed *hitl.Removal
	must(t, s.Update(ctx, func(tx hitl.Tx) (err error) {
		if removed, err = tx.RemoveResolved(b, r); err != nil || len(removed.Inquiries)+len(removed.Sessions) == 0 {
			return err
		}
		cp := hitl.AuditCheckpoint{Before: r.Before, Inquiries: removed.Inquiries, Sessions: removed.Sessions, Removed: audit.Runs(removed.Events)}
		ev := &hitl.Event{ID: fmt.Sprintf("cp-%d", time.Now().UnixNano()), Type: hitl.EventAuditCheckpoint, Time: base, Actor: "retention", Data: mustJSON(t, cp)}
		return tx.AppendEvent(ev)
	}))
	return removed
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return b
}

// testRetention: only what the rule allows goes, with everything kept for it, and the log
// verifies across the gaps through the checkpoint.
func testRetention(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	cutoff := base.Add(time.Hour)
	old := func(i *hitl.Inquiry) { i.Metadata = map[string]string{"team": "sre"}; i.AssignedTo = []string{"alice"} }
	inSession := func(key string) func(*hitl.Inquiry) { return func(i *hitl.Inquiry) { i.Session = key } }
	var (
		gone       = insert(t, s, newInquiry(1, old))                   // ended before the cutoff
		pending    = insert(t, s, newInquiry(2))                        // never ended
		recent     = insert(t, s, newInquiry(3))                        // ended after the cutoff
		delivering = insert(t, s, newInquiry(4))                        // a delivery still waits on it
		finished   = insert(t, s, newInquiry(5, inSession("done-run"))) // goes with its session
		running    = insert(t, s, newInquiry(6, inSession("live-run"))) // its session still runs
		lateEvent  = insert(t, s, newInquiry(7))                        // has an event past Through
		kept       = []*hitl.Inquiry{pending, recent, delivering, running, lateEvent}
	)
	redemption := hitl.ReceiptRedemption{ID: "rcpt_gone", InquiryID: gone.ID, RedeemedAt: base, RedeemedBy: "executor"}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.InsertIdempotencyKey("agent-a", "k-gone", "h", gone.ID, base); err != nil {
			return err
		}
		_, _, err := tx.RedeemReceipt(redemption)
		return err
	}))
	// A first view goes with its inquiry (its foreign key would keep the inquiry otherwise).
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.RecordView(gone.ID, "alice", base) }))
	for _, inq := range []*hitl.Inquiry{gone, pending, recent, delivering, finished, running, lateEvent} {
		appendEvent(t, s, inq, hitl.EventInquiryCreated)
	}
	for _, inq := range []*hitl.Inquiry{gone, delivering, finished, running, lateEvent} {
		must(t, resolve(t, s, inq, hitl.StatusResponded)) // ends a minute after it began: before the cutoff
		appendEvent(t, s, inq, hitl.EventInquiryResponded)
	}
	next := *recent
	next.Status, next.UpdatedAt = hitl.StatusCancelled, cutoff.Add(time.Minute)
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.ResolveInquiry(&next) }))
	d := newDelivery(1, "", "b.example")
	d.InquiryID = &delivering.ID
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertDelivery(d) }))
	sess, err := s.Session(ctx, "done-run")
	must(t, err)
	ended := base.Add(10 * time.Minute)
	sess.Status, sess.CompletedAt, sess.UpdatedAt = hitl.SessionCompleted, &ended, ended
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.UpdateSession(sess) }))
	through, err := s.LastEventSeq(ctx)
	must(t, err)
	late := appendEvent(t, s, lateEvent, hitl.EventInquiryResumed)

	var goneSeqs []int64
	must(t, s.ChainedEvents(ctx, 0, func(ev *hitl.Event, _ []byte) error {
		if *ev.InquiryID == gone.ID || *ev.InquiryID == finished.ID {
			goneSeqs = append(goneSeqs, ev.Seq)
		}
		return nil
	}))
	removed := retain(t, s, hitl.RetentionRule{Before: cutoff, Through: through})
	slices.Sort(removed.Inquiries)
	if fmt.Sprint(removed.Inquiries) != fmt.Sprint([]int64{gone.ID, finished.ID}) || fmt.Sprint(removed.Sessions) != "[done-run]" {
		t.Fatalf("removed inquiries %v and sessions %v; want [%d %d] and [done-run]", removed.Inquiries, removed.Sessions, gone.ID, finished.ID)
	}
	var removedSeqs []int64
	for _, ev := range removed.Events {
		if len(ev.Hash) != 32 {
			t.Fatalf("removed event %d has hash %x", ev.Seq, ev.Hash)
		}
		removedSeqs = append(removedSeqs, ev.Seq)
	}
	if fmt.Sprint(removedSeqs) != fmt.Sprint(goneSeqs) {
		t.Fatalf("removed events %v; want their events in seq order, %v", removedSeqs, goneSeqs)
	}
	for _, id := range removed.Inquiries {
		if _, err := s.Inquiry(ctx, id); code(err) != hitl.ENotFound {
			t.Errorf("inquiry %d after its removal: %v", id, err)
		}
	}
	if _, err := s.Session(ctx, "done-run"); code(err) != hitl.ENotFound {
		t.Errorf("session done-run after its removal: %v", err)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		if _, _, err := tx.IdempotencyKey("agent-a", "k-gone"); code(err) != hitl.ENotFound {
			return fmt.Errorf("the idempotency key of a removed inquiry: %v", err)
		}
		// Its receipt's redemption went with it: the same id is recorded anew.
		if _, redeemed, err := tx.RedeemReceipt(redemption); err != nil || !redeemed {
			return fmt.Errorf("the redemption of a removed inquiry's receipt is still there (%v)", err)
		}
		return nil
	}))
	for _, inq := range kept {
		if _, err := s.Inquiry(ctx, inq.ID); err != nil {
			t.Errorf("inquiry %d (%s) was removed: %v", inq.ID, inq.Prompt, err)
		}
	}
	// A search finds what is kept, and nothing removed.
	var keptIDs []int64
	for _, inq := range kept {
		keptIDs = append(keptIDs, inq.ID)
	}
	slices.Reverse(keptIDs)
	if got := list(t, s, hitl.InquiryFilter{Text: "QUESTION", Visibility: hitl.Visibility{All: true}}); !same(got, keptIDs) {
		t.Errorf("a search after the removal found %v; want what is kept, %v", got, keptIDs)
	}
	if evs, err := s.Events(ctx, hitl.EventFilter{InquiryID: lateEvent.ID, Visibility: hitl.Visibility{All: true}, Limit: 10}); err != nil || len(evs) != 3 || evs[2].ID != late.ID {
		t.Errorf("the events of an inquiry with one past Through: %v, %v", evs, err)
	}

	v, err := audit.VerifyLog(ctx, s, audit.Published{})
	if err != nil {
		t.Fatalf("the log after retention: %v", err)
	}
	if v.Removed != int64(len(goneSeqs)) {
		t.Fatalf("verified %d events with %d removed; want %d removed", v.Events, v.Removed, len(goneSeqs))
	}
	// A second round finds nothing more to remove under the same rule.
	if again := retain(t, s, hitl.RetentionRule{Before: cutoff, Through: through}); len(again.Inquiries)+len(again.Sessions) != 0 {
		t.Fatalf("a second round removed %v and %v", again.Inquiries, again.Sessions)
	}
}
