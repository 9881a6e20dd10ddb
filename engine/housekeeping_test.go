package engine_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// TestIdempotencyKeysExpire: a key replays its inquiry for a day (the default), then is
// removed, and the same key makes a new inquiry.
func TestIdempotencyKeysExpire(t *testing.T) {
	start := time.Now().UTC().Truncate(time.Second)
	c := clock.NewManual(start)
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	first, created, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "deploy?"}, "run-7")
	if err != nil || !created {
		t.Fatal(err)
	}
	c.Advance(23 * time.Hour)
	if n := engine.Sweep(e); n != 0 {
		t.Fatalf("removed %d keys younger than a day", n)
	}
	again, created, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "deploy?"}, "run-7")
	if err != nil || created || again.ID != first.ID {
		t.Fatalf("a retry within the day: %v created=%v id %d", err, created, again.ID)
	}
	if _, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "other"}, "run-7"); hitl.ErrorCode(err) != hitl.EConflict {
		t.Fatalf("the key with another request within the day: %v", err)
	}
	c.Advance(2 * time.Hour)
	if n := engine.Sweep(e); n != 1 {
		t.Fatalf("removed %d keys older than a day, want 1", n)
	}
	fresh, created, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "other"}, "run-7")
	if err != nil || !created || fresh.ID == first.ID {
		t.Fatalf("the key after it expired: %v created=%v", err, created)
	}
}

// TestUsedPushActionsAreForgottenOnceExpired: the housekeeping forgets the use of a
// notification's action token an hour after the token expired (when any node refuses the
// token for its expiry), and not before, with or without further uses.
func TestUsedPushActionsAreForgottenOnceExpired(t *testing.T) {
	start := time.Now().UTC().Truncate(time.Second)
	c := clock.NewManual(start)
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := engine.New(st, engine.Options{Clock: c})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(ctx)
	use := func() error {
		return st.Update(ctx, func(tx hitl.Tx) error { return tx.UseWebPushAction("nonce-1", start.Add(time.Hour)) })
	}
	if err := use(); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Hour + 59*time.Minute) // expired, but not an hour ago
	engine.Sweep(e)
	if err := use(); hitl.ErrorCode(err) != hitl.EConflict {
		t.Fatalf("the use was forgotten within an hour of the token's expiry: %v", err)
	}
	c.Advance(2 * time.Minute)
	engine.Sweep(e)
	if err := use(); err != nil {
		t.Fatalf("the use an hour after its token expired was kept: %v", err)
	}
}
