package engine

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// expireWorkers bounds how many timeouts are committed at once. Several in flight let the
// store commit them together, so 10,000 deadlines in one second are kept on time.
const expireWorkers = 64

// deadlines keeps every pending deadline in a min-heap and fires each at its time: timeouts
// are pushed by a timer, not found by a periodic sweep.
type deadlines struct {
	mu     sync.Mutex
	h      deadlineHeap
	byID   map[int64]*deadline
	kick   chan struct{}
	now    func() time.Time
	expire func(ctx context.Context, id int64)
}

type deadline struct {
	id    int64
	at    time.Time
	index int
}

func newDeadlines(now func() time.Time, expire func(ctx context.Context, id int64)) *deadlines {
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

// due pops every deadline that has passed and returns the wait until the next one.
func (d *deadlines) due() ([]int64, time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	var ids []int64
	for len(d.h) > 0 && !d.h[0].at.After(now) {
		item := heap.Pop(&d.h).(*deadline)
		delete(d.byID, item.id)
		ids = append(ids, item.id)
	}
	if len(d.h) == 0 {
		return ids, time.Hour
	}
	return ids, d.h[0].at.Sub(now)
}

func (d *deadlines) run(ctx context.Context) {
	work := make(chan int64)
	var wg sync.WaitGroup
	for range expireWorkers {
		wg.Go(func() {
			for id := range work {
				d.expire(ctx, id)
			}
		})
	}
	defer func() {
		close(work)
		wg.Wait()
	}()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.kick:
		case <-timer.C:
		}
		ids, wait := d.due()
		for _, id := range ids {
			select {
			case work <- id:
			case <-ctx.Done():
				return
			}
		}
		timer.Reset(wait)
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
