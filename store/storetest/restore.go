package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
)

// testMoveSequences: Sequences reads where the inquiry ids, integer identities and event
// seqs stand; MoveSequences moves them, so that the next of each is the number it was given,
// appends its event at the seq it was given, skipping those in between, with the audit chain
// going on from the event before the gap.
func testMoveSequences(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	sequences := func() (seq hitl.Sequences) {
		t.Helper()
		must(t, s.Update(ctx, func(tx hitl.Tx) (err error) {
			seq, err = tx.Sequences()
			return err
		}))
		return seq
	}
	if got := sequences(); got != (hitl.Sequences{}) {
		t.Fatalf("the sequences of an empty store: %+v", got)
	}
	a := insert(t, s, newInquiry(1))
	b := insert(t, s, newInquiry(2))
	alice := identity(t, s, "alice")
	appendEvent(t, s, a, hitl.EventInquiryCreated)
	last := appendEvent(t, s, b, hitl.EventInquiryCreated)
	cur := sequences()
	if cur.Inquiry != b.ID || cur.Identity != alice || cur.Event != last.Seq || !cur.EventTime.Equal(last.Time) {
		t.Fatalf("sequences %+v; want inquiry %d, identity %d, event %d at %s", cur, b.ID, alice, last.Seq, last.Time)
	}

	const inquiry, ident, seq = 1_000_000, 2_000_000, 3_000_000
	data, err := json.Marshal(hitl.AuditRestore{Skipped: hitl.SeqRange{From: cur.Event + 1, To: seq - 1}, NextInquiryID: inquiry, NextIdentity: ident})
	must(t, err)
	restored := &hitl.Event{ID: "restore", Type: hitl.EventAuditRestored, Time: base.Add(time.Hour), Actor: "test", Data: data}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		return tx.MoveSequences(hitl.Sequences{Inquiry: inquiry, Identity: ident, Event: seq}, restored)
	}))
	if restored.Seq != seq {
		t.Fatalf("the restore's event got seq %d, want %d", restored.Seq, seq)
	}
	if c := insert(t, s, newInquiry(3)); c.ID != inquiry {
		t.Fatalf("the inquiry after the move got id %d, want %d", c.ID, inquiry)
	}
	if id := identity(t, s, "bob"); id != ident {
		t.Fatalf("the identity after the move is %d, want %d", id, ident)
	}
	if next := appendEvent(t, s, a, hitl.EventInquiryResponded); next.Seq != seq+1 {
		t.Fatalf("the event after the move got seq %d, want %d", next.Seq, seq+1)
	}
	evs, err := s.Events(ctx, hitl.EventFilter{After: cur.Event, Limit: 1, Visibility: hitl.Visibility{All: true}})
	must(t, err)
	if len(evs) != 1 || evs[0].ID != "restore" || evs[0].Seq != seq {
		t.Fatalf("the event after the last one before the move: %+v", evs)
	}
	v, err := audit.VerifyLog(ctx, s, audit.Published{})
	if err != nil || v.Seq != seq+1 || v.Removed != 0 {
		t.Fatalf("the chain across the restore's gap: %v (through seq %d, %d removed)", err, v.Seq, v.Removed)
	}
	if got := sequences(); got.Inquiry != inquiry || got.Identity != ident || got.Event != seq+1 {
		t.Fatalf("sequences after the move: %+v", got)
	}
	if id := identity(t, s, "alice"); id != alice {
		t.Fatalf("alice's identity changed with the move: %d, was %d", id, alice)
	}

	// A database a server runs on carries no backup's mark.
	var taken time.Time
	must(t, s.Update(ctx, func(tx hitl.Tx) (err error) {
		taken, err = tx.TakeBackupMark()
		return err
	}))
	if !taken.IsZero() {
		t.Fatalf("a backup's mark in a store that is no backup: %s", taken)
	}
}
