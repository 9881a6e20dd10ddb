// Package groupcommit hands a store's changes to a writer goroutine (SQLite's one, or a few
// for PostgreSQL), which runs the changes that arrive together as one batch: a store commits a
// batch in one transaction (each change in its own savepoint), so that many changes share one
// commit and one disk flush.
package groupcommit

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/hitl-dev/hitl"
)

// Op is one change waiting for the writer. Commit sets Err.
type Op struct {
	Ctx  context.Context
	Fn   func(hitl.Tx) error
	Err  error
	done chan struct{}
}

// Queue runs batches of changes on its writer goroutines (one unless NewWriters says more).
type Queue struct {
	ops    chan *Op
	quit   chan struct{}
	done   chan struct{}
	commit func([]*Op)
	// changes and batches count what the writer ran, for the metrics.
	changes, batches atomic.Int64
}

// New starts the writer. commit runs a batch of at most max changes and sets each one's Err.
func New(max int, commit func([]*Op)) *Queue { return NewWriters(1, max, commit) }

// NewWriters starts n writers taking batches from the one queue, so that n batches may run
// at once: for a store whose commit mostly waits on a database server, which can work on
// several transactions while one flushes. commit must then be safe to call concurrently.
func NewWriters(n, max int, commit func([]*Op)) *Queue {
	q := &Queue{ops: make(chan *Op, max), quit: make(chan struct{}), done: make(chan struct{}), commit: commit}
	var writers sync.WaitGroup
	for range n {
		writers.Go(func() { q.loop(max) })
	}
	go func() {
		writers.Wait()
		close(q.done)
	}()
	return q
}

var errClosed = hitl.Errorf(hitl.EUnavailable, "the store is shutting down")

// Update queues fn and returns once the batch holding it has committed (or fn failed). Once
// queued, a change is waited for even if ctx ends, so that the caller never reports a change
// as failed that did commit.
func (q *Queue) Update(ctx context.Context, fn func(hitl.Tx) error) error {
	o := &Op{Ctx: ctx, Fn: fn, done: make(chan struct{})}
	select {
	case q.ops <- o:
	case <-ctx.Done():
		return ctx.Err()
	case <-q.quit:
		return errClosed
	}
	select {
	case <-o.done:
		return o.Err
	case <-q.done:
		// The writer has stopped. It answers every change it took before stopping, and
		// closes done only after that; a change queued later was never run.
		select {
		case <-o.done:
			return o.Err
		default:
			return errClosed
		}
	}
}

// Close runs the changes already queued and stops the writer.
func (q *Queue) Close() {
	select {
	case <-q.quit:
	default:
		close(q.quit)
	}
	<-q.done
}

func (q *Queue) loop(max int) {
	batch := make([]*Op, 0, max)
	for {
		select {
		case o := <-q.ops:
			batch = append(batch[:0], o)
		case <-q.quit:
			for {
				select {
				case o := <-q.ops:
					q.run([]*Op{o})
				default:
					return
				}
			}
		}
	fill:
		for len(batch) < max {
			select {
			case o := <-q.ops:
				batch = append(batch, o)
			default:
				break fill
			}
		}
		q.run(batch)
	}
}

// Counts are the changes the writer has run and the batches (transactions) they came in.
func (q *Queue) Counts() (changes, batches int64) { return q.changes.Load(), q.batches.Load() }

func (q *Queue) run(batch []*Op) {
	q.changes.Add(int64(len(batch)))
	q.batches.Add(1)
	defer func() {
		for _, o := range batch {
			close(o.done)
		}
	}()
	q.commit(batch)
}
