// Package authlimit counts failed authentications per client address and tells an address
// that failed too often to wait. The API, the inbox's sign-in form and the answer links share
// one Limiter, so that guessing tokens costs the same wherever it is tried.
//
// An address is the connection's remote IP (r.RemoteAddr), never a header a client can
// write: behind a proxy every client shares the proxy's address. IPv6 addresses count by
// their /64, which one host usually holds whole.
package authlimit

import (
	"container/list"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// Window is the span failures are counted over: the limit is per minute.
const Window = time.Minute

// DefaultMaxAddrs bounds how many addresses a Limiter remembers.
const DefaultMaxAddrs = 10000

// Limiter counts failed authentications per address in a window that starts at the address's
// first failure. Once an address has failed PerWindow times, it waits until its window ends.
// A nil *Limiter limits nothing.
type Limiter struct {
	perWindow int
	maxAddrs  int
	now       func() time.Time

	mu    sync.Mutex
	addrs map[netip.Prefix]*list.Element // of *entry
	order *list.List                     // entries by window start, oldest first
}

type entry struct {
	addr     netip.Prefix
	start    time.Time
	failures int
}

// Options configures a Limiter.
type Options struct {
	// PerMinute is how many failures an address may have in a window; 0 or less: no limit.
	PerMinute int
	// MaxAddrs bounds the addresses remembered (default DefaultMaxAddrs). When it is full,
	// the address whose window started first is forgotten, so that an attacker who cycles
	// through addresses grows nothing without bound.
	MaxAddrs int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// New returns a Limiter, or nil (no limit) when o.PerMinute is not positive.
func New(o Options) *Limiter {
	if o.PerMinute <= 0 {
		return nil
	}
	if o.MaxAddrs <= 0 {
		o.MaxAddrs = DefaultMaxAddrs
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Limiter{perWindow: o.PerMinute, maxAddrs: o.MaxAddrs, now: o.Now, addrs: map[netip.Prefix]*list.Element{}, order: list.New()}
}

// Wait tells how long the client at remoteAddr (an http.Request's RemoteAddr) must wait
// before its credentials are checked again; 0 when they may be checked now.
func (l *Limiter) Wait(remoteAddr string) time.Duration {
	if l == nil {
		return 0
	}
	key, ok := addrKey(remoteAddr)
	if !ok {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.forgetExpired(now)
	el, ok := l.addrs[key]
	if !ok {
		return 0
	}
	e := el.Value.(*entry)
	if e.failures < l.perWindow {
		return 0
	}
	return e.start.Add(Window).Sub(now)
}

// Fail counts one failed authentication of the client at remoteAddr.
func (l *Limiter) Fail(remoteAddr string) {
	if l == nil {
		return
	}
	key, ok := addrKey(remoteAddr)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.forgetExpired(now)
	if el, ok := l.addrs[key]; ok {
		el.Value.(*entry).failures++
		return
	}
	for l.order.Len() >= l.maxAddrs {
		l.forget(l.order.Front())
	}
	l.addrs[key] = l.order.PushBack(&entry{addr: key, start: now, failures: 1})
}

// forgetExpired drops the entries whose window has ended: they are the oldest, at the front.
func (l *Limiter) forgetExpired(now time.Time) {
	for el := l.order.Front(); el != nil && !now.Before(el.Value.(*entry).start.Add(Window)); el = l.order.Front() {
		l.forget(el)
	}
}

func (l *Limiter) forget(el *list.Element) {
	delete(l.addrs, el.Value.(*entry).addr)
	l.order.Remove(el)
}

// addrKey is what failures are counted by: the IPv4 address, or the IPv6 address's /64.
func addrKey(remoteAddr string) (netip.Prefix, bool) {
	ap, err := netip.ParseAddrPort(remoteAddr)
	if err != nil {
		a, err := netip.ParseAddr(remoteAddr)
		if err != nil {
			return netip.Prefix{}, false
		}
		ap = netip.AddrPortFrom(a, 0)
	}
	a := ap.Addr().Unmap().WithZone("")
	bits := 32
	if a.Is6() {
		bits = 64
	}
	p, err := a.Prefix(bits)
	return p, err == nil
}

// RetryAfter is a Retry-After header's value for a wait: whole seconds, rounded up, at least 1.
func RetryAfter(wait time.Duration) string {
	s := int64((wait + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(s, 1), 10)
}
