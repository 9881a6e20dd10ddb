package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// testPushConfigs: an inquiry's push configs are put (the same ID again replaces its URL, token
// and version), listed for several inquiries at once, deleted once, rolled back with their
// transaction, and removed with their inquiry by retention.
func testPushConfigs(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	a, b := insert(t, s, newInquiry(1)), insert(t, s, newInquiry(2))
	put := func(c *hitl.PushConfig) {
		t.Helper()
		must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.PutPushConfig(c) }))
	}
	put(&hitl.PushConfig{InquiryID: a.ID, ID: "first", URL: "https://a.example/hook", Token: "tok-1", CreatedBy: "agent-a", CreatedAt: base})
	put(&hitl.PushConfig{InquiryID: a.ID, ID: "second", URL: "https://a.example/two", Token: "", CreatedBy: "agent-a", CreatedAt: base.Add(1)})
	put(&hitl.PushConfig{InquiryID: b.ID, ID: "first", URL: "https://b.example/hook", Token: "tok-b", CreatedBy: "agent-a", CreatedAt: base})
	put(&hitl.PushConfig{InquiryID: a.ID, ID: "first", URL: "https://a.example/moved", Token: "tok-2", Version: "1.0", CreatedBy: "agent-a", CreatedAt: base.Add(5)})
	if err := s.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.PutPushConfig(&hitl.PushConfig{InquiryID: b.ID, ID: "rolled-back", URL: "https://b.example/x", CreatedBy: "agent-a", CreatedAt: base}); err != nil {
			return err
		}
		return hitl.Errorf(hitl.EInvalid, "changed my mind")
	}); code(err) != hitl.EInvalid {
		t.Fatalf("rolled back put: %v", err)
	}

	list, err := s.PushConfigs(ctx, []int64{a.ID, b.ID})
	must(t, err)
	if len(list) != 3 || list[0].InquiryID != a.ID || list[0].ID != "first" || list[0].URL != "https://a.example/moved" || list[0].Token != "tok-2" || list[0].Version != "1.0" ||
		!list[0].CreatedAt.Equal(base) || list[1].ID != "second" || list[2].InquiryID != b.ID || list[2].Token != "tok-b" || list[2].CreatedBy != "agent-a" {
		t.Fatalf("push configs: %+v", list)
	}
	if none, err := s.PushConfigs(ctx, nil); err != nil || len(none) != 0 {
		t.Fatalf("push configs of no inquiry: %v %v", none, err)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		in, err := tx.InquiryPushConfigs(a.ID)
		if err == nil && (len(in) != 2 || in[0].ID != "first" || in[1].ID != "second" || in[0].Token != "tok-2") {
			t.Errorf("push configs of inquiry %d in a transaction: %+v", a.ID, in)
		}
		return err
	}))
	deleteOnce(t, s, func(tx hitl.Tx) error { return tx.DeletePushConfig(a.ID, "second") })
	if list, err := s.PushConfigs(ctx, []int64{a.ID}); err != nil || len(list) != 1 || list[0].ID != "first" {
		t.Fatalf("after delete: %+v %v", list, err)
	}

	must(t, resolve(t, s, b, hitl.StatusResponded))
	through, err := s.LastEventSeq(ctx)
	must(t, err)
	retain(t, s, hitl.RetentionRule{Before: base.Add(24 * time.Hour), Through: through})
	if list, err := s.PushConfigs(ctx, []int64{a.ID, b.ID}); err != nil || len(list) != 1 || list[0].InquiryID != a.ID {
		t.Fatalf("after retention removed inquiry %d: %+v %v", b.ID, list, err)
	}
}
