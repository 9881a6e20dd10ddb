package fanout

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// TestWaitersWakeEachWaitOnce: a single wait and a wait for many on one inquiry are both
// woken, each inquiry of the many is reported once, and nothing is left parked.
func TestWaitersWakeEachWaitOnce(t *testing.T) {
	w := NewWaiters()
	one := w.Add(2)
	many := w.AddMany([]int64{3, 1, 2})
	if w.Count() != 4 || !slices.Equal(many.Pending(), []int64{1, 2, 3}) {
		t.Fatalf("parked %d, pending %v", w.Count(), many.Pending())
	}
	at := time.Now()
	w.Wake(&hitl.Inquiry{ID: 2, Status: hitl.StatusResponded}, at)
	w.Wake(&hitl.Inquiry{ID: 2, Status: hitl.StatusResponded}, at) // again: nobody waits any more
	if got := <-one; got.Inquiry.ID != 2 || !got.At.Equal(at) {
		t.Fatalf("the single wait got %+v", got)
	}
	w.Remove(2, one)
	<-many.Ready()
	if got := many.Take(); len(got) != 1 || got[0].Inquiry.ID != 2 || many.Left() != 2 {
		t.Fatalf("took %+v, %d left", got, many.Left())
	}
	if got := many.Take(); len(got) != 0 {
		t.Fatalf("took %+v again", got)
	}
	if w.Has(2) || !w.Has(1) || w.Count() != 2 {
		t.Fatalf("after the wake: has 2 %v, has 1 %v, parked %d", w.Has(2), w.Has(1), w.Count())
	}
	many.Close()
	if w.Has(1) || w.Has(3) || w.Count() != 0 || many.Left() != 0 {
		t.Fatalf("after Close: parked %d, %d left", w.Count(), many.Left())
	}
}

// BenchmarkWaitsMemory reports the heap a million waits hold, parked as a hundred waits for
// ten thousand inquiries each (how the Go client's Waiter parks them), per wait: the server's
// own bookkeeping, without the requests that carry them.
func BenchmarkWaitsMemory(b *testing.B) {
	const streams, each = 100, 10_000
	for range b.N {
		w := NewWaiters()
		before := heapInUse()
		many := make([]*Many, streams)
		for s := range many {
			ids := make([]int64, each)
			for i := range ids {
				ids[i] = int64(s*each + i + 1)
			}
			many[s] = w.AddMany(ids)
		}
		after := heapInUse()
		runtime.KeepAlive(many)
		b.ReportMetric(float64(after-before)/(streams*each), "bytes/wait")
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
