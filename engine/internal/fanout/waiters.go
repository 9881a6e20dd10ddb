package fanout

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hitl-dev/hitl"
)

// Woken is what a waiter is told: the final state of its inquiry, and when the commit that
// made it was seen.
type Woken struct {
	Inquiry *hitl.Inquiry
	At      time.Time
}

// A waker is told when an inquiry it waits on is final: a single wait's channel, or the queue
// of a wait for many inquiries.
type waker interface{ wake(Woken) }

// WaitChan receives the final state of the inquiry of one long poll: buffered and sent to
// once, so that waking never blocks.
type WaitChan chan Woken

func (c WaitChan) wake(w Woken) { c <- w }

// wakers are the waits on one inquiry when there are several. Nearly always one waits, and
// the waiters' map holds that waker itself, without a map: an entry of a wait for many
// inquiries costs a slot of three words (BenchmarkWaitsMemory: 65 bytes a wait, where a slot
// with room for both, the one waker and a pointer to a set, took 93).
type wakers struct{ all map[waker]struct{} }

func (ws *wakers) wake(w Woken) {
	for k := range ws.all {
		k.wake(w)
	}
}

// Waiters are the agents parked on an inquiry, woken by Wake after the resolving commit.
type Waiters struct {
	mu    sync.Mutex
	m     map[int64]waker // one wait, or *wakers
	count atomic.Int64    // parked waits, for the metrics
}

// NewWaiters returns an empty set of waiters.
func NewWaiters() *Waiters { return &Waiters{m: make(map[int64]waker)} }

// Count is the number of parked waits (a wait for many counts once per inquiry not reported).
func (w *Waiters) Count() int64 { return w.count.Load() }

func (w *Waiters) addLocked(id int64, k waker) {
	cur, ok := w.m[id]
	if !ok {
		w.m[id] = k
		return
	}
	if ws, several := cur.(*wakers); several {
		ws.all[k] = struct{}{}
		return
	}
	w.m[id] = &wakers{all: map[waker]struct{}{cur: {}, k: {}}}
}

func (w *Waiters) removeLocked(id int64, k waker) {
	cur, ok := w.m[id]
	if !ok {
		return
	}
	if ws, several := cur.(*wakers); several {
		delete(ws.all, k)
		if len(ws.all) == 0 {
			delete(w.m, id)
		}
		return
	}
	if cur == k {
		delete(w.m, id)
	}
}

// Add parks a wait on id; Remove takes it off when the wait ends, woken or not.
func (w *Waiters) Add(id int64) WaitChan {
	ch := make(WaitChan, 1)
	w.mu.Lock()
	w.addLocked(id, ch)
	w.mu.Unlock()
	w.count.Add(1)
	return ch
}

// Remove takes the wait that Add returned ch for off id.
func (w *Waiters) Remove(id int64, ch WaitChan) {
	w.count.Add(-1)
	w.mu.Lock()
	w.removeLocked(id, ch)
	w.mu.Unlock()
}

// addMany registers k on every id, under one lock.
func (w *Waiters) addMany(ids []int64, k waker) {
	w.mu.Lock()
	for _, id := range ids {
		w.addLocked(id, k)
	}
	w.mu.Unlock()
}

// removeMany takes k off the ids (those already woken are gone already).
func (w *Waiters) removeMany(ids []int64, k waker) {
	w.mu.Lock()
	for _, id := range ids {
		w.removeLocked(id, k)
	}
	w.mu.Unlock()
}

// Has reports whether anyone waits on id.
func (w *Waiters) Has(id int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.m[id]
	return ok
}

// Wake tells everyone waiting on inq that it is final, as seen at at, and forgets them.
func (w *Waiters) Wake(inq *hitl.Inquiry, at time.Time) {
	w.mu.Lock()
	k, ok := w.m[inq.ID]
	delete(w.m, inq.ID)
	w.mu.Unlock()
	if ok {
		k.wake(Woken{Inquiry: inq, At: at})
	}
}

// Many is one wait for many inquiries. It costs an entry in the waiters' map and nine bytes
// per inquiry, and no goroutine: the one request that holds it takes what was woken when
// Ready says there is something to take. It is not safe for concurrent use, but for Wake.
type Many struct {
	w     *Waiters
	ids   []int64 // sorted
	done  []bool  // done[i]: ids[i] was reported (or refused), so it is reported once
	left  int     // ids not done
	queue waitQueue
}

// waitQueue is the waker of a Many: woken inquiries wait here until the request takes them.
type waitQueue struct {
	mu    sync.Mutex
	woken []Woken
	ready chan struct{}
}

func (q *waitQueue) wake(w Woken) {
	q.mu.Lock()
	q.woken = append(q.woken, w)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// AddMany parks one wait on every id (each once: the caller has refused duplicates).
func (w *Waiters) AddMany(ids []int64) *Many {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	m := &Many{w: w, ids: sorted, done: make([]bool, len(sorted)), left: len(sorted)}
	m.queue.ready = make(chan struct{}, 1)
	w.addMany(sorted, &m.queue)
	w.count.Add(int64(len(sorted)))
	return m
}

// MarkDone notes id as reported and reports whether it was not yet; a parked wait less. The
// waiters still hold the wait on id until Forget or Close.
func (m *Many) MarkDone(id int64) bool {
	i, ok := slices.BinarySearch(m.ids, id)
	if !ok || m.done[i] {
		return false
	}
	m.done[i] = true
	m.left--
	m.w.count.Add(-1)
	return true
}

// Forget takes the wait off ids, under one lock: those marked done before they were woken.
func (m *Many) Forget(ids []int64) { m.w.removeMany(ids, &m.queue) }

// Ready receives when Take has inquiries to give.
func (m *Many) Ready() <-chan struct{} { return m.queue.ready }

// Take returns the inquiries that became final since the last Take, each once.
func (m *Many) Take() []Woken {
	m.queue.mu.Lock()
	woken := m.queue.woken
	m.queue.woken = nil
	m.queue.mu.Unlock()
	var out []Woken
	for _, w := range woken {
		if m.MarkDone(w.Inquiry.ID) {
			out = append(out, w)
		}
	}
	return out
}

// Left is how many inquiries are not reported yet.
func (m *Many) Left() int { return m.left }

// Pending lists the ids not reported yet, in order.
func (m *Many) Pending() []int64 {
	out := make([]int64, 0, m.left)
	for i, id := range m.ids {
		if !m.done[i] {
			out = append(out, id)
		}
	}
	return out
}

// Close ends the wait: the ids not reported are no longer waited on.
func (m *Many) Close() {
	pending := m.Pending()
	m.w.removeMany(pending, &m.queue)
	m.w.count.Add(-int64(len(pending)))
	for i := range m.done {
		m.done[i] = true
	}
	m.left = 0
}
