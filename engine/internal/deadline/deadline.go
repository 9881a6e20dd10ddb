// Package deadline holds the engine's timers: every pending time (an inquiry's deadline, its
// next reminder, the expiry of its claim) in a min-heap, fired by one timer for the earliest
// rather than found by a periodic sweep. What firing does is the engine's rule, handed in as
// a function; this package only keeps the times and calls it when they come.
package deadline

import (
	"container/heap"
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/hitl-dev/hitl"

	"github.com/hitl-dev/hitl/engine/internal/loops"
	"github.com/hitl-dev/hitl/internal/clock"
)

// maxBatch bounds how many ids one call of the fire function gets, and firing bounds how many
// such calls are in flight: the loop keeps firing while earlier batches commit, and the store
// commits concurrent batches together, so a burst of deadlines stays on time.
const (
	maxBatch = 64
	firing   = 8
)

// Fire is what a Queue calls with the ids whose time has come (at most 64 at a time). Its
// context ends when the queue stops.
type Fire func(ctx context.Context, ids []int64)

// Queue keeps a time per id and fires each at its time, on its clock. Adding an id that is
// held moves its time; each time fires once (an id fired is no longer held).
//
// The heap holds values and the index maps ids to places, neither with a pointer: a node
// keeps a million pending deadlines in about 50 bytes each, and the collector has nothing
// in them to scan (with a pointer per deadline, each cycle walked a million objects, and the
// timeouts waited for it).
type Queue struct {
	mu sync.Mutex
	deadlineHeap
	kick  chan struct{}
	clock clock.Clock
	fire  Fire
	loops loops.Group // the loop, which waits for the firings it started
}

type deadline struct {
	at int64 // Unix nanoseconds, see nanos
	id int64
}

// New returns a queue that calls fire with the ids whose time has come on clk, once started.
func New(clk clock.Clock, fire Fire) *Queue {
	return &Queue{deadlineHeap: deadlineHeap{at: make(map[int64]int)}, kick: make(chan struct{}, 1), clock: clk, fire: fire}
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

// Add sets id's time to at.
func (q *Queue) Add(id int64, at time.Time) {
	q.mu.Lock()
	if i, ok := q.at[id]; ok {
		q.h[i].at = nanos(at)
		heap.Fix(&q.deadlineHeap, i)
	} else {
		heap.Push(&q.deadlineHeap, deadline{at: nanos(at), id: id})
	}
	first := q.h[0].id == id
	q.mu.Unlock()
	if first {
		q.poke()
	}
}

// AddAll sets the times of many ids at once, as Add does for each: for the timers loaded at
// start-up, with the index sized for them in one allocation and the heap ordered once at the
// end (a million Adds grew the index step by step and boxed each deadline for container/heap).
func (q *Queue) AddAll(ds []hitl.Deadline) {
	if len(ds) == 0 {
		return
	}
	q.mu.Lock()
	if len(q.h) == 0 {
		q.at = make(map[int64]int, len(ds))
	}
	q.h = slices.Grow(q.h, len(ds))
	for _, d := range ds {
		if i, ok := q.at[d.InquiryID]; ok {
			q.h[i].at = nanos(d.At)
			continue
		}
		q.at[d.InquiryID] = len(q.h)
		q.h = append(q.h, deadline{at: nanos(d.At), id: d.InquiryID})
	}
	heap.Init(&q.deadlineHeap)
	q.mu.Unlock()
	q.poke()
}

// Remove forgets id's time; an id not held is no error.
func (q *Queue) Remove(id int64) {
	q.mu.Lock()
	if i, ok := q.at[id]; ok {
		q.removeAt(i)
	}
	q.mu.Unlock()
}

func (q *Queue) poke() {
	select {
	case q.kick <- struct{}{}:
	default:
	}
}

// maxSleep is the longest the loop waits without looking at the clock.
const maxSleep = time.Hour

// due pops the ids whose time has passed (at most maxBatch) and returns when to look next:
// the next time held, or in an hour at most.
func (q *Queue) due() ([]int64, time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	at := q.clock.Now()
	now := nanos(at)
	var ids []int64
	for len(q.h) > 0 && q.h[0].at <= now && len(ids) < maxBatch {
		ids = append(ids, q.h[0].id)
		q.removeAt(0)
	}
	if len(q.h) == 0 || q.h[0].at-now > int64(maxSleep) {
		return ids, at.Add(maxSleep)
	}
	return ids, at.Add(time.Duration(q.h[0].at - now))
}

// Start runs the timer until Stop: what is overdue fires at once.
func (q *Queue) Start(ctx context.Context) {
	ctx = q.loops.Start(ctx)
	q.loops.Go(func() { q.run(ctx) })
}

// Stop ends the timer and waits for the firings in progress, no longer than ctx allows; their
// context is cancelled.
func (q *Queue) Stop(ctx context.Context) error { return q.loops.Stop(ctx) }

// run fires what is due until ctx ends, then sleeps until the next time held or until an
// earlier one is added.
func (q *Queue) run(ctx context.Context) {
	timer := q.clock.NewTimer(q.clock.Now())
	defer timer.Stop()
	slots := make(chan struct{}, firing)
	var inFlight sync.WaitGroup
	defer inFlight.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.kick:
		case <-timer.C():
		}
		for {
			ids, next := q.due()
			if len(ids) > 0 {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
				inFlight.Go(func() {
					defer func() { <-slots }()
					q.fire(ctx, ids)
				})
			}
			if len(ids) < maxBatch {
				timer.Reset(next)
				break
			}
		}
	}
}

// removeAt takes the deadline at place i out of the heap.
func (q *Queue) removeAt(i int) {
	heap.Remove(&q.deadlineHeap, i)
	if cap(q.h) > 1024 && len(q.h) < cap(q.h)/4 {
		// A burst has passed: give back what it grew, as the index map does not.
		q.h = append(make([]deadline, 0, cap(q.h)/2), q.h...)
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
