package engine

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// BenchmarkDeadlinesMemory reports the heap that a million pending deadlines hold in the
// timer structure, per deadline (the target is at most 200 bytes).
func BenchmarkDeadlinesMemory(b *testing.B) {
	const n = 1_000_000
	for range b.N {
		d := newDeadlines(time.Now, func(context.Context, []int64) {})
		start := time.Now().Add(time.Hour)
		before := heapInUse()
		for i := range n {
			d.add(int64(i+1), start.Add(time.Duration(i*7919%n)*time.Millisecond))
		}
		after := heapInUse()
		runtime.KeepAlive(d)
		b.ReportMetric(float64(after-before)/n, "bytes/deadline")
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
