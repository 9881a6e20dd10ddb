package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// testIdentities: a name gets one integer identity, once, however many transactions ask for
// it at the same moment; keys are read with the identity of their name.
func testIdentities(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		ids = map[int64]bool{}
	)
	for range 8 {
		wg.Go(func() {
			var id int64
			err := s.Update(ctx, func(tx hitl.Tx) (err error) {
				id, err = tx.Identity("alice")
				return err
			})
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			ids[id] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	alice := identity(t, s, "alice")
	bob := identity(t, s, "bob")
	if len(ids) != 1 || !ids[alice] || alice < 1 || bob == alice {
		t.Fatalf("alice got identities %v then %d, bob %d", ids, alice, bob)
	}
	if name, err := s.IdentityName(ctx, bob); err != nil || name != "bob" {
		t.Fatalf("IdentityName(%d) = %q, %v", bob, name, err)
	}
	if _, err := s.IdentityName(ctx, bob+1000); code(err) != hitl.ENotFound {
		t.Fatalf("IdentityName of nobody: %v, want not found", err)
	}
	got, err := s.IdentityIDs(ctx, []string{"alice", "bob", "carol"})
	if err != nil || fmt.Sprint(got) != fmt.Sprint(map[string]int64{"alice": alice, "bob": bob}) {
		t.Fatalf("IdentityIDs = %v, %v", got, err)
	}
	if got, err := s.IdentityIDs(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("IdentityIDs of none = %v, %v", got, err)
	}

	// Keys carry their name's identity: every key of a name the same one, 0 for a name without.
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		for i, name := range []string{"alice", "alice", "dave"} {
			k := &hitl.Key{ID: fmt.Sprintf("key_%d", i), Name: name, Roles: []string{"responder"}, Groups: []string{}, CreatedAt: base}
			if err := tx.InsertKey(k, fmt.Sprintf("hash-%d", i)); err != nil {
				return err
			}
		}
		return nil
	}))
	k, err := s.KeyByTokenHash(ctx, "hash-1")
	if err != nil || k.IdentityID != alice {
		t.Fatalf("alice's second key: %+v, %v; want identity %d", k, err, alice)
	}
	keys, err := s.Keys(ctx)
	must(t, err)
	for _, k := range keys {
		if want := map[string]int64{"alice": alice}[k.Name]; k.IdentityID != want {
			t.Fatalf("key %s of %s has identity %d, want %d", k.ID, k.Name, k.IdentityID, want)
		}
	}
}

// testExecutions: execution is stored and filtered on; an execution records one inquiry, and a
// second one is a conflict that leaves the transaction usable.
func testExecutions(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	a := insert(t, s, newInquiry(1, func(i *hitl.Inquiry) { i.Execution = "123" }))
	insert(t, s, newInquiry(2, func(i *hitl.Inquiry) { i.Execution = "124" }))
	insert(t, s, newInquiry(3))
	b := insert(t, s, newInquiry(4, func(i *hitl.Inquiry) { i.Execution = "123" }))
	got, _, err := s.Inquiries(ctx, hitl.InquiryFilter{Execution: "123", Visibility: hitl.Visibility{All: true}, Page: hitl.Page{Limit: 10}})
	must(t, err)
	if len(got) != 2 || got[0].ID != b.ID || got[1].ID != a.ID || got[0].Execution != "123" {
		t.Fatalf("execution 123 lists %v", got)
	}
	if n, err := s.CountInquiries(ctx, hitl.InquiryFilter{Execution: "123", Visibility: hitl.Visibility{All: true}}); err != nil || n != 2 {
		t.Fatalf("CountInquiries(execution 123) = %d, %v", n, err)
	}
	// Page offsets skip after the order (newest first).
	got, _, err = s.Inquiries(ctx, hitl.InquiryFilter{Visibility: hitl.Visibility{All: true}, Page: hitl.Page{Limit: 2, Offset: 1}})
	must(t, err)
	if len(got) != 2 || got[0].Prompt != "question 3" || got[1].Prompt != "question 2" {
		t.Fatalf("the second and third newest: %v", got)
	}

	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		if _, err := tx.ExecutionInquiry("123"); code(err) != hitl.ENotFound {
			return fmt.Errorf("an execution without a recorded inquiry: %v, want not found", err)
		}
		return tx.InsertExecutionInquiry("123", a.ID)
	}))
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.InsertExecutionInquiry("123", b.ID); code(err) != hitl.EConflict {
			return fmt.Errorf("a second inquiry for execution 123: %v, want conflict", err)
		}
		return tx.InsertExecutionInquiry("124", b.ID) // the transaction goes on
	}))
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		for execution, want := range map[string]int64{"123": a.ID, "124": b.ID} {
			if id, err := tx.ExecutionInquiry(execution); err != nil || id != want {
				return fmt.Errorf("ExecutionInquiry(%s) = %d, %v; want %d", execution, id, err, want)
			}
		}
		return nil
	}))
}

// identity is the integer identity of name, given it first when it has none.
func identity(t *testing.T, s hitl.Store, name string) (id int64) {
	t.Helper()
	must(t, s.Update(context.Background(), func(tx hitl.Tx) (err error) {
		id, err = tx.Identity(name)
		return err
	}))
	return id
}

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
