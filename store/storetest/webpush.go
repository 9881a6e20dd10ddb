package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// testWebPush: a device is put, put again under its endpoint (replaced, even for another
// person), listed by person, read by endpoint, deleted once; an action token is used once, and
// the uses of expired tokens are forgotten, a batch at a time.
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

	use := func(id string, expires time.Time) error {
		return s.Update(ctx, func(tx hitl.Tx) error { return tx.UseWebPushAction(id, expires) })
	}
	forget := func(before time.Time, limit int) int {
		t.Helper()
		var n int
		must(t, s.Update(ctx, func(tx hitl.Tx) (err error) { n, err = tx.DeleteWebPushActionUses(before, limit); return err }))
		return n
	}
	must(t, use("tok-1", base.Add(time.Hour)))
	if err := use("tok-1", base.Add(time.Hour)); code(err) != hitl.EConflict {
		t.Fatalf("second use: %v", err)
	}
	must(t, use("tok-2", base.Add(time.Hour)))
	must(t, use("tok-3", base.Add(3*time.Hour)))
	// A use is kept until its token expired (the token is refused for its expiry by then),
	// then forgotten, a batch at a time.
	if n := forget(base.Add(time.Hour), 10); n != 0 {
		t.Fatalf("forgot %d uses of tokens not yet expired", n)
	}
	if err := use("tok-2", base.Add(time.Hour)); code(err) != hitl.EConflict {
		t.Fatalf("a use was forgotten before its token expired: %v", err)
	}
	if n1, n2 := forget(base.Add(2*time.Hour), 1), forget(base.Add(2*time.Hour), 10); n1 != 1 || n2 != 1 {
		t.Fatalf("forgot %d, then %d uses of the 2 expired tokens", n1, n2)
	}
	must(t, use("tok-1", base.Add(3*time.Hour)))
	if err := use("tok-3", base.Add(3*time.Hour)); code(err) != hitl.EConflict {
		t.Fatalf("the use of a token not yet expired was forgotten: %v", err)
	}
}
