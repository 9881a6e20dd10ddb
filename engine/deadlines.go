package engine

import (
	"container/heap"
	"context"
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
// are pushed by a timer, not found by a periodic sweep.
type deadlines struct {
	mu     sync.Mutex
	h      deadlineHeap
	byID   map[int64]*deadline
	kick   chan struct{}
	now    func() time.Time
	expire func(ctx context.Context, ids []int64)
}

type deadline struct {
	id    int64
	at    time.Time
	index int
}

func newDeadlines(now func() time.Time, expire func(ctx context.Context, ids []int64)) *deadlines {
	return &deadlines{byID: make(map[int64]*deadline), kick: make(chan struct{}, 1), now: now, expire: expire}
}

func (d *deadlines) add(id int64, at time.Time) {
	d.mu.Lock()
	if old, ok := d.byID[id]; ok {
		old.at = at
		heap.Fix(&d.h, old.index)
	} else {
		item := &deadline{id: id, at: at}
		d.byID[id] = item
		heap.Push(&d.h, item)
	}
	first := d.h[0].id == id
	d.mu.Unlock()
	if first {
		d.poke()
	}
}

func (d *deadlines) remove(id int64) {
	d.mu.Lock()
	if item, ok := d.byID[id]; ok {
		heap.Remove(&d.h, item.index)
		delete(d.byID, id)
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
	now := d.now()
	var ids []int64
	for len(d.h) > 0 && !d.h[0].at.After(now) && len(ids) < maxExpireBatch {
		item := heap.Pop(&d.h).(*deadline)
		delete(d.byID, item.id)
		ids = append(ids, item.id)
	}
	if len(d.h) == 0 {
		return ids, time.Hour
	}
	return ids, d.h[0].at.Sub(now)
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

type deadlineHeap []*deadline

func (h deadlineHeap) Len() int           { return len(h) }
func (h deadlineHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h deadlineHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *deadlineHeap) Push(x any) {
	item := x.(*deadline)
	item.index = len(*h)
	*h = append(*h, item)
}
func (h *deadlineHeap) Pop() any {
	old := *h
	item := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return item
}
