package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hitl-dev/hitl"
)

// Retention is what a purge costs the answers given beside it.
type Retention struct {
	// AnswerMS is the latency of answers under a steady load of asks and answers; DuringPurgeMS
	// the same load's while the throughput run's inquiries are purged.
	AnswerMS      Latency `json:"answer_latency_ms"`
	DuringPurgeMS Latency `json:"answer_latency_during_purge_ms"`
	// EventsRemovedPerS is how fast the purge removed events (with their inquiries), and
	// EventsRemoved how many it removed.
	EventsRemovedPerS float64 `json:"events_removed_per_s"`
	EventsRemoved     int     `json:"events_removed"`
}

// RetentionClients ask and answer beside the purge: a steady load, not the throughput's flood,
// so that the answers' latency shows what the purge adds.
const RetentionClients = 8

// retention measures a steady load of asks and answers for a while, then the same load while
// everything the run has answered so far is purged (POST /v1/retention/purge), as
// --retain-resolved does a batch at a time.
func (r *run) retention(ctx context.Context, d time.Duration) (Retention, error) {
	var out Retention
	before := time.Now()
	// The baseline also gives the outbox time to read the log past what the purge removes.
	base, err := askAndAnswer(ctx, RetentionClients, r.agent, r.human, func() bool { return time.Since(before) < d })
	if err != nil {
		return out, err
	}
	out.AnswerMS = summarize(base)
	var (
		done   atomic.Bool
		res    *hitl.PurgeResult
		purged time.Duration
		perr   error
	)
	go func() {
		defer done.Store(true)
		start := time.Now()
		res, perr = r.admin.Purge(ctx, before)
		purged = time.Since(start)
	}()
	during, err := askAndAnswer(ctx, RetentionClients, r.agent, r.human, func() bool { return !done.Load() })
	if err != nil {
		return out, err
	}
	if perr != nil {
		return out, fmt.Errorf("purge: %w", perr)
	}
	if res.Events == 0 || len(during) == 0 {
		return out, fmt.Errorf("the purge removed %d events while %d answers were given: nothing to measure", res.Events, len(during))
	}
	out.DuringPurgeMS = summarize(during)
	out.EventsRemoved, out.EventsRemovedPerS = res.Events, round(float64(res.Events)/purged.Seconds())
	return out, nil
}
