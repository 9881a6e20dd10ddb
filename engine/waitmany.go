package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hitl-dev/hitl"
)

// MaxWaitIDs is how many inquiries one wait for many may name: enough that an agent process
// with 100,000 questions open needs ten connections, few enough that registering them (a read
// of each) keeps a request short.
const MaxWaitIDs = 10000

// MultiWait is one wait for many inquiries (POST /v1/inquiries/wait). It costs the server an
// entry in the waiters' map and nine bytes per inquiry, and no goroutine: the one request that
// holds it reads its queue when Ready says there is something to take.
type MultiWait struct {
	e     *Engine
	p     *hitl.Principal
	ids   []int64 // sorted
	done  []bool  // done[i]: ids[i] was reported (or refused), so it is reported once
	left  int     // ids not done
	queue waitQueue
}

// waitQueue is the waker of a MultiWait: woken inquiries wait here until the request takes them.
type waitQueue struct {
	mu    sync.Mutex
	woken []wake
	ready chan struct{}
}

func (q *waitQueue) wake(w wake) {
	q.mu.Lock()
	q.woken = append(q.woken, w)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// WaitResult is what a wait for many reports of one id: its final inquiry, or why it cannot be
// waited on.
type WaitResult struct {
	ID      int64
	Inquiry *hitl.Inquiry
	Error   *hitl.BulkError
}

// WaitMany registers a wait on every id, then reads each one's state, so that no change falls
// between the two: it returns the ids already final or refused (not found, or not visible to
// p: the same answer, as GET says it), and the wait for the others. Mistakes in the request
// (no ids, too many, an id twice, an id that is no id) refuse it whole; so does a store that
// fails, after undoing the registration.
func (e *Engine) WaitMany(ctx context.Context, p *hitl.Principal, ids []int64) (*MultiWait, []WaitResult, error) {
	if err := checkWaitIDs(ids); err != nil {
		return nil, nil, err
	}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	m := &MultiWait{e: e, p: p, ids: sorted, done: make([]bool, len(sorted)), left: len(sorted)}
	m.queue.ready = make(chan struct{}, 1)
	e.waiters.addMany(sorted, &m.queue)
	e.waiters.count.Add(int64(len(sorted)))
	var first []WaitResult
	var gone []int64 // final or refused: no longer waited on
	for i, id := range ids {
		inq, err := e.Inquiry(ctx, p, id)
		var de *hitl.Error
		switch {
		case err == nil && !inq.Status.Final():
			continue
		case err == nil:
			first = append(first, WaitResult{ID: id, Inquiry: inq})
			e.received(p, inq)
		case errors.As(err, &de) && de.Code == hitl.ENotFound:
			first = append(first, WaitResult{ID: id, Error: &hitl.BulkError{Code: de.Code, Message: de.Message}})
		default:
			e.waiters.removeMany(gone, &m.queue)
			m.Close()
			if ctx.Err() == nil {
				err = fmt.Errorf("reading inquiry %d (the %d. of %d) to wait on it: %w", id, i+1, len(ids), err)
			}
			return nil, nil, err
		}
		m.markDone(id)
		gone = append(gone, id)
	}
	e.waiters.removeMany(gone, &m.queue)
	return m, first, nil
}

func checkWaitIDs(ids []int64) error {
	switch {
	case len(ids) == 0:
		return hitl.Errorf(hitl.EInvalid, `"ids" is empty: list the inquiries to wait on`)
	case len(ids) > MaxWaitIDs:
		return hitl.Errorf(hitl.ETooLarge, `"ids" lists %d inquiries; one wait takes at most %d: split them over several waits`, len(ids), MaxWaitIDs)
	}
	var bad problems
	checkIDs(&bad, ids)
	return bad.err("invalid wait")
}

// markDone notes id as reported and reports whether it was not yet; a parked wait less.
func (m *MultiWait) markDone(id int64) bool {
	i, ok := slices.BinarySearch(m.ids, id)
	if !ok || m.done[i] {
		return false
	}
	m.done[i] = true
	m.left--
	m.e.waiters.count.Add(-1)
	return true
}

// Ready receives when Take has inquiries to give.
func (m *MultiWait) Ready() <-chan struct{} { return m.queue.ready }

// Take returns the inquiries that became final since the last Take, each once.
func (m *MultiWait) Take() []*hitl.Inquiry {
	m.queue.mu.Lock()
	woken := m.queue.woken
	m.queue.woken = nil
	m.queue.mu.Unlock()
	var out []*hitl.Inquiry
	for _, w := range woken {
		if m.markDone(w.inq.ID) {
			m.e.metrics.WaiterWoken(time.Since(w.at))
			m.e.received(m.p, w.inq)
			out = append(out, w.inq)
		}
	}
	return out
}

// Left is how many inquiries are not reported yet.
func (m *MultiWait) Left() int { return m.left }

// Pending lists the ids not reported yet, in order.
func (m *MultiWait) Pending() []int64 {
	out := make([]int64, 0, m.left)
	for i, id := range m.ids {
		if !m.done[i] {
			out = append(out, id)
		}
	}
	return out
}

// Close ends the wait: the ids not reported are no longer waited on.
func (m *MultiWait) Close() {
	pending := m.Pending()
	m.e.waiters.removeMany(pending, &m.queue)
	m.e.waiters.count.Add(-int64(len(pending)))
	for i := range m.done {
		m.done[i] = true
	}
	m.left = 0
}
