package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// The open loop. The closed loop (RespondThroughputPerS) has 64 clients that each wait for
// their answer before asking again: when the server slows down, they ask less, so a slow
// request hides the requests that were not sent meanwhile (coordinated omission), and its
// rate, divided by a ceiling measured the same way, moves ±20 % between runs. Here questions
// arrive on a schedule, at fixed fractions of the closed loop's rate measured in the same run,
// whatever the server does; each request's latency is taken from the time it was due, not
// from when it could be sent. The rates and their latencies draw the latency–throughput curve,
// and where the latencies bend upward is the knee: the load the server takes before queueing.

// Quantiles is a distribution in milliseconds, with its 99.9th percentile.
type Quantiles struct {
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
}

// OpenLoopRate is one arrival rate of the open loop. Each arrival is an agent that asks an
// approval (create), waits for it on a long poll, and a person who answers it AnswerDelay
// after the agent was due to ask (answer). CreateMS runs from the arrival's scheduled time to
// the inquiry's creation being acknowledged, AnswerMS from the answer's scheduled time to its
// acknowledgement, and WakeMS from sending the answer to the agent's long poll returning.
type OpenLoopRate struct {
	Fraction     float64   `json:"fraction_of_max"`
	TargetPerS   float64   `json:"target_per_s"`
	AchievedPerS float64   `json:"achieved_per_s"`
	Arrivals     int       `json:"arrivals"`
	CreateMS     Quantiles `json:"create_ms"`
	AnswerMS     Quantiles `json:"answer_ms"`
	WakeMS       Quantiles `json:"wake_ms"`
}

// AnswerDelay is how long after an agent is due to ask its question the person is due to
// answer it: time for the agent's long poll to be parked, so that the answer wakes it.
const AnswerDelay = 50 * time.Millisecond

// openLoop runs each of the options' fractions of maxPerS for OpenLoopDuration, one after the
// other.
func (r *run) openLoop(ctx context.Context, maxPerS float64) ([]OpenLoopRate, error) {
	var out []OpenLoopRate
	for _, f := range r.o.OpenLoopFractions {
		rate := maxPerS * f
		if rate <= 0 { // nothing to schedule against: the closed loop did nothing
			continue
		}
		r.say("open loop: %.0f%% of the closed loop's rate, %.0f questions/s for %s ...", f*100, rate, r.o.OpenLoopDuration)
		at, err := r.atRate(ctx, rate, r.o.OpenLoopDuration)
		if err != nil {
			return nil, fmt.Errorf("open loop at %.0f/s: %w", rate, err)
		}
		at.Fraction = f
		out = append(out, at)
	}
	return out, nil
}

// atRate schedules questions every 1/rate seconds for d, each run by a goroutine of its own as
// soon as it is due (so that a slow answer delays no later arrival), and measures them.
func (r *run) atRate(ctx context.Context, rate float64, d time.Duration) (OpenLoopRate, error) {
	n := max(1, int(rate*d.Seconds()))
	interval := time.Duration(float64(time.Second) / rate)
	created, answered, woken := make([]time.Duration, n), make([]time.Duration, n), make([]time.Duration, n)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		first    error
		lastDone time.Time
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	start := time.Now().Add(10 * time.Millisecond)
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait)
		}
		wg.Go(func() {
			inq, _, err := r.agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Approve?", RequestType: hitl.RequestApproval}, client.CreateOptions{})
			if err != nil {
				fail(err)
				return
			}
			done := time.Now()
			created[i] = done.Sub(due)
			mu.Lock()
			if done.After(lastDone) {
				lastDone = done
			}
			mu.Unlock()
			returned := make(chan time.Time, 1)
			go func() {
				got, err := r.agent.Wait(ctx, inq.ID, time.Minute)
				if err == nil && got.Status != hitl.StatusResponded {
					err = fmt.Errorf("inquiry %d: the wait returned it %s", inq.ID, got.Status)
				}
				if err != nil {
					fail(err)
				}
				returned <- time.Now()
			}()
			answerDue := due.Add(AnswerDelay)
			if wait := time.Until(answerDue); wait > 0 {
				time.Sleep(wait)
			}
			sent := time.Now()
			if _, err := r.human.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), ""); err != nil {
				fail(err)
				return
			}
			answered[i] = time.Since(answerDue)
			woken[i] = (<-returned).Sub(sent)
		})
	}
	wg.Wait()
	if first != nil {
		return OpenLoopRate{}, first
	}
	return OpenLoopRate{
		TargetPerS:   round(rate),
		AchievedPerS: round(float64(n) / lastDone.Sub(start).Seconds()),
		Arrivals:     n,
		CreateMS:     quantiles(created),
		AnswerMS:     quantiles(answered),
		WakeMS:       quantiles(woken),
	}, nil
}

// quantiles of ds (which it sorts), in milliseconds.
func quantiles(ds []time.Duration) Quantiles {
	slices.Sort(ds)
	q := func(p float64) float64 {
		return round(float64(ds[min(len(ds)-1, int(p*float64(len(ds))))]) / float64(time.Millisecond))
	}
	return Quantiles{P50: q(0.50), P99: q(0.99), P999: q(0.999)}
}
