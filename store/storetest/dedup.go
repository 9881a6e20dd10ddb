package storetest

import (
	"context"
	"testing"

	"github.com/hitl-dev/hitl"
)

// testDedup: one pending primary per dedup key (a second is a conflict, and rolls back nothing
// else); the primary is found with its fingerprint; the inquiries joined to it are listed
// oldest first; SetJoined promotes one once the primary ended, and a key is free again then.
func testDedup(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	keyed := func(inq *hitl.Inquiry) { inq.DedupKey, inq.DedupHash = "deploy", "h1" }
	primary := insert(t, s, newInquiry(1, keyed))
	err := s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertInquiry(newInquiry(2, keyed)) })
	if code(err) != hitl.EConflict {
		t.Fatalf("a second pending primary of a key: %v, want a conflict", err)
	}
	joinedTo := func(id int64) func(*hitl.Inquiry) { return func(inq *hitl.Inquiry) { inq.Joined = &id } }
	a := insert(t, s, newInquiry(3, keyed, joinedTo(primary.ID)))
	b := insert(t, s, newInquiry(4, keyed, joinedTo(primary.ID)))
	insert(t, s, newInquiry(5, func(inq *hitl.Inquiry) { inq.DedupKey, inq.DedupHash = "other", "h2" }))
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		got, err := tx.PendingDedupPrimary("deploy")
		if err != nil {
			return err
		}
		if got.ID != primary.ID || got.DedupHash != "h1" || got.DedupKey != "deploy" {
			t.Fatalf("the primary of deploy: %+v", got)
		}
		if _, err := tx.PendingDedupPrimary("nobody"); code(err) != hitl.ENotFound {
			t.Fatalf("the primary of an unused key: %v, want not found", err)
		}
		joined, err := tx.JoinedInquiries(primary.ID)
		if err != nil {
			return err
		}
		if len(joined) != 2 || joined[0].ID != a.ID || joined[1].ID != b.ID || *joined[0].Joined != primary.ID {
			t.Fatalf("joined to the primary: %v", joined)
		}
		return nil
	}))
	// The primary ends; the oldest joined takes its place, the other joins that one.
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		ended := *primary
		ended.Status = hitl.StatusCancelled
		if err := tx.ResolveInquiry(&ended); err != nil {
			return err
		}
		next := *a
		next.Joined = nil
		if err := tx.SetJoined(&next); err != nil {
			return err
		}
		rest := *b
		rest.Joined = &a.ID
		return tx.SetJoined(&rest)
	}))
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		got, err := tx.PendingDedupPrimary("deploy")
		if err != nil || got.ID != a.ID || got.Joined != nil {
			t.Fatalf("the primary after the promotion: %+v %v", got, err)
		}
		joined, err := tx.JoinedInquiries(a.ID)
		if err != nil || len(joined) != 1 || joined[0].ID != b.ID {
			t.Fatalf("joined to the promoted one: %v %v", joined, err)
		}
		return nil
	}))
	// Lists for people leave the joined out.
	got, _, err := s.Inquiries(ctx, hitl.InquiryFilter{Primaries: true, Status: hitl.StatusPending, Visibility: hitl.Visibility{All: true}, Page: hitl.Page{Limit: 10}})
	must(t, err)
	for _, inq := range got {
		if inq.Joined != nil {
			t.Fatalf("a list of primaries holds joined inquiry %d", inq.ID)
		}
	}
	if len(got) != 2 {
		t.Fatalf("%d pending primaries, want 2 (deploy's and other's)", len(got))
	}
	ended := *b
	ended.Status = hitl.StatusCancelled
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.ResolveInquiry(&ended) }))
	if err := s.Update(ctx, func(tx hitl.Tx) error { return tx.SetJoined(b) }); code(err) != hitl.EConflict {
		t.Fatalf("SetJoined of an ended inquiry: %v, want a conflict", err)
	}
}
