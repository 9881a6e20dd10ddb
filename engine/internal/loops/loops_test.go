package loops

import (
	"context"
	"errors"
	"testing"
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
