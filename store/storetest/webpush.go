package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// testWebPush: a device is put, put again under its endpoint (replaced, even for another
// person), listed by person, read by endpoint, deleted once; an action token is used once, and
// the uses of expired tokens are forgotten.
func testWebPush(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	put := func(sub *hitl.PushSubscription) {
		t.Helper()
		must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.PutWebPushSubscription(sub) }))
	}
	exp := base.Add(48 * time.Hour)
	put(&hitl.PushSubscription{Endpoint: "https://push.example/a1", Person: "alice", P256DH: "pa1", Auth: "aa1", CreatedAt: base})
	put(&hitl.PushSubscription{Endpoint: "https://push.example/a2", Person: "alice", P256DH: "pa2", Auth: "aa2", ExpiresAt: &exp, CreatedAt: base.Add(time.Second)})
	put(&hitl.PushSubscription{Endpoint: "https://push.example/b1", Person: "bob", P256DH: "pb1", Auth: "ab1", CreatedAt: base})
	put(&hitl.PushSubscription{Endpoint: "https://push.example/b1", Person: "bob", P256DH: "pb1-new", Auth: "ab1-new", CreatedAt: base.Add(2 * time.Second)})

	list, err := s.WebPushSubscriptions(ctx, []string{"alice", "bob", "carol"})
	must(t, err)
	if len(list) != 3 || list[0].Endpoint != "https://push.example/a1" || list[0].ExpiresAt != nil || list[1].ExpiresAt == nil || !list[1].ExpiresAt.Equal(exp) ||
		list[2].Person != "bob" || list[2].P256DH != "pb1-new" || list[2].Auth != "ab1-new" || !list[2].CreatedAt.Equal(base.Add(2*time.Second)) {
		t.Fatalf("subscriptions: %+v", list)
	}
	if none, err := s.WebPushSubscriptions(ctx, []string{}); err != nil || len(none) != 0 {
		t.Fatalf("subscriptions of nobody: %v %v", none, err)
	}
	if all, err := s.WebPushSubscriptions(ctx, nil); err != nil || len(all) != 3 {
		t.Fatalf("subscriptions of everyone: %v %v", all, err)
	}
	// A browser that another person signs in on takes its endpoint along.
	put(&hitl.PushSubscription{Endpoint: "https://push.example/a1", Person: "bob", P256DH: "px", Auth: "ax", CreatedAt: base.Add(3 * time.Second)})
	got, err := s.WebPushSubscription(ctx, "https://push.example/a1")
	if err != nil || got.Person != "bob" || got.P256DH != "px" {
		t.Fatalf("moved subscription: %+v %v", got, err)
	}
	if _, err := s.WebPushSubscription(ctx, "https://push.example/nope"); code(err) != hitl.ENotFound {
		t.Fatalf("unknown endpoint: %v", err)
	}
	deleteOnce(t, s, func(tx hitl.Tx) error { return tx.DeleteWebPushSubscription("https://push.example/a2") })
	if list, err := s.WebPushSubscriptions(ctx, []string{"alice"}); err != nil || len(list) != 0 {
		t.Fatalf("alice after delete: %+v %v", list, err)
	}

	use := func(id string, expires, now time.Time) error {
		return s.Update(ctx, func(tx hitl.Tx) error { return tx.UseWebPushAction(id, expires, now) })
	}
	must(t, use("tok-1", base.Add(time.Hour), base))
	if err := use("tok-1", base.Add(time.Hour), base); code(err) != hitl.EConflict {
		t.Fatalf("second use: %v", err)
	}
	must(t, use("tok-2", base.Add(time.Hour), base))
	// Past its expiry, a use is forgotten (the token is refused for its expiry by then).
	must(t, use("tok-3", base.Add(3*time.Hour), base.Add(2*time.Hour)))
	must(t, use("tok-1", base.Add(3*time.Hour), base.Add(2*time.Hour)))
}
