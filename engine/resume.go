package engine

import (
	"context"
	"slices"
	"time"

	"github.com/hitl-dev/hitl"
)

// The asking agent's receipt of an answer is recorded as inquiry.resumed, once per inquiry:
// the moment the agent goes on (Nova's RESUMING). It is written after the agent has its answer,
// by one background writer, so that it never slows the wake-up path: a waiter returns first,
// and the event follows a moment later.

// resumeQueue bounds the receipts waiting to be written; past it, one is dropped (and logged)
// rather than hold up an agent.
const resumeQueue = 1024

// resumeBatch is how many receipts one transaction writes. Small: a deadline wakes thousands
// of waiters at once, and the writer's group commit interleaves small transactions with the
// timeouts still to fire, where one of a hundred receipts held it long enough to make them
// late (hitl bench, 10,000 deadlines in 2 s: lateness p99 552 ms with 100, 66–247 ms with 10).
const resumeBatch = 10

// resumeLinger is how long the first receipt of a batch waits for others before it is written.
// Without it every wake-up was followed at once by a transaction of its own, one more commit
// and fsync per answer, running just as the next answer arrived (internal/server's
// BenchmarkWakeParked, answers one after another with 10,000 waits parked: the writer's CPU
// 2.3 s → 1.65 s for 3,000 answers, the answers' p50 1.08–1.14 ms → 0.87–1.02 ms). Each
// receipt keeps the time it was received, so resumed_at is not moved by the wait.
const resumeLinger = 20 * time.Millisecond

// resume is one receipt: the inquiry, and who received it ("": the agent that asked, for a
// callback acknowledged by its receiver).
type resume struct {
	id    int64
	actor string
	at    time.Time // when it was received
}

// received notes that p has received inq in the state given. It counts when inq is final and
// p asked it; it returns at once.
func (e *Engine) received(p *hitl.Principal, inq *hitl.Inquiry) {
	if inq == nil || !inq.Status.Final() || inq.ResumedAt != nil || p == nil || p.Name != inq.CreatedBy {
		return
	}
	e.queueResume(resume{id: inq.ID, actor: p.Name, at: e.clock()})
}

// InquiryFetched notes that p has read inq (GET /v1/inquiries/{id}): an agent that fetches
// its tool result of a final inquiry has received the answer.
func (e *Engine) InquiryFetched(p *hitl.Principal, inq *hitl.Inquiry) {
	if inq != nil && inq.ToolResult != nil {
		e.received(p, inq)
	}
}

// CallbackDelivered notes that a delivery was acknowledged by its receiver: a resume
// callback of a final inquiry means its agent has the answer.
func (e *Engine) CallbackDelivered(d *hitl.Delivery) {
	if d.Kind != hitl.DeliveryInquiryCallback || d.InquiryID == nil {
		return
	}
	switch d.EventType {
	case hitl.EventInquiryResponded, hitl.EventInquiryTimeout, hitl.EventInquiryCancelled:
		e.queueResume(resume{id: *d.InquiryID, at: e.clock()})
	}
}

func (e *Engine) queueResume(r resume) {
	select {
	case e.resumes <- r:
	default:
		e.log.Warn("too many resumptions to record; this one is left out", "inquiry_id", r.id)
	}
}

// recordResumes writes the queued receipts until ctx ends, those that came within
// resumeLinger of each other in one transaction.
func (e *Engine) recordResumes(ctx context.Context) {
	linger := time.NewTimer(resumeLinger)
	linger.Stop()
	for {
		var batch []resume
		select {
		case <-ctx.Done():
			e.flushResumes(ctx, nil)
			return
		case r := <-e.resumes:
			batch = append(batch, r)
		}
		linger.Reset(resumeLinger)
	more:
		for len(batch) < resumeBatch {
			select {
			case r := <-e.resumes:
				batch = append(batch, r)
			case <-linger.C:
				break more
			case <-ctx.Done():
				e.flushResumes(ctx, batch)
				return
			}
		}
		linger.Stop()
		// A write in progress finishes though the engine stops meanwhile (Stop waits for it,
		// within its own bound): cut short, its receipts would be lost.
		e.writeResumes(context.WithoutCancel(ctx), batch)
	}
}

// resumeFlushTime bounds the writing of the receipts still queued when the engine stops.
const resumeFlushTime = 2 * time.Second

// flushResumes writes, as the engine stops, batch and every receipt still queued: the last
// requests of a shutdown (long polls returning, callbacks acknowledged) are recorded too.
func (e *Engine) flushResumes(stopped context.Context, batch []resume) {
	for len(e.resumes) > 0 { // this loop is the only reader: what is counted is there
		batch = append(batch, <-e.resumes)
	}
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(stopped), resumeFlushTime)
	defer cancel()
	for chunk := range slices.Chunk(batch, resumeBatch) {
		e.writeResumes(ctx, chunk)
	}
}

// writeResumes appends inquiry.resumed for the inquiries of batch that are final and have not
// resumed before. The store writes ResumedAt only where none is written yet, so several
// waiters, or several nodes, make one event.
func (e *Engine) writeResumes(ctx context.Context, batch []resume) {
	var evs []*hitl.Event
	err := e.store.Update(ctx, func(tx hitl.Tx) error {
		evs = nil
		seen := map[int64]bool{}
		for _, r := range batch {
			if seen[r.id] {
				continue
			}
			seen[r.id] = true
			cur, err := tx.Inquiry(r.id)
			if hitl.ErrorCode(err) == hitl.ENotFound {
				continue
			}
			if err != nil {
				return err
			}
			if !cur.Status.Final() || cur.ResumedAt != nil {
				continue
			}
			next := *cur
			now := r.at
			next.ResumedAt = &now
			switch err := tx.MarkInquiryResumed(&next); {
			case hitl.ErrorCode(err) == hitl.EConflict:
				continue // another node recorded it first
			case err != nil:
				return err
			}
			actor := r.actor
			if actor == "" {
				actor = cur.CreatedBy
			}
			ev, err := appendInquiryEvent(tx, hitl.EventInquiryResumed, &next, actor, now)
			if err != nil {
				return err
			}
			evs = append(evs, ev)
		}
		return nil
	})
	if err != nil {
		if ctx.Err() == nil {
			e.log.Error("recording that agents resumed failed", "inquiries", len(batch), "err", err)
		}
		return
	}
	e.published(evs)
}

// ResumedAfter is how long after its answer (or timeout, or cancellation) the agent resumed.
func ResumedAfter(inq *hitl.Inquiry) (time.Duration, bool) {
	if inq.ResumedAt == nil {
		return 0, false
	}
	return inq.ResumedAt.Sub(inq.UpdatedAt), true
}
