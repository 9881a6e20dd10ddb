// Package ratelimit keeps a token bucket per principal, so that one noisy client cannot starve
// the others. A principal is keyed by the API key it authenticated with (Principal.KeyID; an
// inbox session carries the key it signed in with), or by its name when it has no key.
//
// Limits hold per node: with N nodes behind a balancer a principal gets up to N times the rate.
// A request counts once when it is accepted, so a long poll, an event stream or a WebSocket is
// one request however long it stays open.
package ratelimit

import (
	"container/list"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultMaxKeys bounds how many buckets a Limiter remembers.
const DefaultMaxKeys = 10000

// Limit is a sustained rate and a burst; a zero Per means no limit.
type Limit struct {
	Count int           // requests ...
	Per   time.Duration // ... per this span (time.Second or time.Minute); 0: off
	Burst int           // requests at once (default: Count)
}

// Off reports whether the limit lets everything through.
func (l Limit) Off() bool { return l.Per == 0 || l.Count <= 0 }

func (l Limit) burst() int {
	if l.Burst > 0 {
		return l.Burst
	}
	return max(l.Count, 1)
}

func (l Limit) String() string {
	if l.Off() {
		return "off"
	}
	unit := "second"
	if l.Per == time.Minute {
		unit = "minute"
	}
	return fmt.Sprintf("at most %d per %s, %d at once", l.Count, unit, l.burst())
}

// ParseRate reads "N/s", "N/m", "0" or "off".
func ParseRate(s string) (Limit, error) {
	s = strings.TrimSpace(s)
	if s == "0" || s == "off" || s == "" {
		return Limit{}, nil
	}
	n, unit, ok := strings.Cut(s, "/")
	count, err := strconv.Atoi(n)
	per := map[string]time.Duration{"s": time.Second, "m": time.Minute}[unit]
	if !ok || err != nil || count < 0 || per == 0 {
		return Limit{}, fmt.Errorf("rate %q: write N/s (per second) or N/m (per minute), for example 50/s; 0 or off: no limit", s)
	}
	if count == 0 {
		return Limit{}, nil
	}
	return Limit{Count: count, Per: per}, nil
}

// ParseRoleLimit reads "ROLE=N/s" or "ROLE=N/s:BURST".
func ParseRoleLimit(s string) (role string, l Limit, err error) {
	role, spec, ok := strings.Cut(s, "=")
	role = strings.TrimSpace(role)
	if !ok || role == "" {
		return "", Limit{}, fmt.Errorf("role rate limit %q: write ROLE=N/s or ROLE=N/s:BURST, for example agent=200/s:400", s)
	}
	rateSpec, burstSpec, hasBurst := strings.Cut(spec, ":")
	if l, err = ParseRate(rateSpec); err != nil {
		return "", Limit{}, fmt.Errorf("role %s: %w", role, err)
	}
	if hasBurst {
		b, err := strconv.Atoi(burstSpec)
		if err != nil || b < 1 {
			return "", Limit{}, fmt.Errorf("role %s: burst %q must be a whole number of at least 1", role, burstSpec)
		}
		l.Burst = b
	}
	return role, l, nil
}

// Options configures a Limiter.
type Options struct {
	Default Limit
	// Roles overrides Default for a principal holding the role; when a principal holds several
	// overridden roles, the most generous applies.
	Roles   map[string]Limit
	MaxKeys int              // default DefaultMaxKeys; the bucket used least recently goes first
	Now     func() time.Time // default time.Now
}

// Limiter holds the buckets. A nil *Limiter limits nothing.
type Limiter struct {
	o     Options
	mu    sync.Mutex
	keys  map[string]*list.Element // of *bucket
	order *list.List               // least recently used first
}

type bucket struct {
	key   string
	limit Limit
	lim   *rate.Limiter
	used  time.Time
}

// full reports whether the bucket has refilled by now: forgetting it then changes nothing, as a
// new bucket starts full.
func (b *bucket) full(now time.Time) bool {
	refill := time.Duration(float64(b.limit.burst()) / perSecond(b.limit) * float64(time.Second))
	return now.Sub(b.used) >= refill
}

// New returns a Limiter, or nil when neither the default nor any role limits anything.
func New(o Options) *Limiter {
	any := !o.Default.Off()
	for _, l := range o.Roles {
		any = any || !l.Off()
	}
	if !any {
		return nil
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = DefaultMaxKeys
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Limiter{o: o, keys: map[string]*list.Element{}, order: list.New()}
}

// LimitFor is the limit of a principal holding roles, and the role it comes from ("" for the
// default).
func (l *Limiter) LimitFor(roles []string) (Limit, string) {
	chosen, overridden, from := l.o.Default, false, ""
	for _, r := range roles {
		rl, ok := l.o.Roles[r]
		if !ok {
			continue
		}
		if !overridden || rl.Off() || (!chosen.Off() && perSecond(rl) > perSecond(chosen)) {
			chosen, overridden, from = rl, true, r
		}
		if chosen.Off() {
			break
		}
	}
	return chosen, from
}

func perSecond(l Limit) float64 { return float64(l.Count) / l.Per.Seconds() }

// Refusal says why a request was refused and when to come back.
type Refusal struct {
	Limit Limit
	Role  string // the role whose limit applied, "" for the default
	Wait  time.Duration
}

// RetryAfter is Wait in whole seconds, at least 1, for the Retry-After header.
func (r Refusal) RetryAfter() int {
	return max(int(math.Ceil(r.Wait.Seconds())), 1)
}

// Allow takes one token from key's bucket; it returns nil when the request may go on.
func (l *Limiter) Allow(key string, roles []string) *Refusal {
	if l == nil {
		return nil
	}
	limit, role := l.LimitFor(roles)
	if limit.Off() {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// The time is read under the lock: a time older than the bucket's last one moves the
	// bucket's clock back, and the next request would be given the gap's tokens twice (a
	// request preempted between reading the clock and locking let 33 through a limit of 32).
	now := l.o.Now()
	b := l.bucket(key, limit, now)
	if now.Before(b.used) { // a wall clock stepped back: the bucket's time does not
		now = b.used
	}
	b.used = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now) // a refused request takes nothing: the client may come back after d
		return &Refusal{Limit: limit, Role: role, Wait: d}
	}
	return nil
}

// bucket finds or makes key's bucket (l.mu held), renewing it when the key's limit changed
// (its roles did). Buckets idle long enough to have refilled are forgotten, and the least
// recently used one when there are still too many, so memory stays bounded.
func (l *Limiter) bucket(key string, limit Limit, now time.Time) *bucket {
	if e, ok := l.keys[key]; ok {
		b := e.Value.(*bucket)
		l.order.MoveToBack(e)
		if b.limit == limit {
			return b
		}
		b.limit, b.lim = limit, newRate(limit)
		return b
	}
	for e := l.order.Front(); e != nil && e.Value.(*bucket).full(now); e = l.order.Front() {
		delete(l.keys, e.Value.(*bucket).key)
		l.order.Remove(e)
	}
	for l.order.Len() >= l.o.MaxKeys {
		oldest := l.order.Front()
		delete(l.keys, oldest.Value.(*bucket).key)
		l.order.Remove(oldest)
	}
	b := &bucket{key: key, limit: limit, lim: newRate(limit)}
	l.keys[key] = l.order.PushBack(b)
	return b
}

func newRate(l Limit) *rate.Limiter {
	return rate.NewLimiter(rate.Limit(perSecond(l)), l.burst())
}

// Len is how many buckets are remembered.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.order.Len()
}
