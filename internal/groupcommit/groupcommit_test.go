package groupcommit

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// With two writers, a second batch runs while the first is still committing; with one, it
// waits for it.
func TestWritersRunBatchesAtOnce(t *testing.T) {
	for _, n := range []int{1, 2} {
		var running, most atomic.Int32
		release := make(chan struct{})
		q := NewWriters(n, 1, func(batch []*Op) {
			now := running.Add(1)
			for old := most.Load(); now > old && !most.CompareAndSwap(old, now); old = most.Load() {
			}
			<-release
			running.Add(-1)
		})
		var changes sync.WaitGroup
		for range 2 {
			changes.Go(func() {
				if err := q.Update(context.Background(), func(hitl.Tx) error { return nil }); err != nil {
					t.Error(err)
				}
			})
		}
		// Both changes are taken (n writers) or one is (one writer) before the batches end.
		for deadline := time.Now().Add(5 * time.Second); running.Load() < int32(n); {
			if time.Now().After(deadline) {
				t.Fatalf("%d writers: %d batches running, want %d", n, running.Load(), n)
			}
			<-time.After(time.Millisecond)
		}
		close(release)
		changes.Wait()
		q.Close()
		if most.Load() != int32(n) {
			t.Errorf("%d writers: at most %d batches ran at once, want %d", n, most.Load(), n)
		}
	}
}

// Close answers every change a writer took and stops all the writers.
func TestCloseStopsEveryWriter(t *testing.T) {
	var ran atomic.Int32
	q := NewWriters(3, 4, func(batch []*Op) { ran.Add(int32(len(batch))) })
	var changes sync.WaitGroup
	for range 50 {
		changes.Go(func() { q.Update(context.Background(), func(hitl.Tx) error { return nil }) })
	}
	changes.Wait()
	q.Close()
	if ran.Load() != 50 {
		t.Errorf("%d of 50 changes ran", ran.Load())
	}
	if err := q.Update(context.Background(), func(hitl.Tx) error { return nil }); err == nil {
		t.Error("a change after Close was accepted")
	}
}
