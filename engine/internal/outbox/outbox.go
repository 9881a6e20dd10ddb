// Package outbox turns the event log, in seq order, into deliveries. The event log is written
// in the same transaction as every change, so it is what must be delivered; each page of
// deliveries commits in one transaction with the outbox cursor, the seq up to which the log
// has been read, so a crash at any point loses nothing and duplicates nothing.
//
// Which deliveries an event asks for (webhooks, callbacks, notifications, brokers) is the
// engine's rule, handed in as a Planner; this package holds the reading of the log, the
// cursor, and the pace.
//
// Every node reads the log; the first to move the cursor past a page wins, and the others
// learn that from a conflict and start again from where the winner left it.
package outbox

import (
	"context"
	"log/slog"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine/internal/loops"
)

const (
	// page is how many events one transaction turns into deliveries.
	page = 500
	// gap is the least time between two reads of the log, so that under load one read
	// takes the events of many commits. quietGap replaces it while the events read ask
	// for no delivery (no webhook, no callback): a busy log that nobody subscribed to is read
	// in a few large pages rather than on every commit.
	gap      = time.Millisecond
	quietGap = 25 * time.Millisecond
	// interval is how often the log is read without a hint (for the other nodes'
	// events, and to save the cursor).
	interval = time.Second
	// saveEvery is how often the cursor is saved when the events read asked for no
	// delivery. Reading them again after a crash finds no delivery either, so saving at once
	// would only cost a write per page.
	saveEvery = time.Second
)

// Log is what the outbox reads and writes: the event log, the cursor, and transactions that
// move the cursor and store deliveries (hitl.Store has it all).
type Log interface {
	Events(ctx context.Context, f hitl.EventFilter) ([]*hitl.Event, error)
	OutboxCursor(ctx context.Context) (int64, error)
	Update(ctx context.Context, fn func(hitl.Tx) error) error
}

// A Planner decides what events ask to deliver. It is called once per reading of the log,
// before its first page, to read what the plan depends on (the webhooks, the chat rooms), and
// returns what plans each page of that reading.
type Planner func(ctx context.Context) (PlanPage, error)

// PlanPage returns the deliveries that a page of events asks for.
type PlanPage func(ctx context.Context, evs []*hitl.Event) ([]*hitl.Delivery, error)

// Outbox is this node's reading of the log into deliveries.
type Outbox struct {
	log    Log
	plan   Planner
	logger *slog.Logger

	kick    chan struct{}
	ready   chan struct{} // deliveries were added or made due
	saved   int64         // the cursor as stored, as far as this node knows
	read    int64         // events up to here asked for nothing beyond what is stored
	savedAt time.Time
	stale   bool // another node moved the cursor: read it again
	quiet   bool // the last read found events and no delivery among them

	loops loops.Group
}

// New returns an outbox over log whose deliveries plan decides; it reads once started.
func New(log Log, plan Planner, logger *slog.Logger) *Outbox {
	return &Outbox{log: log, plan: plan, logger: logger, kick: make(chan struct{}, 1), ready: make(chan struct{}, 1)}
}

// Kick asks for a read of the log soon: events were committed.
func (o *Outbox) Kick() { signal(o.kick) }

// MarkReady says that deliveries were added or made due on this node, for Ready.
func (o *Outbox) MarkReady() { signal(o.ready) }

// Ready receives when deliveries were added or made due on this node, for the dispatcher to
// look for work at once rather than at its next poll.
func (o *Outbox) Ready() <-chan struct{} { return o.ready }

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Start reads the log until Stop: at each kick (a moment later, to take many commits at once)
// and every second.
func (o *Outbox) Start(ctx context.Context) {
	ctx = o.loops.Start(ctx)
	o.loops.Go(func() { o.run(ctx) })
}

// Stop ends the reading and waits for the read in progress, no longer than ctx allows; its
// context is cancelled, and what it did not commit is read again at the next start.
func (o *Outbox) Stop(ctx context.Context) error { return o.loops.Stop(ctx) }

func (o *Outbox) run(ctx context.Context) {
	o.stale = true
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.kick:
			if o.quiet {
				time.Sleep(quietGap)
			} else {
				time.Sleep(gap)
			}
		case <-tick.C:
		}
		if err := o.expand(ctx); err != nil && ctx.Err() == nil {
			o.logger.Warn("turning events into deliveries failed; retrying", "after", o.read, "err", err)
		}
	}
}

// expand turns the events after the cursor into deliveries, page by page.
func (o *Outbox) expand(ctx context.Context) error {
	if o.stale {
		seq, err := o.log.OutboxCursor(ctx)
		if err != nil {
			return err
		}
		o.saved, o.read, o.stale = seq, seq, false
	}
	var plan PlanPage
	read, delivering := false, false
	defer func() { o.quiet = read && !delivering }()
	for {
		evs, err := o.log.Events(ctx, hitl.EventFilter{After: o.read, Visibility: hitl.Visibility{All: true}, Limit: page})
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			break
		}
		read = true
		if plan == nil {
			if plan, err = o.plan(ctx); err != nil {
				return err
			}
		}
		ds, err := plan(ctx, evs)
		if err != nil {
			return err
		}
		o.read = evs[len(evs)-1].Seq
		if len(ds) > 0 {
			delivering = true
			if err := o.save(ctx, ds); err != nil || o.stale {
				return err // stale: another node moved the cursor; start again from where it left it
			}
		}
		if len(evs) < page {
			break
		}
	}
	if o.read > o.saved && time.Since(o.savedAt) >= saveEvery {
		return o.save(ctx, nil)
	}
	return nil
}

// save stores ds and moves the cursor to what has been read, in one transaction.
func (o *Outbox) save(ctx context.Context, ds []*hitl.Delivery) error {
	err := o.log.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.AdvanceOutboxCursor(o.saved, o.read); err != nil {
			return err
		}
		for _, d := range ds {
			insert := tx.InsertDelivery
			if d.Kind == hitl.DeliveryNotification {
				insert = tx.InsertNotification
			}
			if err := insert(d); err != nil {
				return err
			}
		}
		return nil
	})
	if hitl.ErrorCode(err) == hitl.EConflict {
		o.stale = true // another node has made these deliveries, or is making them now
		return nil
	}
	if err != nil {
		o.stale = true
		return err
	}
	o.saved, o.savedAt = o.read, time.Now()
	if len(ds) > 0 {
		o.MarkReady()
	}
	return nil
}
