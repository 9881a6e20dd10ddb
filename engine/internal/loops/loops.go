// Package loops holds the lifetime of the engine machinery's goroutines: they run under a
// context of their own, which Stop cancels, and Stop waits for them no longer than its own
// context allows, so that a server's shutdown is bounded by its timeout.
package loops

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrStillRunning is Stop's error when its context ended before the goroutines returned.
var ErrStillRunning = errors.New("still running")

// Group is the goroutines of one piece of machinery. The zero Group is ready; Stop before
// Start does nothing.
type Group struct {
	cancel  context.CancelFunc
	running sync.WaitGroup
}

// Start returns the context the group's goroutines run under: ctx's values, without its
// cancellation (a request that starts the engine may end long before it), cancelled by Stop.
func (g *Group) Start(ctx context.Context) context.Context {
	ctx, g.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return ctx
}

// Every runs fn every interval, the first time an interval from now, until ctx ends.
func Every(ctx context.Context, interval time.Duration, fn func(context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn(ctx)
		}
	}
}

// Go runs fn in a goroutine that Stop waits for.
func (g *Group) Go(fn func()) { g.running.Go(fn) }

// Stop cancels the group's context and waits for its goroutines, no longer than ctx allows
// (then ErrStillRunning).
func (g *Group) Stop(ctx context.Context) error {
	if g.cancel == nil {
		return nil
	}
	g.cancel()
	done := make(chan struct{})
	go func() {
		g.running.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ErrStillRunning
	}
}
