package engine

import (
	"container/heap"
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
	mu sync.Mutex
	deadlineHeap
	kick   chan struct{}
	now    func() time.Time
	expire func(ctx context.Context, ids []int64)
}

type deadline struct {
	at int64 // Unix nanoseconds, see nanos
	id int64
}

func newDeadlines(now func() time.Time, expire func(ctx context.Context, ids []int64)) *deadlines {
	return &deadlines{deadlineHeap: deadlineHeap{at: make(map[int64]int)}, kick: make(chan struct{}, 1), now: now, expire: expire}
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
		heap.Fix(&d.deadlineHeap, i)
	} else {
		heap.Push(&d.deadlineHeap, deadline{at: nanos(at), id: id})
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
	heap.Remove(&d.deadlineHeap, i)
	if cap(d.h) > 1024 && len(d.h) < cap(d.h)/4 {
		// A burst has passed: give back what it grew, as the index map does not.
		d.h = append(make([]deadline, 0, cap(d.h)/2), d.h...)
	}
}

// deadlineHeap is the min-heap (container/heap) of the deadlines by time, as values, with
// the index of each id's place.
type deadlineHeap struct {
	h  []deadline
	at map[int64]int // id → its place in h
}

func (q *deadlineHeap) Len() int           { return len(q.h) }
func (q *deadlineHeap) Less(i, j int) bool { return q.h[i].at < q.h[j].at }

func (q *deadlineHeap) Swap(i, j int) {
	q.h[i], q.h[j] = q.h[j], q.h[i]
	q.at[q.h[i].id], q.at[q.h[j].id] = i, j
}

func (q *deadlineHeap) Push(x any) {
	d := x.(deadline)
	q.at[d.id] = len(q.h)
	q.h = append(q.h, d)
}

func (q *deadlineHeap) Pop() any {
	last := q.h[len(q.h)-1]
	q.h = q.h[:len(q.h)-1]
	delete(q.at, last.id)
	return last
}
