package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/hitl-dev/hitl"
)

// wake tells a waiter the final state of its inquiry and when the commit that made it was seen.
type wake struct {
	inq *hitl.Inquiry
	at  time.Time
}

// waiters are the agents parked on an inquiry, woken by push after the resolving commit.
type waiters struct {
	mu    sync.Mutex
	m     map[int64]map[chan wake]struct{}
	count atomic.Int64 // parked waiters, for the metrics
}

func (w *waiters) add(id int64) chan wake {
	ch := make(chan wake, 1)
	w.mu.Lock()
	set := w.m[id]
	if set == nil {
		set = make(map[chan wake]struct{})
		w.m[id] = set
	}
	set[ch] = struct{}{}
	w.mu.Unlock()
	w.count.Add(1)
	return ch
}

func (w *waiters) remove(id int64, ch chan wake) {
	w.count.Add(-1)
	w.mu.Lock()
	if set := w.m[id]; set != nil {
		delete(set, ch)
		if len(set) == 0 {
			delete(w.m, id)
		}
	}
	w.mu.Unlock()
}

func (w *waiters) has(id int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.m[id]) > 0
}

func (w *waiters) wake(inq *hitl.Inquiry, at time.Time) {
	w.mu.Lock()
	set := w.m[inq.ID]
	delete(w.m, inq.ID)
	w.mu.Unlock()
	for ch := range set {
		ch <- wake{inq: inq, at: at} // buffered and sent to once: never blocks
	}
}
