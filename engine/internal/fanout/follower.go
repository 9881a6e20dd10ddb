package fanout

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine/internal/loops"
)

// followInterval is how often a node reads the log even without a hint, so a lost
// notification or a dropped LISTEN connection delays a wake-up by at most this long.
const followInterval = 500 * time.Millisecond

// followPage is how many events one read of the log takes.
const followPage = 1000

// followGap is the least time between two reads of the log while it is busy: under load every
// commit sends a hint, and reading at most once per gap takes the events of many commits at
// once, for a wake-up delay of at most the gap. The log counts as busy when the last two reads
// each found at least followBusy events; a quieter log is read at each hint, so that a single
// answer on another node wakes its waiter without the gap (cross-node p50 1.4 ms against
// 2.1 with the gap always kept, in --quick runs). One read that catches up with a few
// events, after a stall, is no load: with one busy read enough, a tenth of the answers given
// one by one on another node waited out the gap on top of the stall (1–1.7 ms, 30 of 300 in
// a test on a loaded machine; 1 of 300 with two reads needed), the tail of cross-node wake.
const (
	followGap  = 2 * time.Millisecond
	followBusy = 4
)

// EventLog is the log a Follower reads (hitl.Store has it).
type EventLog interface {
	Events(ctx context.Context, f hitl.EventFilter) ([]*hitl.Event, error)
}

// Following is what a Follower does beyond feeding the streams, on a store shared with other
// nodes; the zero Following is a store of this node's own.
type Following struct {
	// Watcher hints that other nodes appended events (nil: no hints, the interval alone).
	Watcher hitl.EventWatcher
	// Apply takes each event read, in seq order, before the streams get it (nil: a store of
	// this node's own, whose changes this node applied as it committed them).
	Apply func(ev *hitl.Event, at time.Time)
	// Tick runs at each interval (nil: nothing), on a goroutine of its own: it may query the
	// store, and a notification that came meanwhile would wait for it.
	Tick func(ctx context.Context)
}

// Follower reads the event log in seq order and fans each event out to the hub's streams, and
// on a shared store to Following.Apply. It reads at each Kick, on each hint of another node,
// and at least every followInterval. On a store of its own with nobody subscribed it does not
// read at all: it moves its position to the newest seq committed here (localSeq), which a new
// subscription's replay covers.
type Follower struct {
	log      EventLog
	hub      *Hub
	localSeq func() int64
	logger   *slog.Logger
	kick     chan struct{}
	loops    loops.Group
}

// NewFollower returns a follower of log that feeds hub; localSeq is the newest seq this node
// has committed.
func NewFollower(log EventLog, hub *Hub, localSeq func() int64, logger *slog.Logger) *Follower {
	return &Follower{log: log, hub: hub, localSeq: localSeq, logger: logger, kick: make(chan struct{}, 1)}
}

// Kick asks the follower to read the log now.
func (f *Follower) Kick() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// Start follows the log after seq after until Stop.
func (f *Follower) Start(ctx context.Context, after int64, how Following) {
	ctx = f.loops.Start(ctx)
	if how.Watcher != nil {
		f.loops.Go(func() { how.Watcher.WatchEvents(ctx, f.Kick) })
	}
	if how.Tick != nil {
		f.loops.Go(func() { loops.Every(ctx, followInterval, how.Tick) })
	}
	f.loops.Go(func() { f.follow(ctx, after, how) })
}

// Stop ends the following and waits for the read in progress, no longer than ctx allows.
func (f *Follower) Stop(ctx context.Context) error { return f.loops.Stop(ctx) }

// follow applies the events in seq order. Applying an event twice is harmless (see
// Following.Apply's user), and the streams skip seqs they have sent.
func (f *Follower) follow(ctx context.Context, after int64, how Following) {
	tick := time.NewTicker(followInterval)
	defer tick.Stop()
	var (
		last         time.Time
		read, before int // events the last read found, and the one before it
	)
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.kick:
		case <-tick.C:
		}
		if how.Apply == nil && f.hub.Idle(func() { after = max(after, f.localSeq()) }) {
			continue
		}
		if wait := followGap - time.Since(last); wait > 0 && read >= followBusy && before >= followBusy {
			time.Sleep(wait)
		}
		last = time.Now()
		before = read
		after, read = f.catchUp(ctx, after, how.Apply)
	}
}

// catchUp applies the events after seq and returns the last seq applied and how many events
// it read.
func (f *Follower) catchUp(ctx context.Context, after int64, apply func(*hitl.Event, time.Time)) (int64, int) {
	read := 0
	for {
		evs, err := f.log.Events(ctx, hitl.EventFilter{After: after, Visibility: hitl.Visibility{All: true}, Limit: followPage})
		if err != nil {
			if ctx.Err() == nil {
				f.logger.Warn("reading the event log failed; retrying", "after", after, "err", err)
			}
			return after, read
		}
		read += len(evs)
		at := time.Now()
		streaming := f.hub.Count() > 0
		for _, ev := range evs {
			after = ev.Seq
			if apply != nil {
				apply(ev, at)
			}
			if streaming {
				inq, sess := DecodeForStream(ev)
				f.hub.Publish(ev, inq, sess, revokedKeyID(ev))
			}
		}
		if len(evs) < followPage {
			return after, read
		}
	}
}

// revokedKeyID is the key a key.revoked event revokes, "" for other events: the streams of a
// revoked token end at once.
func revokedKeyID(ev *hitl.Event) string {
	if ev.Type != hitl.EventKeyRevoked {
		return ""
	}
	var k struct {
		ID string `json:"id"`
	}
	json.Unmarshal(ev.Data, &k)
	return k.ID
}
