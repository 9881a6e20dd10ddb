package bench

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/google/pprof/profile"
)

// writerRun is what the throughput run saw of the store's writer: the server's CPU profile
// and the changes and transactions the writer ran meanwhile.
type writerRun struct {
	profile          []byte
	changes, batches int64
}

// writerLoop is the function at the bottom of the writer goroutine's every stack.
const writerLoop = "internal/groupcommit.(*Queue).loop"

// cost is the writer goroutine's CPU time per change, in microseconds, and the changes per
// transaction.
func (w writerRun) cost() (usPerChange, perCommit float64, err error) {
	p, err := profile.Parse(bytes.NewReader(w.profile))
	if err != nil {
		return 0, 0, fmt.Errorf("reading the server's CPU profile: %w", err)
	}
	cpu := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" && st.Unit == "nanoseconds" {
			cpu = i
		}
	}
	if cpu < 0 {
		return 0, 0, fmt.Errorf("the server's CPU profile has no cpu nanoseconds")
	}
	var writerNanos int64
	for _, s := range p.Sample {
		if onStack(s, writerLoop) {
			writerNanos += s.Value[cpu]
		}
	}
	if w.changes == 0 || w.batches == 0 {
		return 0, 0, fmt.Errorf("the server's writer ran no change during the throughput run (hitl_store_changes_total)")
	}
	return round(float64(writerNanos) / 1000 / float64(w.changes)), round(float64(w.changes) / float64(w.batches)), nil
}

// onStack reports whether a function whose name ends in fn is on the sample's stack.
func onStack(s *profile.Sample, fn string) bool {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function != nil && strings.HasSuffix(line.Function.Name, fn) {
				return true
			}
		}
	}
	return false
}

// writerCounts reads the first server's hitl_store_changes_total and hitl_store_commits_total.
func (r *run) writerCounts(ctx context.Context) (changes, batches int64, err error) {
	c, err := r.metric(ctx, "hitl_store_changes_total")
	if err != nil {
		return 0, 0, err
	}
	b, err := r.metric(ctx, "hitl_store_commits_total")
	return int64(c), int64(b), err
}
