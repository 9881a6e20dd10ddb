package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/outbound"
	"github.com/hitl-dev/hitl/internal/tracing"
)

// The dispatcher's defaults (hitl serve's --webhook-* flags show them).
const (
	DefaultConcurrency = 64
	DefaultPerTarget   = 16
	DefaultRetryBase   = 5 * time.Second
	DefaultRetryMax    = time.Hour
	DefaultRetryFor    = 24 * time.Hour
)

// DispatchOptions configure a Dispatcher. Zero values take the defaults.
type DispatchOptions struct {
	// Concurrency bounds the attempts in flight (DefaultConcurrency); PerTarget bounds those
	// to one webhook or callback host (DefaultPerTarget), so that a slow receiver holds at
	// most that many.
	Concurrency, PerTarget int
	// RetryBase is the wait after the first failed attempt (DefaultRetryBase); each failure
	// doubles it, with ±25 % jitter, up to RetryMax (DefaultRetryMax). A delivery is failed
	// once the next attempt would come later than RetryFor (DefaultRetryFor) after its first.
	RetryBase, RetryMax, RetryFor time.Duration
	// AttemptTimeout bounds one attempt, connection included (DefaultAttemptTimeout).
	AttemptTimeout time.Duration
	// Poll is how often the store is asked for due deliveries without a hint (default 1 s):
	// the retries other nodes scheduled, and the leases of nodes that died.
	Poll time.Duration
	// AllowPrivate lets deliveries reach any address, not only global unicast ones.
	AllowPrivate bool
	// CallbackSecret signs resume callbacks; webhooks are signed with their own secret,
	// which WebhookSecret gives from the delivery (whose Secret is as the store keeps it,
	// perhaps encrypted); nil: the delivery's Secret as it is.
	CallbackSecret string
	WebhookSecret  func(*hitl.Delivery) (string, error)
	// Senders send notifications, by channel (hitl.ChannelEmail, ...).
	Senders map[string]Sender
	// Publishers publish events, by broker (hitl.BrokerAMQP, hitl.BrokerNATS).
	Publishers map[string]Publisher
	Logger     *slog.Logger
	// Delivered, when set, is told of each delivery its receiver acknowledged, once recorded.
	Delivered func(*hitl.Delivery)
	// Now is the clock of the delivery times (default time.Now).
	Now func() time.Time
	// Tracer records a span of each attempt of a webhook, callback or broker delivery, in the
	// trace of its inquiry (nil: none; the trace context is carried on all the same).
	Tracer trace.TracerProvider
}

// leaseMargin is how long past an attempt's timeout its claim holds: a node that dies
// mid-attempt leaves the delivery to be sent again that long after.
const leaseMargin = 5 * time.Second

// Dispatcher sends the outbox's deliveries, at least once each: it claims due deliveries,
// posts each with Standard Webhooks headers, and records the outcome or the next retry.
type Dispatcher struct {
	store  hitl.Store
	o      DispatchOptions
	client *http.Client
	tracer trace.Tracer
	ready  <-chan struct{}
	done   chan attemptDone
}

type attemptDone struct {
	target string
	next   time.Time // when this delivery is due again; zero when it is not
}

// NewDispatcher returns a dispatcher over store; ready receives when deliveries were added.
func NewDispatcher(store hitl.Store, ready <-chan struct{}, o DispatchOptions) *Dispatcher {
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.PerTarget <= 0 {
		o.PerTarget = DefaultPerTarget
	}
	if o.RetryBase <= 0 {
		o.RetryBase = DefaultRetryBase
	}
	if o.RetryMax <= 0 {
		o.RetryMax = DefaultRetryMax
	}
	if o.RetryFor <= 0 {
		o.RetryFor = DefaultRetryFor
	}
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = DefaultAttemptTimeout
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Dispatcher{store: store, o: o, client: NewClient(o.AllowPrivate, o.AttemptTimeout), tracer: tracing.Tracer(o.Tracer),
		ready: ready, done: make(chan attemptDone, o.Concurrency)}
}

// Run delivers until ctx ends, then waits for the attempts in flight, which a cancelled ctx
// cuts short: those deliveries are left due, to be sent again.
func (d *Dispatcher) Run(ctx context.Context) {
	inFlight := map[string]int{}
	total := 0
	nextDue := time.Time{} // the earliest retry this dispatcher scheduled
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		if free := d.o.Concurrency - total; free > 0 {
			for _, del := range d.claim(ctx, free, inFlight) {
				inFlight[del.Target]++
				total++
				go func() { d.done <- d.attempt(ctx, del) }()
			}
		}
		wait := d.o.Poll
		if now := d.o.Now(); !nextDue.IsZero() {
			wait = min(wait, max(nextDue.Sub(now), 0))
			if !nextDue.After(now) {
				nextDue = time.Time{}
			}
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			for ; total > 0; total-- {
				<-d.done
			}
			return
		case <-d.ready:
		case a := <-d.done:
			// Take every attempt that has ended, so that one claim refills all their slots.
			for more := true; more; {
				total--
				if inFlight[a.target]--; inFlight[a.target] == 0 {
					delete(inFlight, a.target)
				}
				if !a.next.IsZero() && (nextDue.IsZero() || a.next.Before(nextDue)) {
					nextDue = a.next
				}
				select {
				case a = <-d.done:
				default:
					more = false
				}
			}
		case <-timer.C:
		}
	}
}

// claim leases up to n due deliveries, none beyond a target's room for attempts in flight.
func (d *Dispatcher) claim(ctx context.Context, n int, inFlight map[string]int) []*hitl.Delivery {
	now := d.o.Now()
	var claimed []*hitl.Delivery
	err := d.store.Update(ctx, func(tx hitl.Tx) (err error) {
		claimed, err = tx.ClaimDeliveries(hitl.Claim{Now: now, LeaseUntil: now.Add(d.o.AttemptTimeout + leaseMargin), Limit: n,
			PerTarget: d.o.PerTarget, InFlight: inFlight})
		return err
	})
	if err != nil && ctx.Err() == nil {
		d.o.Logger.Warn("claiming deliveries failed; retrying", "err", err)
	}
	return claimed
}

// save records a delivery's state; it runs even while shutting down, so that nothing is lost.
func (d *Dispatcher) save(del *hitl.Delivery) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := d.store.Update(ctx, func(tx hitl.Tx) error { return tx.SaveAttempt(del) })
	// A delivery gone with its webhook has nothing left to record.
	if err != nil && hitl.ErrorCode(err) != hitl.ENotFound {
		d.o.Logger.Error("recording a delivery failed; its lease will make it due again", "delivery_id", del.ID, "err", err)
	}
}

// attempt posts one delivery and records the outcome.
func (d *Dispatcher) attempt(ctx context.Context, del *hitl.Delivery) attemptDone {
	at := hitl.UTC(d.o.Now())
	var (
		status, response = 0, "" // notifications and broker publishes have no HTTP status
		retryAfter       time.Duration
		permanent        bool
		err              error
		secret           = d.o.CallbackSecret
	)
	if del.Kind == hitl.DeliveryWebhook {
		secret = del.Secret
		if d.o.WebhookSecret != nil {
			secret, err = d.o.WebhookSecret(del)
		}
	}
	noStatus := del.Kind == hitl.DeliveryNotification || del.Kind == hitl.DeliveryBroker
	switch {
	case err != nil:
		// A secret this node cannot open: nothing is sent unsigned; the attempt fails and is
		// retried (by a node that has the key, or after a restart with it).
		d.o.Logger.Error("a webhook's secret does not decrypt; the delivery is not sent", "delivery_id", del.ID, "err", err)
	case del.Kind == hitl.DeliveryNotification:
		response, retryAfter, permanent, err = d.send(ctx, del)
	case del.Kind == hitl.DeliveryBroker:
		sctx, span := d.startSpan(ctx, del, "publish "+del.Channel, trace.SpanKindProducer)
		permanent, err = d.publish(sctx, del)
		tracing.End(span, err)
	default:
		sctx, span := d.startSpan(ctx, del, "POST "+string(del.Kind), trace.SpanKindClient)
		status, response, retryAfter, err = d.post(sctx, del, secret, at)
		endPostSpan(span, status, err)
	}
	if ctx.Err() != nil {
		// Shutting down: this attempt does not count; the delivery is due at once on restart.
		del.NextAttemptAt = &at
		d.save(del)
		return attemptDone{target: del.Target}
	}
	del.Attempts++
	del.LastAttemptAt, del.LastStatus, del.LastResponse, del.LastError = &at, status, response, ""
	if err != nil {
		del.LastError = err.Error()
	}
	switch {
	case err == nil && (noStatus || status >= 200 && status < 300):
		del.Status, del.NextAttemptAt, del.DeliveredAt = hitl.DeliveryDelivered, nil, &at
	case permanent, status == http.StatusGone: // the receiver says this URL is gone for good
		del.Status, del.NextAttemptAt = hitl.DeliveryFailed, nil
	case del.Kind == hitl.DeliveryBroker:
		next := at.Add(min(d.backoff(del.Attempts, 0), brokerRetryMax))
		del.NextAttemptAt = &next
	default:
		next := at.Add(d.backoff(del.Attempts, retryAfter))
		if next.After(del.RetryFrom.Add(d.o.RetryFor)) {
			del.Status, del.NextAttemptAt = hitl.DeliveryFailed, nil
		} else {
			del.NextAttemptAt = &next
		}
	}
	d.save(del)
	if del.Status == hitl.DeliveryDelivered && d.o.Delivered != nil {
		d.o.Delivered(del)
	}
	d.o.Logger.Debug("delivery attempt", "delivery_id", del.ID, "url", del.URL, "status", status, "outcome", del.Status, "attempts", del.Attempts, "err", err)
	done := attemptDone{target: del.Target}
	if del.NextAttemptAt != nil {
		done.next = *del.NextAttemptAt
	}
	return done
}

// post sends the delivery's payload once. A status outside 2xx is not an error here; the
// answer's Retry-After, in seconds, is returned.
func (d *Dispatcher) post(ctx context.Context, del *hitl.Delivery, secret string, at time.Time) (status int, response string, retryAfter time.Duration, err error) {
	headers, err := Headers(secret, del.ID, at, del.Payload)
	if err != nil {
		return 0, "", 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, d.o.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, del.URL, bytes.NewReader(del.Payload))
	if err != nil {
		return 0, "", 0, fmt.Errorf("the URL cannot be requested: %w", err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	tracing.Inject(ctx, propagation.HeaderCarrier(req.Header))
	switch del.Channel { // the protocols' own bodies, not CloudEvents
	case hitl.CallbackAgentQuestions:
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Agent-Session", del.Session)
	case hitl.ChannelA2APush:
		req.Header.Set("Content-Type", "application/json")
		if del.Thread != "" {
			req.Header.Set("X-A2A-Notification-Token", del.Thread)
		}
	}
	req.Header.Set("User-Agent", "hitl-webhooks/1")
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, "", 0, attemptError(err, d.o.AttemptTimeout)
	}
	defer resp.Body.Close()
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		retryAfter = time.Duration(s) * time.Second
	}
	return resp.StatusCode, ReadLimited(resp.Body), retryAfter, nil
}

// attemptError says why an attempt got no answer, without the Go call chain.
func attemptError(err error, timeout time.Duration) error {
	var ue *url.Error
	var refused *outbound.AddrError
	switch {
	case errors.As(err, &refused):
		return refused
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ue) && ue.Timeout():
		return fmt.Errorf("no answer within %s", timeout)
	case errors.As(err, &ue):
		return ue.Err
	}
	return err
}

// backoff is the wait before attempt n+1: RetryBase doubled n-1 times, ±25 % jitter so that
// retries to one receiver spread out, at most RetryMax, and at least what the receiver asked.
func (d *Dispatcher) backoff(n int, atLeast time.Duration) time.Duration {
	wait := d.o.RetryBase
	for i := 1; i < n && wait < d.o.RetryMax; i++ {
		wait *= 2
	}
	wait = min(wait, d.o.RetryMax)
	wait = time.Duration(float64(wait) * (0.75 + rand.Float64()/2))
	return min(max(wait, atLeast), d.o.RetryMax)
}

// startSpan starts the span of one attempt, a child of the trace kept with the delivery's
// inquiry (a new trace when it has none and spans are recorded).
func (d *Dispatcher) startSpan(ctx context.Context, del *hitl.Delivery, name string, kind trace.SpanKind) (context.Context, trace.Span) {
	attrs := []attribute.KeyValue{attribute.String("hitl.delivery_id", del.ID), attribute.String("hitl.event_type", del.EventType),
		attribute.Int("hitl.attempt", del.Attempts+1)}
	if del.InquiryID != nil {
		attrs = append(attrs, attribute.Int64("hitl.inquiry_id", *del.InquiryID))
	}
	if del.Kind == hitl.DeliveryBroker {
		attrs = append(attrs, semconv.MessagingSystemKey.String(del.Channel), semconv.MessagingMessageID(del.EventID))
	} else {
		attrs = append(attrs, semconv.HTTPRequestMethodPost)
		if u, err := url.Parse(del.URL); err == nil {
			attrs = append(attrs, semconv.ServerAddress(u.Hostname())) // not the URL: its path or query may hold a token
		}
	}
	return d.tracer.Start(tracing.Continue(ctx, del.Traceparent, del.Tracestate), name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

// endPostSpan ends the span of a post: failed when no answer came, or the answer was not 2xx.
func endPostSpan(span trace.Span, status int, err error) {
	if status != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	}
	if err == nil && (status < 200 || status >= 300) {
		err = fmt.Errorf("the receiver answered %d", status)
	}
	tracing.End(span, err)
}
