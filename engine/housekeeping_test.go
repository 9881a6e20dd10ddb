package engine_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
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
