// Package clock holds the time that hitl's timers keep: deadlines, reminders, escalations and
// the expiry of claims. Real is the wall clock; a Manual clock stands still until a test moves
// it, and moving it fires the timers that have come due, so a test of a deadline an hour away
// takes no hour and no sleep.
//
// Timers here are set for a time on the clock, not for a duration: a timer set while a test
// moves the clock cannot miss the move (a duration would be counted from after it).
package clock

import (
	"sync"
	"time"
)

// Clock tells the time and wakes what waits for one.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that fires once the clock reaches at (at once if it has).
	NewTimer(at time.Time) Timer
}

// Timer sends on C once its clock reaches the time it is set for.
type Timer interface {
	C() <-chan time.Time
	// Reset sets the timer for at, dropping a firing not yet received.
	Reset(at time.Time)
	// Stop disarms the timer, dropping a firing not yet received.
	Stop()
}

// Real is the wall clock.
var Real Clock = realClock{}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(at time.Time) Timer { return realTimer{time.NewTimer(time.Until(at))} }

// realTimer is a time.Timer, whose Reset and Stop drop a pending firing (Go 1.23 on).
type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time { return r.t.C }
func (r realTimer) Reset(at time.Time)  { r.t.Reset(time.Until(at)) }
func (r realTimer) Stop()               { r.t.Stop() }

// Manual is a clock that stands at a time until Advance or Set moves it; moving it fires the
// timers it passes. Safe for concurrent use.
type Manual struct {
	mu    sync.Mutex
	now   time.Time
	armed map[*manualTimer]struct{} // the timers set for a time not reached yet
}

// NewManual returns a clock that stands at now.
func NewManual(now time.Time) *Manual {
	return &Manual{now: now, armed: make(map[*manualTimer]struct{})}
}

// Now is the time the clock stands at.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Advance moves the clock forward by d and fires the timers now due.
func (m *Manual) Advance(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setLocked(m.now.Add(d))
}

// Set moves the clock to t (forward, or back: a wall clock can be set back too) and fires the
// timers now due.
func (m *Manual) Set(t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setLocked(t)
}

func (m *Manual) setLocked(t time.Time) {
	m.now = t
	for tm := range m.armed {
		if !tm.at.After(t) {
			tm.fireLocked()
		}
	}
}

// NewTimer returns a timer that fires when the clock is moved to at or past it.
func (m *Manual) NewTimer(at time.Time) Timer {
	t := &manualTimer{m: m, c: make(chan time.Time, 1)}
	t.Reset(at)
	return t
}

type manualTimer struct {
	m  *Manual
	c  chan time.Time // holds one firing; the holder of m.mu sends and drains it
	at time.Time
}

func (t *manualTimer) C() <-chan time.Time { return t.c }

func (t *manualTimer) Reset(at time.Time) {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	t.dropLocked()
	t.at = at
	if !at.After(t.m.now) {
		t.fireLocked()
		return
	}
	t.m.armed[t] = struct{}{}
}

func (t *manualTimer) Stop() {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	delete(t.m.armed, t)
	t.dropLocked()
}

// fireLocked disarms the timer and sends the firing, unless one not yet received is in the
// channel already (as a time.Timer, it fires once for however far the clock moved).
func (t *manualTimer) fireLocked() {
	delete(t.m.armed, t)
	select {
	case t.c <- t.m.now:
	default:
	}
}

func (t *manualTimer) dropLocked() {
	select {
	case <-t.c:
	default:
	}
}
