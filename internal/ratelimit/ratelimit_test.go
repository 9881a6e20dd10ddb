package ratelimit

import (
	"strings"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	for in, want := range map[string]Limit{"50/s": {Count: 50, Per: time.Second}, "3/m": {Count: 3, Per: time.Minute}, "0": {}, "off": {}} {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"5/h", "fast", "-1/s", "5"} {
		if _, err := ParseRate(in); err == nil || !strings.Contains(err.Error(), "N/s (per second) or N/m (per minute)") {
			t.Errorf("ParseRate(%q): %v; want the accepted forms", in, err)
		}
	}
	if role, l, err := ParseRoleLimit("agent=200/s:400"); err != nil || role != "agent" || l != (Limit{Count: 200, Per: time.Second, Burst: 400}) {
		t.Errorf("agent=200/s:400: %s %+v %v", role, l, err)
	}
	for _, in := range []string{"200/s", "=1/s", "agent=1/s:0", "agent=1/h"} {
		if _, _, err := ParseRoleLimit(in); err == nil {
			t.Errorf("ParseRoleLimit(%q) took it", in)
		}
	}
}

// Buckets that have refilled are forgotten, and there are never more than MaxKeys.
func TestIdleBucketsAreEvicted(t *testing.T) {
	now := time.Unix(0, 0)
	l := New(Options{Default: Limit{Count: 10, Per: time.Second, Burst: 10}, MaxKeys: 3, Now: func() time.Time { return now }})
	for _, k := range []string{"a", "b", "c", "d"} {
		l.Allow(k, nil)
	}
	if l.Len() != 3 {
		t.Fatalf("%d buckets; want at most 3", l.Len())
	}
	now = now.Add(2 * time.Second)
	l.Allow("e", nil)
	if l.Len() != 1 {
		t.Fatalf("%d buckets after the others refilled; want 1", l.Len())
	}
	for range 9 { // "e" took one already
		if r := l.Allow("e", nil); r != nil {
			t.Fatalf("refused within the burst: %+v", r)
		}
	}
	if r := l.Allow("e", nil); r == nil || r.Wait != 100*time.Millisecond || r.RetryAfter() != 1 {
		t.Fatalf("over the burst: %+v; want a wait of 100ms, Retry-After 1", r)
	}
	if New(Options{}) != nil {
		t.Fatal("a Limiter without limits")
	}
}

// A clock that steps back gives no tokens twice: the bucket keeps its own time, so one second
// of a wall clock that went back and forth refills one second's worth, not two.
func TestClockSteppingBackGivesNoExtraTokens(t *testing.T) {
	start := time.Unix(100, 0)
	now := start
	l := New(Options{Default: Limit{Count: 20, Per: time.Second, Burst: 10}, Now: func() time.Time { return now }})
	allowed := 0
	for i := range 400 {
		// Forward by 10 ms, and every other request from a clock half a second behind.
		now = start.Add(time.Duration(i/2) * 10 * time.Millisecond)
		if i%2 == 1 {
			now = now.Add(-500 * time.Millisecond)
		}
		if l.Allow("bot", nil) == nil {
			allowed++
		}
	}
	// 2 s of requests: at most the burst and 20 a second.
	if allowed > 10+2*20 {
		t.Fatalf("%d requests went through; at most %d may", allowed, 10+2*20)
	}
}
