package engine_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/audit"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// startEngine runs an engine with those options on a new SQLite file until the test ends.
func startEngine(t *testing.T, o engine.Options) (*engine.Engine, hitl.Store) {
	t.Helper()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(st, o)
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Stop(ctx)
		st.Close()
	})
	return e, st
}

// askAndAnswer creates an inquiry and answers it, and returns it with how long the answer took.
func askAndAnswer(t *testing.T, e *engine.Engine, prompt string) (*hitl.Inquiry, time.Duration) {
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: prompt}, "")
	if err != nil {
		t.Error(err)
		return nil, 0
	}
	start := time.Now()
	if _, err := e.Respond(ctx, human, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"yes"`)}); err != nil {
		t.Error(err)
	}
	return inq, time.Since(start)
}

// TestRetentionUnderWriteLoad: a purge removes what ended before its time, a batch at a
// time, while agents ask and people answer; every answer of the load is kept, the old ones
// are gone, and the audit chain verifies, on this node's running verifier and from scratch.
func TestRetentionUnderWriteLoad(t *testing.T) {
	c := clock.NewManual(time.Now().UTC())
	e, st := startEngine(t, engine.Options{Clock: c})
	const old = 350 // many batches
	var oldIDs []int64
	for i := range old {
		inq, _ := askAndAnswer(t, e, fmt.Sprintf("old %d", i))
		oldIDs = append(oldIDs, inq.ID)
	}
	waiting, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "still waiting"}, "")
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(2 * time.Hour)

	var (
		wg       sync.WaitGroup
		done     atomic.Bool
		mu       sync.Mutex
		answered []int64
		during   []time.Duration
	)
	for w := range 4 {
		wg.Go(func() {
			for i := 0; !done.Load(); i++ {
				inq, took := askAndAnswer(t, e, fmt.Sprintf("load %d-%d", w, i))
				if inq == nil {
					return
				}
				mu.Lock()
				answered, during = append(answered, inq.ID), append(during, took)
				mu.Unlock()
			}
		})
	}
	wg.Go(func() { // this node's running verifier, while retention makes gaps behind and ahead of it
		for !done.Load() {
			if _, err := e.VerifyAudit(ctx); err != nil {
				t.Errorf("the running verifier during retention: %v", err)
				return
			}
		}
	})
	removed := 0
	// The outbox's cursor must pass the old events first: it is saved within a second.
	ok := testserver.WaitFor(30*time.Second, func() bool {
		res, err := e.Purge(ctx, admin, c.Now().Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		removed += res.Inquiries
		return removed >= old
	})
	done.Store(true)
	wg.Wait()
	if !ok || removed != old {
		t.Fatalf("retention removed %d inquiries; want the %d that ended before its time", removed, old)
	}
	for _, id := range oldIDs {
		if _, err := st.Inquiry(ctx, id); hitl.ErrorCode(err) != hitl.ENotFound {
			t.Fatalf("old inquiry %d after retention: %v", id, err)
		}
	}
	for _, id := range append(answered, waiting.ID) {
		if _, err := st.Inquiry(ctx, id); err != nil {
			t.Fatalf("inquiry %d, asked during retention or still waiting, is gone: %v", id, err)
		}
	}
	if _, err := e.VerifyAudit(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := audit.VerifyLog(ctx, st, audit.Published{})
	if err != nil {
		t.Fatalf("the log after retention: %v", err)
	}
	last, _ := st.LastEventSeq(ctx)
	if v.Removed < 2*old || v.Events+v.Removed != last {
		t.Fatalf("verified %d events and %d removed of %d; want at least %d removed", v.Events, v.Removed, last, 2*old)
	}
	slices.Sort(during)
	if n := len(during); n > 0 {
		t.Logf("%d answers during retention: p50 %v, p99 %v, max %v", n, during[n/2], during[n*99/100], during[n-1])
	}
}

// TestRetainResolved: with RetainResolved the housekeeping removes what ended long enough
// ago, and nothing younger or still pending.
func TestRetainResolved(t *testing.T) {
	c := clock.NewManual(time.Now().UTC())
	e, st := startEngine(t, engine.Options{Clock: c, RetainResolved: 24 * time.Hour})
	ended, _ := askAndAnswer(t, e, "old")
	waiting, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "pending"}, "")
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(23 * time.Hour)
	younger, _ := askAndAnswer(t, e, "younger")
	c.Advance(2 * time.Hour)
	if !testserver.WaitFor(10*time.Second, func() bool {
		engine.Sweep(e)
		_, err := st.Inquiry(ctx, ended.ID)
		return hitl.ErrorCode(err) == hitl.ENotFound
	}) {
		t.Fatal("an inquiry that ended 25 h ago is still there with a retention of 24 h")
	}
	for _, inq := range []*hitl.Inquiry{waiting, younger} {
		if _, err := st.Inquiry(ctx, inq.ID); err != nil {
			t.Fatalf("inquiry %q is gone: %v", inq.Prompt, err)
		}
	}
	evs, err := st.Events(ctx, hitl.EventFilter{Types: []string{hitl.EventAuditCheckpoint}, Visibility: hitl.Visibility{All: true}, Limit: 10})
	if err != nil || len(evs) != 1 || evs[0].Actor != "retention" {
		t.Fatalf("checkpoints: %v, %v; want one by retention", evs, err)
	}
	var cp hitl.AuditCheckpoint
	if err := json.Unmarshal(evs[0].Data, &cp); err != nil || !slices.Equal(cp.Inquiries, []int64{ended.ID}) || len(cp.Removed) == 0 ||
		!strings.Contains(string(evs[0].Data), `"sessions":[]`) {
		t.Fatalf("the checkpoint says %s", evs[0].Data)
	}
}

// TestPurgeGoesOnWhereItStopped: a purge that runs out of time says more is left, and the
// next one goes on from there until all is removed.
func TestPurgeGoesOnWhereItStopped(t *testing.T) {
	c := clock.NewManual(time.Now().UTC())
	e, st := startEngine(t, engine.Options{Clock: c})
	engine.SetPurgeFor(e, time.Nanosecond) // one batch per purge
	for i := range 50 {
		askAndAnswer(t, e, fmt.Sprintf("old %d", i))
	}
	c.Advance(time.Hour)
	var rounds, removed int
	testserver.WaitFor(20*time.Second, func() bool { // until the outbox has read the log
		res, err := e.Purge(ctx, admin, c.Now().Add(-time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if res.Inquiries > 0 {
			rounds++
		}
		removed += res.Inquiries
		if res.More && res.Inquiries != engine.RetentionBatch {
			t.Fatalf("a purge that stopped early removed %d inquiries, not one batch", res.Inquiries)
		}
		return removed == 50 && !res.More
	})
	if removed != 50 || rounds < 50/engine.RetentionBatch {
		t.Fatalf("removed %d inquiries in %d rounds; want 50 in at least %d", removed, rounds, 50/engine.RetentionBatch)
	}
	if n, err := st.CountInquiries(ctx, hitl.InquiryFilter{Visibility: hitl.Visibility{All: true}}); err != nil || n != 0 {
		t.Fatalf("%d inquiries left, %v", n, err)
	}
}

// TestPurgeRefuses: only an admin purges, and not into the future.
func TestPurgeRefuses(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	if _, err := e.Purge(ctx, human, time.Now().Add(-time.Hour)); hitl.ErrorCode(err) != hitl.EForbidden {
		t.Fatalf("a responder's purge: %v", err)
	}
	if _, err := e.Purge(ctx, admin, time.Now().Add(time.Hour)); hitl.ErrorCode(err) != hitl.EInvalid {
		t.Fatalf("a purge of the future: %v", err)
	}
}

// TestEditedEventsShowAtTheHourlyReverification: the running verification checks only new
// events, so an edit of one it has passed shows once the housekeeping verifies the whole log
// again (the first time a minute after the start, then hourly), and from then on.
func TestEditedEventsShowAtTheHourlyReverification(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := engine.New(st, engine.Options{})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(ctx)
	inq, _ := askAndAnswer(t, e, "Ship?")
	if _, err := e.VerifyAudit(ctx); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var seq int64
	if err := db.QueryRow("SELECT seq FROM events WHERE inquiry_id = ? AND type = ?", inq.ID, hitl.EventInquiryResponded).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE events SET actor = 'mallory' WHERE seq = ?`, seq); err != nil {
		t.Fatal(err)
	}
	if _, err := e.VerifyAudit(ctx); err != nil {
		t.Fatalf("the running verification looked back: %v", err)
	}
	engine.ReverifyAuditWhenDue(e)
	want := fmt.Sprintf("seq %d: does not match its hash", seq)
	for range 2 {
		if _, err := e.VerifyAudit(ctx); hitl.ErrorCode(err) != hitl.EConflict || !strings.Contains(err.Error(), want) {
			t.Fatalf("after the whole log was verified again: %v; want a conflict saying %q", err, want)
		}
	}
}

// walkWith is a store whose ChainedEvents calls before with each event's seq before handing
// it on: a walk of the whole log that things happen during.
type walkWith struct {
	hitl.Store
	before func(seq int64)
}

func (w walkWith) ChainedEvents(ctx context.Context, after int64, fn func(ev *hitl.Event, hash []byte) error) error {
	return w.Store.ChainedEvents(ctx, after, func(ev *hitl.Event, hash []byte) error {
		w.before(ev.Seq)
		return fn(ev, hash)
	})
}

// TestWholeLogVerifiesAcrossPurgesDuringTheWalk: a verification of the whole log that takes
// long (the housekeeping's rests between pages; on several nodes, each node's retention) may
// meet more than one run that a purge removed after it had learned the checkpoints. Each
// such gap that a checkpoint written since accounts for is passed; it is a break only when
// no new checkpoint explains it.
func TestWholeLogVerifiesAcrossPurgesDuringTheWalk(t *testing.T) {
	c := clock.NewManual(time.Now().UTC())
	e, st := startEngine(t, engine.Options{Clock: c})
	pending := func(n int) int64 { // n pending inquiries, one event each; the seq of the first
		var first int64
		for i := range n {
			if _, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: fmt.Sprintf("still waiting %d", i)}, ""); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first, _ = st.LastEventSeq(ctx)
			}
		}
		return first
	}
	ended := func(n int) {
		for i := range n {
			askAndAnswer(t, e, fmt.Sprintf("ended %d", i))
		}
	}
	// More than a page of the walk (500 events) before each run that will be removed, so
	// that the page holding it is read after the purge.
	began := c.Now()
	pending(600)
	ended(50) // the first run, ended at began
	c.Advance(time.Hour)
	second := pending(600)
	ended(50) // the second, ended an hour later
	c.Advance(3 * time.Hour)
	purge := func(before time.Time, want int) {
		t.Helper()
		removed := 0
		// The outbox's cursor must pass the old events first: it is saved within a second.
		if !testserver.WaitFor(30*time.Second, func() bool {
			res, err := e.Purge(ctx, admin, before)
			if err != nil {
				t.Fatal(err)
			}
			removed += res.Inquiries
			return removed >= want
		}) {
			t.Fatalf("the purge before %s removed %d inquiries; want %d", before, removed, want)
		}
	}
	var purged []string
	walk := walkWith{Store: st, before: func(seq int64) {
		switch {
		case seq == 1 && len(purged) == 0:
			purge(began.Add(30*time.Minute), 50)
			purged = append(purged, "first")
		case seq > second && len(purged) == 1: // after the walk went on past the first run
			purge(began.Add(90*time.Minute), 50)
			purged = append(purged, "second")
		}
	}}
	v, err := audit.VerifyLog(ctx, walk, audit.Published{})
	if err != nil {
		t.Fatalf("the walk across the purges of %v: %v", purged, err)
	}
	if len(purged) != 2 || v.Removed < 200 {
		t.Fatalf("purged %v, %d events removed; want both runs of 50 inquiries (two events each or more)", purged, v.Removed)
	}
	// A gap that no checkpoint explains is a break, however the walk looks again.
	_, err = audit.VerifyLog(ctx, withHole{Store: st, seq: second + 3}, audit.Published{})
	if want := fmt.Sprintf("seq %d is not in the log", second+3); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a walk of a log without seq %d: %v; want a break saying %q", second+3, err, want)
	}
}

// withHole is a store whose log lacks one event, as if it had been deleted outside hitl.
type withHole struct {
	hitl.Store
	seq int64
}

func (w withHole) ChainedEvents(ctx context.Context, after int64, fn func(ev *hitl.Event, hash []byte) error) error {
	return w.Store.ChainedEvents(ctx, after, func(ev *hitl.Event, hash []byte) error {
		if ev.Seq == w.seq {
			return nil
		}
		return fn(ev, hash)
	})
}
