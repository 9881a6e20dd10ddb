package engine_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/store/sqlite"
)

var (
	ctx   = context.Background()
	agent = &hitl.Principal{Name: "bot", Roles: []string{hitl.RoleAgent}}
	human = &hitl.Principal{Name: "ann", Roles: []string{hitl.RoleResponder}}
)

func open(t testing.TB, path string, clk clock.Clock) (*engine.Engine, func()) {
	t.Helper()
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(st, engine.Options{Clock: clk})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	stop := func() {
		e.Stop(ctx)
		st.Close()
	}
	return e, stop
}

func seconds(n int64) *int64 { return &n }

// timersHeld is a clock whose timers never fire: the rules see its time move, the timers
// do not, as when a deadline has passed and its timer is about to fire.
type timersHeld struct{ *clock.Manual }

func (timersHeld) NewTimer(time.Time) clock.Timer { return heldTimer{} }

type heldTimer struct{}

func (heldTimer) C() <-chan time.Time { return nil }
func (heldTimer) Reset(time.Time)     {}
func (heldTimer) Stop()               {}

func TestAnswerAfterDeadlineBeforeTimerIsConflict(t *testing.T) {
	c := clock.NewManual(time.Now())
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), timersHeld{c})
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", TimeoutSeconds: seconds(3600),
		FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`"no"`)}, "")
	if err != nil {
		t.Fatal(err)
	}
	// The clock passes the deadline; the real timer is an hour away and has not fired.
	c.Advance(time.Hour + time.Millisecond)
	_, err = e.Respond(ctx, human, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"yes"`)})
	var de *hitl.Error
	if hitl.ErrorCode(err) != hitl.EConflict || !asError(err, &de) || de.Inquiry == nil {
		t.Fatalf("late answer: %v, want conflict with the state", err)
	}
	if de.Inquiry.Status != hitl.StatusTimeout || !de.Inquiry.FallbackApplied || string(de.Inquiry.Response) != `"no"` {
		t.Fatalf("state after the late answer: %+v", de.Inquiry)
	}
	// Cancelling late is the same conflict.
	inq2, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", TimeoutSeconds: seconds(60)}, "")
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(2 * time.Minute)
	if _, err := e.Cancel(ctx, agent, inq2.ID, ""); hitl.ErrorCode(err) != hitl.EConflict {
		t.Fatalf("late cancel: %v", err)
	}
}

func asError(err error, target **hitl.Error) bool {
	e, ok := err.(*hitl.Error)
	*target = e
	return ok
}

func TestOverdueDeadlinesTimeOutAtStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	c := clock.NewManual(time.Now())
	e, stop := open(t, path, c)
	var ids []int64
	for range 5 {
		inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", TimeoutSeconds: seconds(600)}, "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, inq.ID)
	}
	stop()
	// Restart an hour later: every deadline has passed while the server was down.
	c.Advance(time.Hour)
	e, stop = open(t, path, c)
	defer stop()
	for _, id := range ids {
		got, err := e.Wait(ctx, agent, id, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != hitl.StatusTimeout {
			t.Fatalf("inquiry %d after restart: %s", id, got.Status)
		}
	}
	// The count drops when the timeouts are published, just after their commit, and a wait
	// that found them final in the store can return in between: give it a moment (no sleep:
	// it is a matter of the publishing goroutine running).
	for until := time.Now().Add(5 * time.Second); e.Pending() != 0 && time.Now().Before(until); {
		runtime.Gosched()
	}
	if e.Pending() != 0 {
		t.Fatalf("pending count %d after the timeouts", e.Pending())
	}
}

func TestDeadlineFiresOnTime(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	at := time.Now().Add(150 * time.Millisecond)
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", TimeoutAt: &at}, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Wait(ctx, agent, inq.ID, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != hitl.StatusTimeout || got.UpdatedAt.Before(*inq.TimeoutAt) {
		t.Fatalf("got %s at %v for a deadline at %v", got.Status, got.UpdatedAt, inq.TimeoutAt)
	}
}

func TestWaitReturnsPendingAfterItsTimeoutAndOnStop(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?"}, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Wait(ctx, agent, inq.ID, 20*time.Millisecond)
	if err != nil || got.Status != hitl.StatusPending {
		t.Fatalf("wait past its timeout: %v %v", got, err)
	}
	done := make(chan *hitl.Inquiry)
	go func() {
		got, _ := e.Wait(ctx, agent, inq.ID, time.Minute)
		done <- got
	}()
	testserver.Eventually(t, 5*time.Second, "the waiter to park", func() bool { return e.Waiting() == 1 })
	if err := e.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-done:
		if got == nil || got.Status != hitl.StatusPending {
			t.Fatalf("drained wait returned %+v", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Stop did not end the wait")
	}
	if _, err := e.Wait(ctx, agent, inq.ID, engine.MaxWait+time.Second); hitl.ErrorCode(err) != hitl.EInvalid {
		t.Fatalf("over-long wait: %v", err)
	}
}

func TestBootstrap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	e, stop := open(t, path, nil)
	tok, err := e.Bootstrap(ctx, "")
	if err != nil || tok == "" {
		t.Fatalf("first bootstrap: %q %v", tok, err)
	}
	p, err := e.Authenticate(ctx, tok)
	if err != nil || !p.IsAdmin() {
		t.Fatalf("bootstrap token: %v %v", p, err)
	}
	if again, err := e.Bootstrap(ctx, ""); err != nil || again != "" {
		t.Fatalf("second bootstrap made another key: %q %v", again, err)
	}
	// HITL_ADMIN_TOKEN: set, then changed at the next start; the old value stops working.
	for _, env := range []string{"first-env-token-123456", "second-env-token-123456"} {
		if _, err := e.Bootstrap(ctx, env); err != nil {
			t.Fatal(err)
		}
		if p, err := e.Authenticate(ctx, env); err != nil || !p.IsAdmin() || p.Name != "admin" {
			t.Fatalf("env token %s: %v %v", env, p, err)
		}
	}
	if _, err := e.Authenticate(ctx, "first-env-token-123456"); hitl.ErrorCode(err) != hitl.EUnauthorized {
		t.Fatalf("replaced env token still works: %v", err)
	}
	if _, err := e.Bootstrap(ctx, "short"); err == nil {
		t.Fatal("a short admin token was accepted")
	}
	stop()
}

func TestSlowSubscriberIsResetOthersKeepUp(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	admin := &hitl.Principal{Name: "root", Roles: []string{hitl.RoleAdmin}}
	slow, err := e.Subscribe(ctx, admin, engine.StreamFilter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	const readers, events = 100, 1600 // events: a multiple of the 8 creators
	var wg sync.WaitGroup
	counts := make([]int, readers)
	for i := range readers {
		sub, err := e.Subscribe(ctx, admin, engine.StreamFilter{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer sub.Close()
			var last int64
			for ev := range sub.Events {
				if ev.Seq <= last {
					t.Errorf("subscriber %d: seq %d after %d", i, ev.Seq, last)
				}
				last = ev.Seq
				if counts[i]++; counts[i] == events {
					return
				}
			}
		})
	}
	var creators sync.WaitGroup
	for range 8 {
		creators.Go(func() {
			for range events / 8 {
				if _, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "x"}, ""); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	creators.Wait()
	wg.Wait()
	for i, n := range counts {
		if n != events {
			t.Fatalf("subscriber %d received %d of %d events", i, n, events)
		}
	}
	// The slow one never read: it was cut off with the seq to resume after.
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-slow.Events:
			if ok {
				continue // what was buffered for it before the cut
			}
			after, reset := slow.Reset()
			if !reset {
				t.Fatal("the slow subscriber ended without a reset")
			}
			if after < 0 || after >= events {
				t.Fatalf("resume after %d", after)
			}
			return
		case <-deadline:
			t.Fatal("the slow subscriber was not cut off")
		}
	}
}

// When the server begins to stop, waits return the inquiry as it stands at once, while the
// engine keeps working for the requests still finishing: an answer then is recorded and its
// deadline timer still runs until Stop.
func TestShuttingDownEndsWaitsBeforeStop(t *testing.T) {
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	shuttingDown := make(chan struct{})
	c := clock.NewManual(time.Now())
	e := engine.New(st, engine.Options{Clock: c, ShuttingDown: shuttingDown})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(ctx)
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "still there?"}, "")
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan *hitl.Inquiry, 1)
	go func() {
		got, _ := e.Wait(ctx, agent, inq.ID, engine.MaxWait)
		waited <- got
	}()
	testserver.Eventually(t, 10*time.Second, "the wait parked", func() bool { return e.Waiting() == 1 })
	close(shuttingDown)
	got := <-waited
	if got == nil || got.Status != hitl.StatusPending {
		t.Fatalf("the wait returned %+v; want the inquiry as it stands, pending", got)
	}
	late, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "asked as the server stops", TimeoutSeconds: seconds(60)}, "")
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(61 * time.Second)
	testserver.Eventually(t, 10*time.Second, "the late inquiry timed out by its timer", func() bool {
		cur, err := e.Inquiry(ctx, admin, late.ID)
		return err == nil && cur.Status == hitl.StatusTimeout
	})
}

// The receipts of answers still queued when the engine stops are written, not dropped: an
// agent that has its answer as the server stops has resumed.
func TestStopRecordsTheQueuedReceipts(t *testing.T) {
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := engine.New(st, engine.Options{})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var asked []int64
	for range 3 {
		inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?"}, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Respond(ctx, human, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"yes"`)}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Wait(ctx, agent, inq.ID, 0); err != nil { // the agent has its answer: a receipt is queued
			t.Fatal(err)
		}
		asked = append(asked, inq.ID)
	}
	if err := e.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range asked {
		cur, err := st.Inquiry(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if cur.ResumedAt == nil {
			t.Errorf("inquiry %d: the receipt queued as the engine stopped was not recorded", id)
		}
	}
}
