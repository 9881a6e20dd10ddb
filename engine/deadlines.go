package engine

import (
	"context"
	"math"
	"sync"
	"time"
)

// maxExpireBatch bounds how many timeouts one change commits, and expiring bounds how many
// such changes are in flight: the loop keeps firing while earlier batches commit, and the
// store commits concurrent batches together, so a burst of deadlines stays on time.
const (
	maxExpireBatch = 64
	expiring       = 8
)

// deadlines keeps every pending deadline in a min-heap and fires each at its time: timeouts
// are pushed by one timer for the earliest, not found by a periodic sweep.
//
// The heap holds values and the index maps ids to places, neither with a pointer: a node
// keeps a million pending deadlines in about 50 bytes each, and the collector has nothing
// in them to scan (with a pointer per deadline, each cycle walked a million objects, and the
// timeouts waited for it).
type deadlines struct {
	mu     sync.Mutex
	h      []deadline
	at     map[int64]int // id → its place in h
	kick   chan struct{}
	now    func() time.Time
	expire func(ctx context.Context, ids []int64)
}

type deadline struct {
	at int64 // Unix nanoseconds, see nanos
	id int64
}

func newDeadlines(now func() time.Time, expire func(ctx context.Context, ids []int64)) *deadlines {
	return &deadlines{at: make(map[int64]int), kick: make(chan struct{}, 1), now: now, expire: expire}
}

// nanos is t in Unix nanoseconds, held to what an int64 can say: a deadline past 2262 never
// comes (and one before 1678 is overdue), where UnixNano would wrap.
func nanos(t time.Time) int64 {
	switch {
	case t.After(maxNanos):
		return math.MaxInt64
	case t.Before(minNanos):
		return math.MinInt64
	}
	return t.UnixNano()
}

var (
	maxNanos = time.Unix(0, math.MaxInt64)
	minNanos = time.Unix(0, math.MinInt64)
)

func (d *deadlines) add(id int64, at time.Time) {
	d.mu.Lock()
	if i, ok := d.at[id]; ok {
		d.h[i].at = nanos(at)
		if !d.up(i) {
			d.down(i)
		}
	} else {
		d.h = append(d.h, deadline{at: nanos(at), id: id})
		d.at[id] = len(d.h) - 1
		d.up(len(d.h) - 1)
	}
	first := d.h[0].id == id
	d.mu.Unlock()
	if first {
		d.poke()
	}
}

func (d *deadlines) remove(id int64) {
	d.mu.Lock()
	if i, ok := d.at[id]; ok {
		d.removeAt(i)
	}
	d.mu.Unlock()
}

func (d *deadlines) poke() {
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// due pops the deadlines that have passed (at most maxExpireBatch) and returns the wait
// until the next one.
func (d *deadlines) due() ([]int64, time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := nanos(d.now())
	var ids []int64
	for len(d.h) > 0 && d.h[0].at <= now && len(ids) < maxExpireBatch {
		ids = append(ids, d.h[0].id)
		d.removeAt(0)
	}
	if len(d.h) == 0 || d.h[0].at-now > int64(time.Hour) {
		return ids, time.Hour
	}
	return ids, time.Duration(d.h[0].at - now)
}

// run fires deadlines until ctx ends: everything due is timed out in one transaction,
// then the loop sleeps until the next deadline or until an earlier one is added.
func (d *deadlines) run(ctx context.Context) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	slots := make(chan struct{}, expiring)
	var inFlight sync.WaitGroup
	defer inFlight.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.kick:
		case <-timer.C:
		}
		for {
			ids, wait := d.due()
			if len(ids) > 0 {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
				inFlight.Go(func() {
					defer func() { <-slots }()
					d.expire(ctx, ids)
				})
			}
			if len(ids) < maxExpireBatch {
				timer.Reset(wait)
				break
			}
		}
	}
}

// removeAt takes the deadline at place i out of the heap.
func (d *deadlines) removeAt(i int) {
	delete(d.at, d.h[i].id)
	last := len(d.h) - 1
	if i != last {
		d.h[i] = d.h[last]
		d.at[d.h[i].id] = i
	}
	d.h = d.h[:last]
	if i != last && !d.up(i) {
		d.down(i)
	}
	if cap(d.h) > 1024 && len(d.h) < cap(d.h)/4 {
		// A burst has passed: give back what it grew, as the index map does not.
		d.h = append(make([]deadline, 0, cap(d.h)/2), d.h...)
	}
}

// up moves the deadline at place i towards the root while it is earlier than its parent,
// and says whether it moved.
func (d *deadlines) up(i int) bool {
	start := i
	for i > 0 {
		p := (i - 1) / 2
		if d.h[p].at <= d.h[i].at {
			break
		}
		d.swap(i, p)
		i = p
	}
	return i != start
}

// down moves the deadline at place i towards the leaves while a child is earlier.
func (d *deadlines) down(i int) {
	n := len(d.h)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && d.h[r].at < d.h[c].at {
			c = r
		}
		if d.h[i].at <= d.h[c].at {
			return
		}
		d.swap(i, c)
		i = c
	}
}

func (d *deadlines) swap(i, j int) {
	d.h[i], d.h[j] = d.h[j], d.h[i]
	d.at[d.h[i].id], d.at[d.h[j].id] = i, j
}
