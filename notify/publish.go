package notify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/tracing"
)

// Publisher publishes events to one message broker (RabbitMQ, NATS JetStream). The engine
// decides which events go out and makes one broker delivery per event and broker; the
// dispatcher claims it (one node publishes each, on a shared store), hands it to the
// Publisher of its channel, and records the outcome, retrying with backoff until the broker
// confirms it: a broker delivery never gives up by age, since its consumers count on every event.
//
// Publish is called at least once per event: after a crash or a lost confirmation, again with
// the same Message.ID, which the broker's consumers (or the broker itself) de-duplicate on.
// It returns nil once the broker confirmed the message, a PermanentError when the message can
// never be published (it cannot be read), any other error to retry.
type Publisher interface {
	Publish(ctx context.Context, m *Message) error
}

// Message is one event to publish.
type Message struct {
	// ID is the event's ID, the same on every attempt and for every broker.
	ID   string
	Type string
	Time time.Time
	// Body is the event as a CloudEvent (application/cloudevents+json), as webhooks receive it.
	Body []byte
	// Traceparent and Tracestate are the W3C trace context the message carries on in its
	// headers (its inquiry's trace, with this publish as the parent); "" for none.
	Traceparent, Tracestate string
}

// brokerRetryMax bounds the wait between two attempts of a broker delivery below RetryMax:
// a broker that comes back should see its backlog within seconds, not within the hour.
const brokerRetryMax = 30 * time.Second

// publish hands a broker delivery to its broker's Publisher.
func (d *Dispatcher) publish(ctx context.Context, del *hitl.Delivery) (permanent bool, err error) {
	pub := d.o.Publishers[del.Channel]
	if pub == nil {
		return false, fmt.Errorf("this server publishes to no %s broker: it has no %s configuration", del.Channel, del.Channel)
	}
	ctx, cancel := context.WithTimeout(ctx, d.o.AttemptTimeout)
	defer cancel()
	m := &Message{ID: del.EventID, Type: del.EventType, Time: del.CreatedAt, Body: del.Payload}
	trace := propagation.MapCarrier{}
	tracing.Inject(ctx, trace)
	m.Traceparent, m.Tracestate = trace["traceparent"], trace["tracestate"]
	err = pub.Publish(ctx, m)
	var perm *PermanentError
	switch {
	case err == nil:
	case errors.As(err, &perm):
		permanent = true
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		err = fmt.Errorf("no confirmation within %s", d.o.AttemptTimeout)
	}
	return permanent, err
}
