package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine/internal/fanout"
)

// MaxWaitIDs is how many inquiries one wait for many may name: enough that an agent process
// with 100,000 questions open needs ten connections, few enough that registering them (a read
// of each) keeps a request short.
const MaxWaitIDs = 10000

// MultiWait is one wait for many inquiries (POST /v1/inquiries/wait): its parked wait is a
// fanout.Many, and what it reports passes through the engine's bookkeeping of receipts.
type MultiWait struct {
	e    *Engine
	p    *hitl.Principal
	many *fanout.Many
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
	m := &MultiWait{e: e, p: p, many: e.waiters.AddMany(ids)}
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
			m.many.Forget(gone)
			m.Close()
			if ctx.Err() == nil {
				err = fmt.Errorf("reading inquiry %d (the %d. of %d) to wait on it: %w", id, i+1, len(ids), err)
			}
			return nil, nil, err
		}
		m.many.MarkDone(id)
		gone = append(gone, id)
	}
	m.many.Forget(gone)
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

// Ready receives when Take has inquiries to give.
func (m *MultiWait) Ready() <-chan struct{} { return m.many.Ready() }

// Take returns the inquiries that became final since the last Take, each once.
func (m *MultiWait) Take() []*hitl.Inquiry {
	var out []*hitl.Inquiry
	for _, w := range m.many.Take() {
		m.e.metrics.WaiterWoken(time.Since(w.At))
		m.e.received(m.p, w.Inquiry)
		out = append(out, w.Inquiry)
	}
	return out
}

// Left is how many inquiries are not reported yet.
func (m *MultiWait) Left() int { return m.many.Left() }

// Pending lists the ids not reported yet, in order.
func (m *MultiWait) Pending() []int64 { return m.many.Pending() }

// Close ends the wait: the ids not reported are no longer waited on.
func (m *MultiWait) Close() { m.many.Close() }
