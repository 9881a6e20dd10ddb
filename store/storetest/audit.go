package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
)

// testAuditChain: events appended by concurrent writers, among changes that roll back after
// appending theirs, form one chain that verifies, with a link for every event.
func testAuditChain(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	inq := insert(t, s, newInquiry(1))
	const writers, each = 6, 20
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				err := s.Update(ctx, func(tx hitl.Tx) error {
					ev := &hitl.Event{ID: fmt.Sprintf("chain-%d-%d", w, i), Type: hitl.EventInquiryResponded, Time: base,
						InquiryID: &inq.ID, Actor: "alice \u2028 \"quoted\"", Data: json.RawMessage(`{"response":{"approved":true,"n":12345678901234567890}}`)}
					if err := tx.AppendEvent(ev); err != nil {
						return err
					}
					if i%3 == 0 {
						return errors.New("changed its mind") // its event must leave no trace in the chain
					}
					return nil
				})
				if err != nil && err.Error() != "changed its mind" {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	v, err := audit.VerifyLog(ctx, s, audit.Published{})
	if err != nil {
		t.Fatalf("the chain after concurrent writes: %v", err)
	}
	last, err := s.LastEventSeq(ctx)
	must(t, err)
	kept := writers * (each - (each+2)/3)
	if v.Events != last || last != int64(kept) {
		t.Fatalf("verified %d events, the log ends at seq %d; want %d events", v.Events, last, kept)
	}
	// The chain covers the event as readers see it.
	evs, err := s.Events(ctx, hitl.EventFilter{After: last - 1, Limit: 1, Visibility: hitl.Visibility{All: true}})
	must(t, err)
	prev := audit.Verifier{}
	must(t, s.ChainedEvents(ctx, 0, func(ev *hitl.Event, hash []byte) error {
		if ev.Seq == last {
			if ev.ID != evs[0].ID || string(ev.Data) != string(evs[0].Data) || !ev.Time.Equal(evs[0].Time) {
				t.Errorf("the chained event %+v is not the one Events reads, %+v", ev, evs[0])
			}
			return nil
		}
		return prev.Next(ev, hash)
	}))
}

// Tamperer changes a store's event log behind its back, as someone with access to the
// database could, in the store's own SQL.
type Tamperer interface {
	// SetData replaces the data of the event at seq.
	SetData(seq int64, data string) error
	// SetHash replaces the stored hash of the event at seq.
	SetHash(seq int64, hash []byte) error
	// Delete removes the events from seq from to seq to.
	Delete(from, to int64) error
	// Swap exchanges the seqs of two events, with everything else each row holds.
	Swap(a, b int64) error
	// SetDoc replaces the stored document of the inquiry id.
	SetDoc(id int64, doc string) error
	// Exec runs a statement that both stores' SQL reads alike.
	Exec(stmt string) error
}

// SQLTamperer is the Tamperer of a SQL store: exec runs a statement on a connection of its
// own, in which placeholder is the text of the nth argument.
func SQLTamperer(exec func(stmt string, args ...any) error, placeholder func(n int) string) Tamperer {
	return sqlTamperer{exec, placeholder}
}

type sqlTamperer struct {
	exec func(stmt string, args ...any) error
	p    func(n int) string
}

func (tp sqlTamperer) SetData(seq int64, data string) error {
	return tp.exec("UPDATE events SET data = "+tp.p(1)+" WHERE seq = "+tp.p(2), data, seq)
}

func (tp sqlTamperer) SetHash(seq int64, hash []byte) error {
	return tp.exec("UPDATE events SET hash = "+tp.p(1)+" WHERE seq = "+tp.p(2), hash, seq)
}

func (tp sqlTamperer) Delete(from, to int64) error {
	return tp.exec("DELETE FROM events WHERE seq BETWEEN "+tp.p(1)+" AND "+tp.p(2), from, to)
}

func (tp sqlTamperer) Swap(a, b int64) error {
	// Through negative seqs, which no event has, so that the key stays unique at each step.
	err := tp.exec("UPDATE events SET seq = CASE seq WHEN "+tp.p(1)+" THEN CAST("+tp.p(2)+" AS BIGINT) ELSE CAST("+tp.p(3)+" AS BIGINT) END WHERE seq IN ("+tp.p(4)+", "+tp.p(5)+")",
		a, -b, -a, a, b)
	if err != nil {
		return err
	}
	return tp.exec("UPDATE events SET seq = -seq WHERE seq < 0")
}

func (tp sqlTamperer) SetDoc(id int64, doc string) error {
	return tp.exec("UPDATE inquiries SET doc = "+tp.p(1)+" WHERE id = "+tp.p(2), doc, id)
}

func (tp sqlTamperer) Exec(stmt string) error { return tp.exec(stmt) }

// tamperLog is the log each tamper case starts from: ten events of five inquiries, each
// asked and answered (seq 2k-1 created, seq 2k answered).
func tamperLog(t *testing.T, s hitl.Store) (heads []audit.Hash) {
	t.Helper()
	ctx := context.Background()
	for n := 1; n <= 5; n++ {
		inq := insert(t, s, newInquiry(n))
		for _, typ := range []string{hitl.EventInquiryCreated, hitl.EventInquiryResponded} {
			data := fmt.Sprintf(`{"id":%d,"status":"pending"}`, inq.ID)
			if typ == hitl.EventInquiryResponded {
				data = fmt.Sprintf(`{"id":%d,"status":"answered","response":{"approved":true,"comment":"LGTM"},"responded_by":"alice"}`, inq.ID)
			}
			must(t, s.Update(ctx, func(tx hitl.Tx) error {
				return tx.AppendEvent(&hitl.Event{ID: fmt.Sprintf("ev-%d-%s", n, typ), Type: typ, Time: base, InquiryID: &inq.ID, Actor: "alice", Data: json.RawMessage(data)})
			}))
		}
	}
	var v audit.Verifier
	heads = []audit.Hash{audit.Genesis}
	must(t, s.ChainedEvents(ctx, 0, func(ev *hitl.Event, hash []byte) error {
		if err := v.Next(ev, hash); err != nil {
			return err
		}
		heads = append(heads, v.Hash)
		return nil
	}))
	if len(heads) != 11 {
		t.Fatalf("the log has %d events, want 10", len(heads)-1)
	}
	return heads
}

// RunTamper checks that verification finds each kind of tampering with a store's log, and
// where: open returns a new store and a Tamperer of its database.
func RunTamper(t *testing.T, open func(t *testing.T) (hitl.Store, Tamperer)) {
	type published = audit.Published
	cases := []struct {
		name   string
		tamper func(t *testing.T, s hitl.Store, tp Tamperer, heads []audit.Hash) published
		// wantSeq is where verification must say the log breaks (0: it verifies), and want
		// words of its message.
		wantSeq int64
		want    string
		// verified is how many events an untouched log verifies (0: all ten), after
		// retention removed some.
		verified int64
	}{
		{name: "untouched", tamper: func(*testing.T, hitl.Store, Tamperer, []audit.Hash) published {
			return published{Seq: 10}
		}},
		{name: "untouched against its published head", tamper: func(_ *testing.T, _ hitl.Store, _ Tamperer, heads []audit.Hash) published {
			return published{Seq: 10, Hash: &heads[10]}
		}},
		{name: "an answer's value edited", wantSeq: 4, want: "does not match its hash", tamper: func(t *testing.T, s hitl.Store, tp Tamperer, _ []audit.Hash) published {
			must(t, tp.SetData(4, `{"id":2,"status":"answered","response":{"approved":false,"comment":"LGTM"},"responded_by":"alice"}`))
			return published{}
		}},
		{name: "data no longer JSON", wantSeq: 6, want: "not valid JSON", tamper: func(t *testing.T, s hitl.Store, tp Tamperer, _ []audit.Hash) published {
			must(t, tp.SetData(6, `{"id":3,`))
			return published{}
		}},
		{name: "an event deleted", wantSeq: 5, want: "missing", tamper: func(t *testing.T, s hitl.Store, tp Tamperer, _ []audit.Hash) published {
			must(t, tp.Delete(5, 5))
			return published{}
		}},
		{name: "two events swapped", wantSeq: 3, want: "does not match its hash", tamper: func(t *testing.T, s hitl.Store, tp Tamperer, _ []audit.Hash) published {
			must(t, tp.Swap(3, 4))
			return published{}
		}},
		{name: "the tail cut off after its head was published", wantSeq: 8, want: "the log ends at seq 7", tamper: func(t *testing.T, s hitl.Store, tp Tamperer, heads []audit.Hash) published {
			must(t, tp.Delete(8, 10))
			return published{Seq: 10, Hash: &heads[10]}
		}},
		{name: "the tail cut off, only the head's hash known", wantSeq: 9, want: "no event of the log has the published hash", tamper: func(t *testing.T, s hitl.Store, tp Tamperer, heads []audit.Hash) published {
			must(t, tp.Delete(9, 10))
			return published{Hash: &heads[10]}
		}},
		{name: "an edit chained anew by someone who knows the scheme", wantSeq: 10, want: "as published", tamper: func(t *testing.T, s hitl.Store, tp Tamperer, heads []audit.Hash) published {
			must(t, tp.SetData(2, `{"id":1,"status":"answered","response":{"approved":false},"responded_by":"mallory"}`))
			rechain(t, s, tp)
			return published{Seq: 10, Hash: &heads[10]}
		}},
		{name: "retention removed the first two inquiries", verified: 7, tamper: func(t *testing.T, s hitl.Store, _ Tamperer, _ []audit.Hash) published {
			retainFirst(t, s, 2)
			return published{Seq: 10}
		}},
		{name: "a head published before retention removed its seq", verified: 7, tamper: func(t *testing.T, s hitl.Store, _ Tamperer, heads []audit.Hash) published {
			retainFirst(t, s, 2)
			return published{Seq: 4, Hash: &heads[4]}
		}},
		{name: "an event deleted beside what retention removed", wantSeq: 5, want: "no retention checkpoint removed them", tamper: func(t *testing.T, s hitl.Store, tp Tamperer, _ []audit.Hash) published {
			retainFirst(t, s, 2)
			must(t, tp.Delete(5, 5))
			return published{}
		}},
		{name: "a checkpoint edited to cover a deletion", wantSeq: 11, want: "does not match its hash", tamper: func(t *testing.T, s hitl.Store, tp Tamperer, heads []audit.Hash) published {
			retainFirst(t, s, 2)
			must(t, tp.Delete(5, 5))
			must(t, tp.SetData(11, fmt.Sprintf(`{"before":"2026-11-22T11:00:00Z","inquiries":[1,2,3],"sessions":[],"removed":[{"from":1,"to":5,"hash":"%s"}]}`, heads[5])))
			return published{}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, tp := open(t)
			t.Cleanup(func() { s.Close() })
			heads := tamperLog(t, s)
			pub := c.tamper(t, s, tp, heads)
			v, err := audit.VerifyLog(context.Background(), s, pub)
			switch {
			case c.wantSeq == 0 && c.verified != 0:
				if err != nil || v.Events != c.verified || v.Removed != 10+1-c.verified {
					t.Fatalf("a log after retention: %d events, %d removed, %v; want %d events", v.Events, v.Removed, err, c.verified)
				}
				return
			case c.wantSeq == 0:
				if err != nil || v.Events != 10 || v.Hash != heads[10] {
					t.Fatalf("an untouched log: %d events, head %s, %v; want 10 events, head %s", v.Events, v.Hash, err, heads[10])
				}
				return
			}
			var b *audit.Break
			if !errors.As(err, &b) {
				t.Fatalf("verification passed (%d events); want a break at seq %d", v.Events, c.wantSeq)
			}
			if b.Seq != c.wantSeq || !strings.Contains(b.Problem, c.want) {
				t.Fatalf("verification says %q; want seq %d: ...%s...", err, c.wantSeq, c.want)
			}
			if v.Seq >= c.wantSeq {
				t.Fatalf("verified through seq %d, beyond the break at seq %d", v.Seq, c.wantSeq)
			}
		})
	}
}

// retainFirst ends the first n inquiries of tamperLog (whose 2n events come first) and lets
// retention remove them.
func retainFirst(t *testing.T, s hitl.Store, n int64) {
	t.Helper()
	for id := int64(1); id <= n; id++ {
		inq, err := s.Inquiry(context.Background(), id)
		must(t, err)
		must(t, resolve(t, s, inq, hitl.StatusResponded))
	}
	removed := retain(t, s, hitl.RetentionRule{Before: base.Add(time.Hour), Through: 9})
	if len(removed.Inquiries) != int(n) || len(removed.Events) != int(2*n) {
		t.Fatalf("retention removed inquiries %v and %d events; want the first %d and their events", removed.Inquiries, len(removed.Events), n)
	}
}

// rechain recomputes and rewrites every hash of the log, as a forger who read internal/audit
// would after an edit: the log then verifies on its own, and only a head published before
// the edit shows it.
func rechain(t *testing.T, s hitl.Store, tp Tamperer) {
	t.Helper()
	head := audit.Genesis
	var evs []*hitl.Event
	must(t, s.ChainedEvents(context.Background(), 0, func(ev *hitl.Event, _ []byte) error {
		evs = append(evs, ev)
		return nil
	}))
	for _, ev := range evs {
		head = audit.Link(head, audit.Canonicalize(ev), ev.Seq)
		must(t, tp.SetHash(ev.Seq, head[:]))
	}
	if _, err := audit.VerifyLog(context.Background(), s, audit.Published{}); err != nil {
		t.Fatalf("the forged chain does not hold on its own: %v", err)
	}
}

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

// insertWithEvents inserts the session sess (when not nil) and the inquiry inq, each with the
// event the engine would write of it, in one change.
func insertWithEvents(t *testing.T, s hitl.Store, sess *hitl.Session, inq *hitl.Inquiry) {
	t.Helper()
	must(t, s.Update(context.Background(), func(tx hitl.Tx) error {
		if sess != nil {
			if err := tx.InsertSession(sess); err != nil {
				return err
			}
			if err := stateEvent(t, tx, nil, sess, hitl.EventSessionUpdated); err != nil {
				return err
			}
		}
		if err := tx.InsertInquiry(inq); err != nil {
			return err
		}
		return stateEvent(t, tx, inq, nil, hitl.EventInquiryCreated)
	}))
}

// testStoredStates: InquiryStates and SessionStates read each row with its newest event (of
// no inquiry, for a session), a page at a time in key order or by name, and list a key that
// has only events too; what retention removed has neither.
func testStoredStates(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	var ids []int64
	for n := 1; n <= 5; n++ {
		inq := newInquiry(n, func(i *hitl.Inquiry) { i.Session = "s1" })
		var sess *hitl.Session
		if n == 1 {
			sess = newSession("s1")
		}
		insertWithEvents(t, s, sess, inq)
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
	// Exactly the three made above are found, and nothing of what holds.
	var found []string
	n, err := audit.VerifyStates(ctx, s, func(m *audit.Mismatch) error {
		found = append(found, fmt.Sprintf("%d %s", m.Inquiry, m.Session))
		return nil
	})
	if err != nil || n.Inquiries != 7 || n.Sessions != 2 {
		t.Fatalf("compared %+v, %v; want 7 inquiries and 2 sessions", n, err)
	}
	if want := []string{fmt.Sprintf("%d ", bare.ID), fmt.Sprintf("%d ", ghost), "0 s0"}; !slices.Equal(found, want) {
		t.Fatalf("mismatches of %q; want %q", found, want)
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
			insertWithEvents(t, s, newSession("s1"), inq)
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
