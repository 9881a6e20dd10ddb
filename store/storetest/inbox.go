package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// testInboxSessions: an inbox session names its key while it has not expired and its key is
// not revoked; deleting it, or all of its key's, ends it on every reader at once.
func testInboxSessions(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	ada := &hitl.Key{ID: "key_ada", Name: "ada", Roles: []string{"responder"}, Groups: []string{"sre"}, CreatedAt: base}
	bob := &hitl.Key{ID: "key_bob", Name: "bob", Roles: []string{"admin"}, Groups: []string{}, CreatedAt: base}
	session := func(id, key string, ttl time.Duration) *hitl.InboxSession {
		return &hitl.InboxSession{IDHash: id, KeyID: key, CreatedAt: base, ExpiresAt: base.Add(ttl)}
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		for _, k := range []*hitl.Key{ada, bob} {
			if err := tx.InsertKey(k, "token-"+k.ID); err != nil {
				return err
			}
		}
		for _, is := range []*hitl.InboxSession{session("s1", ada.ID, 12*time.Hour), session("s2", ada.ID, 12*time.Hour),
			session("s3", bob.ID, 12*time.Hour), session("short", bob.ID, time.Hour)} {
			if err := tx.InsertInboxSession(is); err != nil {
				return err
			}
		}
		return nil
	}))
	key := func(id string, at time.Time) string {
		t.Helper()
		k, err := s.InboxSessionKey(ctx, id, at)
		if err != nil {
			return code(err)
		}
		return k.ID
	}
	got, err := s.InboxSessionKey(ctx, "s1", base)
	must(t, err)
	if got.ID != ada.ID || got.Name != "ada" || fmt.Sprint(got.Roles) != "[responder]" || fmt.Sprint(got.Groups) != "[sre]" || got.RevokedAt != nil {
		t.Fatalf("the session's key read back as %+v", got)
	}
	for _, tc := range []struct {
		id   string
		at   time.Time
		want string
	}{
		{"unknown", base, hitl.ENotFound},
		{"s3", base.Add(12*time.Hour - time.Microsecond), bob.ID},
		{"s3", base.Add(12 * time.Hour), hitl.ENotFound}, // expired at its time
		{"short", base.Add(2 * time.Hour), hitl.ENotFound},
	} {
		if got := key(tc.id, tc.at); got != tc.want {
			t.Errorf("session %s at %v: %s, want %s", tc.id, tc.at, got, tc.want)
		}
	}

	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.InsertInboxSession(session("s1", bob.ID, time.Hour)); code(err) != hitl.EConflict {
			return fmt.Errorf("a second session with the same id: %v, want conflict", err)
		}
		if err := tx.InsertInboxSession(session("s9", "key_nobody", time.Hour)); code(err) != hitl.ENotFound {
			return fmt.Errorf("a session of no key: %v, want not found", err)
		}
		return nil
	}))
	if got := key("s1", base); got != ada.ID {
		t.Fatalf("a refused second insert changed the first session: %s", got)
	}

	// Sign-out: one session ends, the key's other one goes on.
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.DeleteInboxSession("s1") }))
	err = s.Update(ctx, func(tx hitl.Tx) error { return tx.DeleteInboxSession("s1") })
	if code(err) != hitl.ENotFound {
		t.Errorf("deleting a deleted session: %v, want not found", err)
	}
	if got, other := key("s1", base), key("s2", base); got != hitl.ENotFound || other != ada.ID {
		t.Errorf("after deleting s1: s1 %s, s2 %s", got, other)
	}

	// A revoked key's sessions end with it; deleting them keeps them ended if it comes back.
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.RevokeKey(bob.ID, base) }))
	if got := key("s3", base); got != hitl.ENotFound {
		t.Errorf("a revoked key's session: %s, want not found", got)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.DeleteKeyInboxSessions(bob.ID); err != nil {
			return err
		}
		if err := tx.DeleteKeyInboxSessions("key_nobody"); err != nil {
			return err
		}
		return tx.SetKeyToken(bob.ID, "token-bob-2")
	}))
	if got := key("s3", base); got != hitl.ENotFound {
		t.Errorf("a deleted session of an unrevoked key: %s, want not found", got)
	}

	// Expired sessions are swept; the others stay.
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		return tx.InsertInboxSession(session("s4", ada.ID, time.Hour))
	}))
	var swept int
	must(t, s.Update(ctx, func(tx hitl.Tx) (err error) {
		swept, err = tx.DeleteExpiredInboxSessions(base.Add(time.Hour))
		return err
	}))
	if swept != 1 {
		t.Errorf("swept %d expired sessions, want 1", swept)
	}
	if got := key("s2", base); got != ada.ID {
		t.Errorf("an unexpired session after the sweep: %s", got)
	}

	// A failed change keeps no session.
	err = s.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.InsertInboxSession(session("s5", ada.ID, time.Hour)); err != nil {
			return err
		}
		return fmt.Errorf("changed my mind")
	})
	if err == nil || key("s5", base) != hitl.ENotFound {
		t.Errorf("a rolled-back session: %v, %s", err, key("s5", base))
	}
}
