package authlimit

import (
	"fmt"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestLimitPerAddressAndWindow(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	l := New(Options{PerMinute: 3, Now: c.now})
	const a, b = "192.0.2.1:5000", "192.0.2.2:5000"
	for i := range 3 {
		if w := l.Wait(a); w != 0 {
			t.Fatalf("failure %d: already waiting %v", i, w)
		}
		l.Fail(a)
		c.t = c.t.Add(10 * time.Second)
	}
	if w := l.Wait(a); w != 30*time.Second {
		t.Fatalf("after 3 failures in 30 s: wait %v, want the 30 s left of the minute", w)
	}
	if w := l.Wait("192.0.2.1:6000"); w == 0 {
		t.Fatal("another port of the same address is not limited")
	}
	if w := l.Wait(b); w != 0 {
		t.Fatalf("another address waits %v", w)
	}
	c.t = c.t.Add(30 * time.Second)
	if w := l.Wait(a); w != 0 {
		t.Fatalf("after the window: wait %v", w)
	}
	l.Fail(a)
	if w := l.Wait(a); w != 0 {
		t.Fatalf("one failure in a new window: wait %v", w)
	}
}

func TestIPv6CountsByPrefix(t *testing.T) {
	l := New(Options{PerMinute: 2})
	l.Fail("[2001:db8:1:2::1]:1")
	l.Fail("[2001:db8:1:2:ffff::9]:2")
	if l.Wait("[2001:db8:1:2::77]:3") == 0 {
		t.Fatal("two addresses of one /64 are counted apart")
	}
	if l.Wait("[2001:db8:1:3::1]:3") != 0 {
		t.Fatal("another /64 is limited")
	}
	l.Fail("[::ffff:192.0.2.9]:1")
	l.Fail("192.0.2.9:2")
	if l.Wait("192.0.2.9:3") == 0 {
		t.Fatal("an IPv4-mapped address is counted apart from the IPv4 one")
	}
}

func TestMemoryIsBounded(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	l := New(Options{PerMinute: 1, MaxAddrs: 100, Now: c.now})
	for i := range 1000 {
		l.Fail(fmt.Sprintf("10.0.%d.%d:1", i/256, i%256))
		c.t = c.t.Add(time.Millisecond)
	}
	if n := len(l.addrs); n != 100 || l.order.Len() != 100 {
		t.Fatalf("remembers %d addresses (list %d), want the bound 100", n, l.order.Len())
	}
	if l.Wait("10.0.3.231:1") == 0 { // the 1000th
		t.Fatal("the newest address was forgotten")
	}
	if l.Wait("10.0.0.0:1") != 0 {
		t.Fatal("the oldest address was kept")
	}
	c.t = c.t.Add(Window)
	l.Wait("10.0.0.0:1")
	if n := len(l.addrs); n != 0 {
		t.Fatalf("%d addresses kept after their windows ended", n)
	}
}

func TestNilAndOff(t *testing.T) {
	var l *Limiter
	l.Fail("192.0.2.1:1")
	if l.Wait("192.0.2.1:1") != 0 {
		t.Fatal("a nil limiter limits")
	}
	if New(Options{PerMinute: 0}) != nil {
		t.Fatal("PerMinute 0 is not off")
	}
	on := New(Options{PerMinute: 1})
	on.Fail("not an address")
	if on.Wait("not an address") != 0 {
		t.Fatal("an address that does not parse is limited")
	}
}

func TestRetryAfter(t *testing.T) {
	for wait, want := range map[time.Duration]string{time.Millisecond: "1", time.Second: "1", 1500 * time.Millisecond: "2", 59 * time.Second: "59", 0: "1"} {
		if got := RetryAfter(wait); got != want {
			t.Errorf("RetryAfter(%v) = %s, want %s", wait, got, want)
		}
	}
}
