package clock

import (
	"testing"
	"time"
)

func fired(tm Timer) bool {
	select {
	case <-tm.C():
		return true
	default:
		return false
	}
}

func TestManualFiresTheTimersItPasses(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewManual(start)
	soon, later := c.NewTimer(start.Add(time.Minute)), c.NewTimer(start.Add(time.Hour))
	if fired(soon) || fired(later) {
		t.Fatal("a timer fired before the clock moved")
	}
	c.Advance(59 * time.Second)
	if fired(soon) {
		t.Fatal("fired a second early")
	}
	c.Advance(time.Second)
	if !fired(soon) || fired(later) {
		t.Fatal("at a minute: want the minute's timer alone")
	}
	c.Advance(2 * time.Hour)
	c.Advance(time.Hour)
	if !fired(later) || fired(later) {
		t.Fatal("past the hour: want the hour's timer, once")
	}
	if fired(soon) {
		t.Fatal("a fired timer fired again")
	}
	if got := c.Now(); !got.Equal(start.Add(3*time.Hour + time.Minute)) {
		t.Fatalf("Now = %v", got)
	}
}

func TestManualResetAndStop(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewManual(start)
	tm := c.NewTimer(start) // due already: fires at once
	if !fired(tm) {
		t.Fatal("a timer set for now did not fire")
	}
	tm.Reset(start.Add(time.Minute))
	c.Set(start.Add(time.Minute))
	tm.Reset(start.Add(2 * time.Minute)) // drops the firing not received
	if fired(tm) {
		t.Fatal("Reset kept the earlier firing")
	}
	tm.Stop()
	c.Advance(time.Hour)
	if fired(tm) {
		t.Fatal("a stopped timer fired")
	}
	tm.Reset(start) // a time the clock has passed
	if !fired(tm) {
		t.Fatal("a timer set for the past did not fire")
	}
}

func TestRealTimerFires(t *testing.T) {
	tm := Real.NewTimer(time.Now())
	select {
	case <-tm.C():
	case <-time.After(5 * time.Second):
		t.Fatal("a real timer set for now did not fire")
	}
	tm.Reset(time.Now().Add(time.Hour))
	tm.Stop()
	if fired(tm) {
		t.Fatal("a stopped real timer fired")
	}
}
