package bench

import (
	"math"
	"testing"
)

// between reads quantiles from the growth of a histogram's cumulative buckets, interpolating
// within a bucket as Prometheus's histogram_quantile does.
func TestBetweenInterpolatesQuantiles(t *testing.T) {
	before := []bucket{{0.001, 5}, {0.002, 5}, {0.004, 5}, {math.Inf(1), 5}}
	// 100 more: 50 under 1 ms, 48 in 1–2 ms, 2 in 2–4 ms.
	after := []bucket{{0.001, 55}, {0.002, 103}, {0.004, 105}, {math.Inf(1), 105}}
	got := between(before, after)
	if got.P50 != 1 || got.P99 != 3 || got.Max != 4 {
		t.Errorf("between = %+v, want p50 1 ms, p99 3 ms, max 4 ms", got)
	}
	// Slower than every bound: the highest finite bound is all that is known.
	after = []bucket{{0.001, 5}, {0.002, 5}, {0.004, 5}, {math.Inf(1), 15}}
	if got := between(before, after); got.P99 != 4 || got.Max != 4 {
		t.Errorf("past every bound: between = %+v, want p99 and max 4 ms", got)
	}
	if got := between(before, before); got != (Latency{}) {
		t.Errorf("nothing observed: between = %+v, want zeros", got)
	}
}
