package bench

import (
	"context"
	"time"

	"github.com/hitl-dev/hitl/client"
)

// Scaled is the standard run at n times its preloaded deadlines and multiplexed waits
// (hitl bench --scale n): 10 gives 10,000,000 deadlines and 1,000,000 waits. Only what grows
// with them is measured (see Options.Scale).
func Scaled(n int) Options {
	o := Full()
	o.Scale = n
	o.PreloadedDeadlines *= n
	o.MultiplexedWaiters *= n
	return o
}

// atScale parks MultiplexedWaiters waits through one client.Waiter on preloaded inquiries of the
// first server (so that it holds both), measures its memory with them, and measures the wake
// latency and the deadlines' lateness while they stay parked.
func (r *run) atScale(ctx context.Context, res *Result) error {
	res.Scale = r.o.Scale
	n := min(r.o.MultiplexedWaiters, r.preloaded.n)
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = r.preloaded.first + int64(i)
	}
	r.say("multiplexed waits: %d waits through one Waiter, on preloaded inquiries ...", n)
	// The administrator may wait on any inquiry; the preloaded ones are another agent's.
	release, err := parkMultiplexed(ctx, r, client.New(r.url, adminToken, r.hc), r.url, r.pid, ids, 10*time.Minute, res)
	if err != nil {
		return err
	}
	defer release() // on the way out early; the end says whether they stayed parked
	r.held = n
	r.say("parked in %.1f s: %.0f bytes per wait, the server's RSS %.0f MiB", res.ParkMultiplexedS, res.BytesPerMultiplexedWaiter, float64(res.RSSWithMultiplexedWaiters)/(1<<20))

	r.say("wake latency: %d parked waiters answered one by one, beside them ...", r.o.Waiters)
	woken, err := r.histogram(ctx, "hitl_wake_latency_seconds")
	if err != nil {
		return err
	}
	if res.WakeLatencyMS, err = r.wakeLatency(ctx, r.human, res); err != nil {
		return err
	}
	wokenAfter, err := r.histogram(ctx, "hitl_wake_latency_seconds")
	if err != nil {
		return err
	}
	res.WakeAfterCommitMS = between(woken, wokenAfter)
	r.say("deadlines: %d inquiries timing out within %s, each with a parked waiter, beside them ...", r.o.Deadlines, r.o.DeadlineWindow)
	if err := r.deadlines(ctx, res); err != nil {
		return err
	}
	return release()
}
