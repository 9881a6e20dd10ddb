// Package hitltemporal lets a Temporal workflow ask a person through hitl and wait for the
// answer durably: AskHuman is a step of the workflow, like an activity, that returns the ended
// inquiry.
//
// How it works:
//
//   - An activity (CreateInquiry) creates the inquiry with the repository's Go client. Its
//     Idempotency-Key is made of the workflow's namespace, id and run id and the activity's id,
//     so a retried or replayed activity gets the same inquiry back, never a second one. The
//     inquiry's callback_url is the address of CallbackHandler, and its metadata names the
//     workflow (temporal_workflow_id, temporal_run_id, temporal_namespace).
//   - hitl delivers the inquiry's events to that address as resume callbacks: stored with the
//     answer in one transaction, signed with the server's callback secret, and retried until
//     the receiver answers 2xx, across restarts of hitl. CallbackHandler verifies the signature
//     and, once the inquiry has ended (answered, timed out, cancelled), signals the workflow on
//     the channel SignalName(inquiry id) with the inquiry. Temporal keeps the signal in the
//     workflow's history even while no worker runs, so a worker restarted mid-wait replays it.
//   - The workflow takes the first signal of that channel and ignores any repeat: delivery is
//     at least once, the effect exactly once.
//   - The workflow's timer agrees with hitl's deadline: it never gives up before the
//     inquiry's timeout_at, since it is hitl that times the inquiry out (with the fallback value
//     when the inquiry has one) and signals that outcome like an answer. Should that signal not
//     have come Grace after the deadline (the handler unreachable for that long), the
//     workflow fetches the inquiry by an activity (FetchInquiry), and again every Grace while
//     hitl still says pending. An inquiry without a deadline is fetched every Recheck.
//   - A workflow cancelled while it waits cancels the inquiry in hitl (CancelInquiry).
//
// A worker registers the activities with Register; the application serves CallbackHandler at
// the address given there.
package hitltemporal

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// The activities' registered names.
const (
	ActivityCreateInquiry = "hitl.CreateInquiry"
	ActivityFetchInquiry  = "hitl.FetchInquiry"
	ActivityCancelInquiry = "hitl.CancelInquiry"
)

// The metadata keys the inquiry carries, naming the workflow that asked.
const (
	MetaWorkflowID = "temporal_workflow_id"
	MetaRunID      = "temporal_run_id"
	MetaNamespace  = "temporal_namespace"
)

// Defaults of Options.
const (
	DefaultGrace   = time.Minute
	DefaultRecheck = time.Hour
)

// SignalName is the signal channel on which CallbackHandler delivers the ended inquiry id.
func SignalName(id int64) string { return "hitl.inquiry." + strconv.FormatInt(id, 10) }

// Options tune AskHumanWith. The zero value is what AskHuman uses.
type Options struct {
	// Grace is how long after the inquiry's deadline the workflow waits for the callback's
	// signal before it fetches the inquiry itself (DefaultGrace). It covers the clocks of
	// hitl and Temporal disagreeing a little, and hitl's own delay in timing out.
	Grace time.Duration
	// Recheck is how often the workflow fetches an inquiry without a deadline, in case its
	// signal was lost (DefaultRecheck).
	Recheck time.Duration
	// Activity is the options of the activities; by default each attempt may take 30 s and
	// attempts are retried without end, at most a minute apart, while hitl is unreachable.
	Activity *workflow.ActivityOptions
}

func (o Options) activity() workflow.ActivityOptions {
	if o.Activity != nil {
		return *o.Activity
	}
	return workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    time.Minute,
		},
	}
}

// AskHuman asks a person from a workflow and waits until the inquiry has ended, then returns
// it, as client.Ask does: its Response is the answer, or the fallback value (FallbackApplied)
// when hitl's deadline passed under a fallback policy. A timeout under policy fail is a
// *client.TimeoutError, a cancellation a *client.CancelledError. req.CallbackURL is replaced by
// the address the worker registered (see Register).
func AskHuman(ctx workflow.Context, req hitl.InquiryRequest) (*hitl.Inquiry, error) {
	return AskHumanWith(ctx, req, Options{})
}

// AskHumanWith is AskHuman with options.
func AskHumanWith(ctx workflow.Context, req hitl.InquiryRequest, o Options) (*hitl.Inquiry, error) {
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.Recheck <= 0 {
		o.Recheck = DefaultRecheck
	}
	actx := workflow.WithActivityOptions(ctx, o.activity())
	inq, err := createInquiry(actx, req)
	if err != nil {
		return nil, err
	}
	if inq.Status.Final() {
		return inq, client.Outcome(inq)
	}
	if ctx.Err() != nil {
		cancelInquiry(actx, inq.ID)
		return nil, ctx.Err()
	}
	ch := workflow.GetSignalChannel(ctx, SignalName(inq.ID))
	for {
		if ended, ok := receive(ctx, ch, inq.ID, checkAfter(workflow.Now(ctx), inq, o)); ok {
			return ended, client.Outcome(ended)
		}
		if ctx.Err() != nil {
			cancelInquiry(actx, inq.ID)
			return nil, ctx.Err()
		}
		var now *hitl.Inquiry
		if err := workflow.ExecuteActivity(actx, ActivityFetchInquiry, inq.ID).Get(ctx, &now); err != nil {
			if ctx.Err() != nil {
				cancelInquiry(actx, inq.ID)
			}
			return nil, err
		}
		if now.Status.Final() {
			return now, client.Outcome(now)
		}
		inq = now // its deadline may have moved (an escalation, a chain's next step)
	}
}

// checkAfter is how long to wait for the signal before fetching the inquiry: until Grace after
// its deadline, or Recheck when it has none; Grace at least once the deadline has passed.
func checkAfter(now time.Time, inq *hitl.Inquiry, o Options) time.Duration {
	if inq.TimeoutAt == nil {
		return o.Recheck
	}
	return max(inq.TimeoutAt.Add(o.Grace).Sub(now), o.Grace)
}

// receive waits at most d for the ended inquiry id on ch, and reports whether it came; a
// payload that is not that inquiry ended is dropped. It returns early when ctx is cancelled.
func receive(ctx workflow.Context, ch workflow.ReceiveChannel, id int64, d time.Duration) (*hitl.Inquiry, bool) {
	tctx, stop := workflow.WithCancel(ctx)
	defer stop()
	timer := workflow.NewTimer(tctx, d)
	for {
		var got *hitl.Inquiry
		timedOut := false
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(ch, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &got) })
		sel.AddFuture(timer, func(workflow.Future) { timedOut = true })
		sel.Select(ctx)
		switch {
		case got != nil && got.ID == id && got.Status.Final():
			return got, true
		case timedOut || ctx.Err() != nil:
			return nil, false
		}
	}
}

// createInquiry runs the create activity to its end even when the workflow is cancelled
// meanwhile: the inquiry may already be stored in hitl, and only its id lets the caller cancel
// it, so that nobody answers a question the workflow no longer asks.
func createInquiry(actx workflow.Context, req hitl.InquiryRequest) (*hitl.Inquiry, error) {
	dctx, cancel := workflow.NewDisconnectedContext(actx)
	defer cancel()
	var inq *hitl.Inquiry
	err := workflow.ExecuteActivity(dctx, ActivityCreateInquiry, req).Get(dctx, &inq)
	return inq, err
}

// cancelInquiry cancels the inquiry in hitl when the workflow is cancelled while it waits, so
// that nobody answers a question the workflow no longer asks.
func cancelInquiry(actx workflow.Context, id int64) {
	dctx, cancel := workflow.NewDisconnectedContext(actx)
	defer cancel()
	_ = workflow.ExecuteActivity(dctx, ActivityCancelInquiry, id).Get(dctx, nil)
}

// IdempotencyKey is the key CreateInquiry sends: the same for every attempt and replay of one
// activity of one workflow run, and different for every other.
func IdempotencyKey(namespace, workflowID, runID, activityID string) string {
	h := sha256.New()
	for _, part := range []string{namespace, workflowID, runID, activityID} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return "temporal-" + hex.EncodeToString(h.Sum(nil))
}
