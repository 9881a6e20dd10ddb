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

// A waker is told when an inquiry it waits on is final: a single wait's channel, or the queue
// of a wait for many inquiries.
type waker interface{ wake(wake) }

// waitChan is the waker of one long poll: buffered and sent to once, so it never blocks.
type waitChan chan wake

func (c waitChan) wake(w wake) { c <- w }

// waitSet is who waits on one inquiry. Nearly always that is one waker, held without a map:
// an entry of a wait for many inquiries costs a few words, not a map of its own.
type waitSet struct {
	one  waker
	more map[waker]struct{} // when several wait: all of them (one is then nil)
}

// waiters are the agents parked on an inquiry, woken by push after the resolving commit.
type waiters struct {
	mu    sync.Mutex
	m     map[int64]waitSet
	count atomic.Int64 // parked waits, for the metrics
}

func (w *waiters) addLocked(id int64, k waker) {
	set, ok := w.m[id]
	switch {
	case !ok:
		set.one = k
	case set.more == nil:
		set.more = map[waker]struct{}{set.one: {}, k: {}}
		set.one = nil
	default:
		set.more[k] = struct{}{}
	}
	w.m[id] = set
}

func (w *waiters) removeLocked(id int64, k waker) {
	set, ok := w.m[id]
	switch {
	case !ok:
	case set.more == nil:
		if set.one == k {
			delete(w.m, id)
		}
	default:
		delete(set.more, k)
		if len(set.more) == 0 {
			delete(w.m, id)
		}
	}
}

func (w *waiters) add(id int64) waitChan {
	ch := make(waitChan, 1)
	w.mu.Lock()
	w.addLocked(id, ch)
	w.mu.Unlock()
	w.count.Add(1)
	return ch
}

func (w *waiters) remove(id int64, ch waitChan) {
	w.count.Add(-1)
	w.mu.Lock()
	w.removeLocked(id, ch)
	w.mu.Unlock()
}

// addMany registers k on every id, under one lock.
func (w *waiters) addMany(ids []int64, k waker) {
	w.mu.Lock()
	for _, id := range ids {
		w.addLocked(id, k)
	}
	w.mu.Unlock()
}

// removeMany takes k off the ids (those already woken are gone already).
func (w *waiters) removeMany(ids []int64, k waker) {
	w.mu.Lock()
	for _, id := range ids {
		w.removeLocked(id, k)
	}
	w.mu.Unlock()
}

func (w *waiters) has(id int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.m[id]
	return ok
}

func (w *waiters) wake(inq *hitl.Inquiry, at time.Time) {
	w.mu.Lock()
	set, ok := w.m[inq.ID]
	delete(w.m, inq.ID)
	w.mu.Unlock()
	if !ok {
		return
	}
	wk := wake{inq: inq, at: at}
	if set.more == nil {
		set.one.wake(wk)
		return
	}
	for k := range set.more {
		k.wake(wk)
	}
}
