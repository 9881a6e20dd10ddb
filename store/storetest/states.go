package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
)

// stateEvent appends an event of inq (of its session when inq is nil) whose data is what
// the engine would write: the inquiry, or the session s, as it is now.
func stateEvent(t *testing.T, tx hitl.Tx, inq *hitl.Inquiry, s *hitl.Session, typ string) error {
	t.Helper()
	ev := &hitl.Event{ID: fmt.Sprintf("state-%s-%d", typ, time.Now().UnixNano()), Type: typ, Time: base, Actor: "a"}
	var err error
	if inq != nil {
		id := inq.ID
		ev.InquiryID, ev.Session = &id, inq.Session
		ev.Data, err = json.Marshal(inq)
	} else {
		ev.Session = s.Key
		ev.Data, err = json.Marshal(s)
	}
	if err != nil {
		return err
	}
	return tx.AppendEvent(ev)
}

// testStoredStates: InquiryStates and SessionStates read each row with its newest event (of
// no inquiry, for a session), a page at a time in key order or by name, and list a key that
// has only events too; what retention removed has neither.
func testStoredStates(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	var ids []int64
	for n := 1; n <= 5; n++ {
		inq := newInquiry(n, func(i *hitl.Inquiry) { i.Session = "s1" })
		must(t, s.Update(ctx, func(tx hitl.Tx) error {
			if n == 1 {
				if err := tx.InsertSession(newSession("s1")); err != nil {
					return err
				}
				if err := stateEvent(t, tx, nil, newSession("s1"), hitl.EventSessionUpdated); err != nil {
					return err
				}
			}
			if err := tx.InsertInquiry(inq); err != nil {
				return err
			}
			return stateEvent(t, tx, inq, nil, hitl.EventInquiryCreated)
		}))
		ids = append(ids, inq.ID)
	}
	// The session's newest event is one of its inquiries'; its own newest is before it.
	answered := newInquiry(1, func(i *hitl.Inquiry) { i.ID, i.Session, i.Status = ids[0], "s1", hitl.StatusResponded })
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.ResolveInquiry(answered); err != nil {
			return err
		}
		return stateEvent(t, tx, answered, nil, hitl.EventInquiryResponded)
	}))
	// An inquiry with events and no row, a row with no events, a session with no row.
	ghost := ids[4] + 100
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		return stateEvent(t, tx, newInquiry(9, func(i *hitl.Inquiry) { i.ID = ghost }), nil, hitl.EventInquiryCreated)
	}))
	bare := insert(t, s, newInquiry(6))
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		return stateEvent(t, tx, nil, newSession("s0"), hitl.EventSessionUpdated)
	}))

	page, err := s.InquiryStates(ctx, hitl.StateQuery[int64]{After: ids[1], Limit: 3})
	must(t, err)
	if len(page) != 3 || page[0].Key != ids[2] || page[2].Key != ids[4] {
		t.Fatalf("a page of 3 after %d: %d states, the first %+v", ids[1], len(page), page[0])
	}
	for _, st := range page {
		if st.Stored == nil || st.Stored.ID != st.Key || st.Newest == nil || *st.Newest.InquiryID != st.Key || st.Newest.Type != hitl.EventInquiryCreated {
			t.Fatalf("inquiry %d: stored %+v, newest %+v", st.Key, st.Stored, st.Newest)
		}
	}
	rest, err := s.InquiryStates(ctx, hitl.StateQuery[int64]{After: ids[4], Limit: 3})
	must(t, err)
	if len(rest) != 2 || rest[0].Key != bare.ID || rest[0].Newest != nil || rest[0].Stored == nil ||
		rest[1].Key != ghost || rest[1].Stored != nil || rest[1].Newest == nil {
		t.Fatalf("the row without events and the events without a row: %+v", rest)
	}
	named, err := s.InquiryStates(ctx, hitl.StateQuery[int64]{Only: []int64{ids[0], 99999}})
	must(t, err)
	if len(named) != 2 || named[0].Newest == nil || named[0].Newest.Type != hitl.EventInquiryResponded || named[0].Stored.Status != hitl.StatusResponded ||
		named[1].Stored != nil || named[1].Newest != nil {
		t.Fatalf("by name: %+v %+v", named[0], named[1])
	}

	sessions, err := s.SessionStates(ctx, hitl.StateQuery[string]{Limit: 10})
	must(t, err)
	if len(sessions) != 2 || sessions[0].Key != "s0" || sessions[0].Stored != nil || sessions[0].Newest == nil ||
		sessions[1].Key != "s1" || sessions[1].Stored == nil || sessions[1].Newest == nil || sessions[1].Newest.InquiryID != nil || sessions[1].Newest.Type != hitl.EventSessionUpdated {
		t.Fatalf("sessions: %+v", sessions)
	}
	// Read without what reads derive from the session's inquiries, which are pending.
	if st := sessions[1].Stored; st.Status != hitl.SessionRunning || st.PendingInquiries != 0 || st.InquiriesAsked != 0 {
		t.Fatalf("the stored session: %+v", st)
	}
	n, err := audit.VerifyStates(ctx, s, func(m *audit.Mismatch) error {
		if m.Inquiry != bare.ID && m.Inquiry != ghost && m.Session != "s0" {
			t.Errorf("a mismatch of what holds: %v", m)
		}
		return nil
	})
	if err != nil || n.Inquiries != 7 || n.Sessions != 2 {
		t.Fatalf("compared %+v, %v; want 7 inquiries and 2 sessions", n, err)
	}

	// Retention removes an inquiry with its events: it has neither.
	must(t, resolve(t, s, bare, hitl.StatusCancelled))
	last, err := s.LastEventSeq(ctx)
	must(t, err)
	retain(t, s, hitl.RetentionRule{Before: base.Add(time.Hour), Through: last})
	gone, err := s.InquiryStates(ctx, hitl.StateQuery[int64]{Only: []int64{bare.ID}})
	must(t, err)
	if len(gone) != 1 || gone[0].Stored != nil || gone[0].Newest != nil {
		t.Fatalf("an inquiry retention removed: %+v", gone[0])
	}
}

// testStoredStatesAreOneSnapshot: while writers change inquiries, each with its event in the
// same transaction, every state read has the row its newest event says, on every read.
func testStoredStatesAreOneSnapshot(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	var ids []int64
	for n := range 4 {
		inq := newInquiry(n)
		must(t, s.Update(ctx, func(tx hitl.Tx) error {
			if err := tx.InsertInquiry(inq); err != nil {
				return err
			}
			return stateEvent(t, tx, inq, nil, hitl.EventInquiryCreated)
		}))
		ids = append(ids, inq.ID)
	}
	var (
		wg   sync.WaitGroup
		done = make(chan struct{})
	)
	for w, id := range ids {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				err := s.Update(ctx, func(tx hitl.Tx) error {
					cur, err := tx.Inquiry(id)
					if err != nil {
						return err
					}
					next := *cur
					next.Prompt, next.UpdatedAt = fmt.Sprintf("writer %d, change %d", w, i), cur.UpdatedAt.Add(time.Microsecond)
					if err := tx.UpdatePendingInquiry(&next); err != nil {
						return err
					}
					return stateEvent(t, tx, &next, nil, hitl.EventInquiryClaimed)
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	reads := 0
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline) || reads < 20; reads++ {
		q := hitl.StateQuery[int64]{Limit: 10}
		if reads%2 == 1 {
			q = hitl.StateQuery[int64]{Only: ids}
		}
		_, err := audit.VerifyStates(ctx, onlyInquiries{s, q}, func(m *audit.Mismatch) error { return m })
		if err != nil {
			close(done)
			wg.Wait()
			t.Fatalf("read %d, while the writers change the inquiries: %v", reads, err)
		}
	}
	close(done)
	wg.Wait()
	if last, err := s.LastEventSeq(ctx); err != nil || last < 40 {
		t.Fatalf("the writers wrote %d events (%v); the test means them to write more while it reads", last, err)
	}
}

// onlyInquiries reads the inquiries of q whatever page is asked for, and no session.
type onlyInquiries struct {
	hitl.Store
	q hitl.StateQuery[int64]
}

func (o onlyInquiries) InquiryStates(ctx context.Context, q hitl.StateQuery[int64]) ([]*hitl.InquiryState, error) {
	if q.After > 0 {
		return nil, nil
	}
	return o.Store.InquiryStates(ctx, o.q)
}

func (onlyInquiries) SessionStates(context.Context, hitl.StateQuery[string]) ([]*hitl.SessionState, error) {
	return nil, nil
}

// RunStateTamper checks that the comparison of stored states finds an inquiry's stored
// document edited, and one that no longer reads as an inquiry: open returns a new store and
// a Tamperer of its database.
func RunStateTamper(t *testing.T, open func(t *testing.T) (hitl.Store, Tamperer)) {
	for _, c := range []struct {
		name, doc, want string
	}{
		{"an answer edited", `{"id":1,"status":"responded","response":"yes"}`, `inquiry 1: the stored status is "responded" but its events say "pending"`},
		{"not an inquiry", `{"id":1,"status":`, "inquiry 1: its stored document cannot be read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, tp := open(t)
			t.Cleanup(func() { s.Close() })
			inq := newInquiry(1)
			must(t, s.Update(context.Background(), func(tx hitl.Tx) error {
				if err := tx.InsertInquiry(inq); err != nil {
					return err
				}
				return stateEvent(t, tx, inq, nil, hitl.EventInquiryCreated)
			}))
			must(t, tp.SetDoc(inq.ID, c.doc))
			var found []string
			_, err := audit.VerifyStates(context.Background(), s, func(m *audit.Mismatch) error { found = append(found, m.Error()); return nil })
			if err != nil || len(found) != 1 || !strings.HasPrefix(found[0], c.want) {
				t.Fatalf("%v, found %q; want %q", err, found, c.want)
			}
		})
	}
}
