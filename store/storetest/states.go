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
		// Its only event is its first too; its columns are read beside its document.
		if st.First == nil || st.First.Seq != st.Newest.Seq || st.Columns == nil || st.Columns.Status != hitl.StatusPending ||
			st.Columns.Session == nil || *st.Columns.Session != "s1" || st.Columns.Prompt != st.Stored.Prompt || !st.Columns.CreatedAt.Equal(st.Stored.CreatedAt) {
			t.Fatalf("inquiry %d: first %+v, columns %+v", st.Key, st.First, st.Columns)
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
	if f := named[0].First; f == nil || f.Type != hitl.EventInquiryCreated || f.Seq >= named[0].Newest.Seq {
		t.Fatalf("the first event of an answered inquiry: %+v", f)
	}

	sessions, err := s.SessionStates(ctx, hitl.StateQuery[string]{Limit: 10})
	must(t, err)
	if len(sessions) != 2 || sessions[0].Key != "s0" || sessions[0].Stored != nil || sessions[0].Newest == nil ||
		sessions[1].Key != "s1" || sessions[1].Stored == nil || sessions[1].Newest == nil || sessions[1].Newest.InquiryID != nil || sessions[1].Newest.Type != hitl.EventSessionUpdated {
		t.Fatalf("sessions: %+v", sessions)
	}
	if f := sessions[1].First; f == nil || f.Type != hitl.EventSessionUpdated || f.InquiryID != nil || sessions[1].Columns != nil {
		t.Fatalf("the first event of a session: %+v", f)
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
					next.UpdatedAt = cur.UpdatedAt.Add(time.Microsecond)
					next.Claim = &hitl.InquiryClaim{By: fmt.Sprintf("writer %d, change %d", w, i), At: next.UpdatedAt, ExpiresAt: next.UpdatedAt.Add(time.Hour)}
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
// document edited, one that no longer reads as an inquiry, and each column and row beside the
// document that reads use, edited alone: open returns a new store and a Tamperer of its
// database.
func RunStateTamper(t *testing.T, open func(t *testing.T) (hitl.Store, Tamperer)) {
	for _, c := range []struct {
		name, doc, stmt, want string
	}{
		{name: "an answer edited", doc: `{"id":1,"status":"responded","response":"yes"}`, want: `inquiry 1: the stored status is "responded" but its events say "pending"`},
		{name: "not an inquiry", doc: `{"id":1,"status":`, want: "inquiry 1: its stored document cannot be read"},
		{name: "its status column", stmt: "UPDATE inquiries SET status = 'cancelled' WHERE id = 1", want: "inquiry 1: its status column says cancelled but its events say pending (event 2)"},
		{name: "its asker's column", stmt: "UPDATE inquiries SET created_by = 'someone' WHERE id = 1", want: "inquiry 1: its created_by column says someone but its events say agent-a (event 2)"},
		{name: "its session column", stmt: "UPDATE inquiries SET session = NULL WHERE id = 1", want: "inquiry 1: its session column says none but its events say s1 (event 2)"},
		{name: "its prompt column", stmt: "UPDATE inquiries SET prompt = 'other' WHERE id = 1", want: `inquiry 1: its prompt column says other but its events say "question 1" (event 2)`},
		{name: "a timer's column", stmt: "UPDATE inquiries SET next_reminder_at = created_at WHERE id = 1", want: "inquiry 1: its next_reminder_at column says 2026-"},
		{name: "an assignee added", stmt: "INSERT INTO inquiry_assignees (assignee, inquiry_id) VALUES ('mallory', 1)",
			want: "inquiry 1: its rows in inquiry_assignees say ceo, mallory but its events say ceo (event 2)"},
		{name: "its metadata", stmt: "UPDATE inquiry_metadata SET value = 'web' WHERE inquiry_id = 1",
			want: "inquiry 1: its rows in inquiry_metadata say team=web but its events say team=sre (event 2)"},
		{name: "an execution's row", stmt: "INSERT INTO execution_inquiries (execution, inquiry_id) VALUES ('ex-9', 1)",
			want: "inquiry 1: its row in execution_inquiries says execution ex-9 asked it but its events say none (event 2)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, tp := open(t)
			t.Cleanup(func() { s.Close() })
			inq := newInquiry(1, func(i *hitl.Inquiry) {
				i.Session, i.AssignedTo, i.Metadata = "s1", []string{"ceo"}, map[string]string{"team": "sre"}
			})
			must(t, s.Update(context.Background(), func(tx hitl.Tx) error {
				if err := tx.InsertSession(newSession("s1")); err != nil {
					return err
				}
				if err := stateEvent(t, tx, nil, newSession("s1"), hitl.EventSessionUpdated); err != nil {
					return err
				}
				if err := tx.InsertInquiry(inq); err != nil {
					return err
				}
				return stateEvent(t, tx, inq, nil, hitl.EventInquiryCreated)
			}))
			if inq.ID != 1 {
				t.Fatalf("the inquiry is %d; the cases mean it to be 1", inq.ID)
			}
			var found []string
			if _, err := audit.VerifyStates(context.Background(), s, func(m *audit.Mismatch) error { found = append(found, m.Error()); return nil }); err != nil || len(found) > 0 {
				t.Fatalf("before the edit: %v, found %q", err, found)
			}
			if c.doc != "" {
				must(t, tp.SetDoc(inq.ID, c.doc))
			} else {
				must(t, tp.Exec(c.stmt))
			}
			_, err := audit.VerifyStates(context.Background(), s, func(m *audit.Mismatch) error { found = append(found, m.Error()); return nil })
			if err != nil || len(found) != 1 || !strings.HasPrefix(found[0], c.want) {
				t.Fatalf("%v, found %q; want %q", err, found, c.want)
			}
		})
	}
}
