package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
