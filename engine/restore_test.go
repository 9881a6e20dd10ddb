package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// A restore moves inquiry ids, integer identities and event seqs to the time of the restore in
// microseconds since 2026-11-01; a later restore moves them further, past anything given out
// at less than one a microsecond in between; a clock behind the log is refused.
func TestRestoreNumbersByTheClock(t *testing.T) {
	c := clock.NewManual(time.Now().UTC())
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	for range 3 {
		if _, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "before"}, ""); err != nil {
			t.Fatal(err)
		}
	}
	epoch := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	r, err := e.Restore(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	want := c.Now().Sub(epoch).Microseconds()
	if r.NextInquiryID != want || r.NextIdentity != want || r.Skipped.To != want-1 || r.BackupTakenAt != nil {
		t.Fatalf("restore at %s: %+v; want every sequence to go on from %d", c.Now(), r, want)
	}
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "after"}, "")
	if err != nil || inq.ID != want {
		t.Fatalf("the first inquiry after the restore: %v %v, want id %d", inq, err, want)
	}

	// A second server went on from the first restore for a second, giving out ids; the
	// same backup restored again a second later is beyond them all.
	c.Advance(time.Second)
	r2, err := e.Restore(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	if r2.NextInquiryID != want+1_000_000 || r2.Skipped.From <= r.Skipped.To {
		t.Fatalf("a restore a second later: %+v; want ids from %d", r2, want+1_000_000)
	}

	c.Advance(-time.Hour)
	if _, err := e.Restore(ctx, "test"); hitl.ErrorCode(err) != hitl.EConflict || !strings.Contains(err.Error(), "clock") {
		t.Fatalf("a restore with the clock behind the log: %v, want a conflict that names the clock", err)
	}
}

// A database that gave out numbers beyond what a restore now would give out (its ids outran
// the clock, or the clock is behind the one that numbered them) is refused, not moved back.
func TestRestoreRefusesToMoveBack(t *testing.T) {
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ahead := time.Now().Add(time.Hour).Sub(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)).Microseconds()
	err = st.Update(ctx, func(tx hitl.Tx) error {
		if _, err := tx.Sequences(); err != nil {
			return err
		}
		return tx.MoveSequences(hitl.Sequences{Inquiry: ahead, Identity: 1, Event: 1},
			&hitl.Event{ID: "e", Type: "test.event", Time: time.Now().Add(-time.Hour), Actor: "test", Data: json.RawMessage(`{}`)})
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = engine.New(st, engine.Options{}).Restore(ctx, "test")
	if hitl.ErrorCode(err) != hitl.EConflict || !strings.Contains(err.Error(), fmt.Sprintf("inquiry id %d", ahead-1)) {
		t.Fatalf("a restore behind the inquiry ids given out: %v, want a conflict that names them", err)
	}
}

// Subscribing after a seq the log does not know — in a restore's gap, or beyond its newest
// event — is refused with where to resume: the last seq before the gap, or the newest.
func TestSubscribeAfterAnUnknownSeqIsReset(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	admin := &hitl.Principal{Name: "root", Roles: []string{hitl.RoleAdmin}}
	for range 3 {
		if _, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "before"}, ""); err != nil {
			t.Fatal(err)
		}
	}
	r, err := e.Restore(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	backupHead := r.Skipped.From - 1
	if _, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "after"}, ""); err != nil {
		t.Fatal(err)
	}
	head := r.Skipped.To + 2 // the restore's event, then the inquiry's
	for _, c := range []struct {
		after, resume int64
	}{{backupHead + 1, backupHead}, {backupHead + 1000, backupHead}, {r.Skipped.To, backupHead}, {head + 1, head}} {
		_, err := e.Subscribe(ctx, admin, engine.StreamFilter{}, c.after)
		var unknown *engine.UnknownPosition
		if !errors.As(err, &unknown) || unknown.ResumeAfter != c.resume {
			t.Errorf("subscribing after seq %d: %v; want to be told to resume after %d", c.after, err, c.resume)
		}
	}
	for _, after := range []int64{0, backupHead, r.Skipped.To + 1, head} {
		sub, err := e.Subscribe(ctx, admin, engine.StreamFilter{}, after)
		if err != nil {
			t.Errorf("subscribing after seq %d, which the log knows: %v", after, err)
			continue
		}
		sub.Close()
	}
}
