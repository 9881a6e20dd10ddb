package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

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
