package engine_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/bench"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// BenchmarkStartLoadsDeadlines times Start on a SQLite file holding many pending inquiries
// with deadlines (100,000, or HITL_BENCH_DEADLINES), and reports the heap Start added per
// deadline and the peak heap it went through (the target: a million in at most 5 s).
func BenchmarkStartLoadsDeadlines(b *testing.B) {
	n := 100_000
	if s := os.Getenv("HITL_BENCH_DEADLINES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	path := filepath.Join(b.TempDir(), "db")
	e, stop := open(b, path, nil)
	at := time.Now().Add(time.Hour)
	if _, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", TimeoutAt: &at}, ""); err != nil {
		b.Fatal(err)
	}
	stop()
	if err := bench.CopyPendingInquiry(path, n-1); err != nil {
		b.Fatal(err)
	}
	for range b.N {
		st, err := sqlite.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		e := engine.New(st, engine.Options{})
		before := heapInUse()
		var peak runtime.MemStats
		start := time.Now()
		if err := e.Start(ctx); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		runtime.ReadMemStats(&peak)
		after := heapInUse()
		b.ReportMetric(took.Seconds(), "s/start")
		b.ReportMetric(float64(int64(after)-int64(before))/float64(n), "bytes/deadline")
		b.ReportMetric(float64(peak.HeapSys)/(1<<20), "MiB-heap-sys")
		e.Stop(ctx)
		st.Close()
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
