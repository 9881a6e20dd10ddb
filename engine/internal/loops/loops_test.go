package loops

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestStopCancelsAndWaitsNoLongerThanItsContext: Stop before Start does nothing; Stop cancels
// the goroutines' context, reports ErrStillRunning while one has not returned when its own
// context ends, and nil once they all have.
func TestStopCancelsAndWaitsNoLongerThanItsContext(t *testing.T) {
	var g Group
	if err := g.Stop(context.Background()); err != nil {
		t.Fatalf("Stop before Start: %v", err)
	}
	ctx := g.Start(context.Background())
	cancelled, release := make(chan struct{}), make(chan struct{})
	g.Go(func() {
		<-ctx.Done()
		close(cancelled)
		<-release
	})
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.Stop(expired); !errors.Is(err, ErrStillRunning) {
		t.Fatalf("Stop with a goroutine held: %v", err)
	}
	<-cancelled
	close(release)
	if err := g.Stop(context.Background()); err != nil {
		t.Fatalf("Stop once it returned: %v", err)
	}
}

// Every runs its function again and again, and returns once its context ends.
func TestEveryRunsUntilTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	runs := make(chan struct{}, 3)
	returned := make(chan struct{})
	go func() {
		Every(ctx, time.Millisecond, func(context.Context) {
			select {
			case runs <- struct{}{}:
			default:
				cancel()
			}
		})
		close(returned)
	}()
	<-returned // it ran three times, and the fourth ended the context
	if len(runs) != 3 {
		t.Fatalf("ran %d times before the context ended, want 3", len(runs))
	}
}
