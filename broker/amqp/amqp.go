// Package amqp publishes hitl's events to RabbitMQ and takes action results from it: the
// adapter between the outbox's broker deliveries and AMQP 0-9-1. One connection, kept up with
// backoff; a channel in confirm mode publishes, another consumes the intake queue.
package amqp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/broker"
	"github.com/hitl-dev/hitl/internal/tracing"
	"github.com/hitl-dev/hitl/notify"
)

// Config is the RabbitMQ settings of `hitl serve` (HITL_AMQP_*).
type Config struct {
	URL string // amqp://user:pass@host:5672/vhost; empty: no RabbitMQ
	// Exchange is the durable topic exchange events are published to, declared if missing
	// (default hitl); the routing key is the event type.
	Exchange string
	// Format is broker.FormatCloudEvents (default) or broker.FormatAttune.
	Format string
	// IntakeQueue, when set, is declared durable and bound to IntakeExchange (declared as a
	// durable topic exchange if missing; default: Exchange) with IntakeKey (default
	// execution.completed); its messages are action results.
	IntakeQueue, IntakeExchange, IntakeKey string
}

// Defaults.
const (
	DefaultExchange  = "hitl"
	DefaultIntakeKey = "execution.completed"
	// prefetch is how many intake messages are unacknowledged at once.
	prefetch = 16
	// Reconnection waits: doubling from redialFirst to redialMax.
	redialFirst = 250 * time.Millisecond
	redialMax   = 30 * time.Second
)

// Validate reports every problem of the settings at once; nil when RabbitMQ is not configured.
func (c *Config) Validate() error {
	if c.URL == "" {
		if c.IntakeQueue != "" {
			return errors.New("--amqp-intake-queue needs --amqp-url")
		}
		return nil
	}
	var errs []error
	if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "amqp" && u.Scheme != "amqps") || u.Host == "" {
		errs = append(errs, fmt.Errorf("--amqp-url %q is not a RabbitMQ URL like amqp://user:pass@host:5672/", redact(c.URL)))
	}
	if c.Format != "" {
		if err := broker.CheckFormat(c.Format); err != nil {
			errs = append(errs, fmt.Errorf("--amqp-format: %w", err))
		}
	}
	return errors.Join(errs...)
}

// redact is the URL without its password, for messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// Client is one RabbitMQ connection: a notify.Publisher, and the intake's consumer when configured.
type Client struct {
	cfg    Config
	log    *slog.Logger
	intake *broker.Intake
	// taking counts the intake's consumers, which Run waits for: no message is taken after it returns.
	taking sync.WaitGroup
	ids    broker.Identities

	mu      sync.Mutex
	pub     *amqp.Channel // nil while disconnected
	lastErr error
	changed chan struct{} // closed and replaced when the connection comes or goes (tests)
}

// New returns a client; Run connects it. intake is nil without an intake queue.
func New(cfg Config, eng broker.Engine, log *slog.Logger) *Client {
	cfg.Exchange = cmpOr(cfg.Exchange, DefaultExchange)
	cfg.Format = cmpOr(cfg.Format, broker.FormatCloudEvents)
	cfg.IntakeExchange = cmpOr(cfg.IntakeExchange, cfg.Exchange)
	cfg.IntakeKey = cmpOr(cfg.IntakeKey, DefaultIntakeKey)
	c := &Client{cfg: cfg, log: log.With("broker", "amqp"), changed: make(chan struct{}), lastErr: errors.New("not connected yet")}
	if eng != nil {
		c.ids = eng
	}
	if cfg.IntakeQueue != "" {
		c.intake = broker.NewIntake(eng, hitl.BrokerAMQP, "amqp:"+cfg.IntakeQueue)
	}
	return c
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Run keeps the connection up until ctx ends: it dials, declares the exchanges and the intake
// queue, consumes it, and on any loss dials again after a wait that doubles up to 30 s.
func (c *Client) Run(ctx context.Context) {
	defer c.taking.Wait()
	wait := redialFirst
	for first := true; ctx.Err() == nil; first = false {
		conn, err := c.connect(ctx)
		if err != nil {
			c.setDown(err)
			if first {
				c.log.Warn("RabbitMQ is unreachable; events wait in the outbox while hitl keeps trying", "url", redact(c.cfg.URL), "err", err)
			} else {
				c.log.Debug("RabbitMQ is still unreachable", "err", err, "retry_in", wait)
			}
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
			wait = min(wait*2, redialMax)
			continue
		}
		wait = redialFirst
		c.log.Info("connected to RabbitMQ", "url", redact(c.cfg.URL), "exchange", c.cfg.Exchange, "intake_queue", c.cfg.IntakeQueue)
		closed := conn.NotifyClose(make(chan *amqp.Error, 1))
		select {
		case <-ctx.Done():
			c.setDown(errors.New("shutting down"))
			conn.Close()
			return
		case cerr := <-closed:
			err := error(cerr)
			if cerr == nil {
				err = errors.New("the connection was closed")
			}
			c.setDown(err)
			c.log.Warn("lost the connection to RabbitMQ; reconnecting", "err", err)
		}
	}
}

// connect dials and sets up the topology, the publishing channel and the intake consumer.
func (c *Client) connect(ctx context.Context) (*amqp.Connection, error) {
	conn, err := amqp.DialConfig(c.cfg.URL, amqp.Config{Heartbeat: 10 * time.Second, Dial: amqp.DefaultDial(5 * time.Second),
		Properties: amqp.Table{"connection_name": "hitl"}})
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*amqp.Connection, error) { conn.Close(); return nil, err }
	pub, err := conn.Channel()
	if err != nil {
		return fail(err)
	}
	if err := pub.ExchangeDeclare(c.cfg.Exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		return fail(fmt.Errorf("declaring the exchange %q: %w", c.cfg.Exchange, err))
	}
	if err := pub.Confirm(false); err != nil {
		return fail(err)
	}
	if c.intake != nil {
		if err := c.consume(ctx, conn); err != nil {
			return fail(err)
		}
	}
	c.mu.Lock()
	c.pub, c.lastErr = pub, nil
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	return conn, nil
}

func (c *Client) setDown(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pub != nil {
		close(c.changed)
		c.changed = make(chan struct{})
	}
	c.pub, c.lastErr = nil, err
}

// Connected reports whether the client is connected, and a channel closed at the next change.
func (c *Client) Connected() (bool, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pub != nil, c.changed
}

// Publish sends one event to the exchange, persistent, with the event type as routing key and
// the event ID as message_id, and returns once RabbitMQ confirmed it.
func (c *Client) Publish(ctx context.Context, m *notify.Message) error {
	c.mu.Lock()
	pub, lastErr := c.pub, c.lastErr
	c.mu.Unlock()
	if pub == nil {
		return fmt.Errorf("not connected to RabbitMQ: %w", lastErr)
	}
	body, contentType, err := broker.Render(ctx, c.cfg.Format, m, c.ids)
	if err != nil {
		return err
	}
	dc, err := pub.PublishWithDeferredConfirmWithContext(ctx, c.cfg.Exchange, m.Type, false, false, amqp.Publishing{
		DeliveryMode: amqp.Persistent, MessageId: m.ID, Type: m.Type, Timestamp: m.Time, ContentType: contentType,
		AppId: "hitl", Body: body, Headers: traceHeaders(m),
	})
	if err != nil {
		return fmt.Errorf("publishing to RabbitMQ: %w", err)
	}
	acked, err := dc.WaitContext(ctx)
	if err != nil {
		return err
	}
	if !acked {
		return errors.New("RabbitMQ did not confirm the message (nack, or the channel closed first)")
	}
	return nil
}

// traceHeaders are the message's W3C Trace Context as AMQP headers, by the names its HTTP
// headers have (as OpenTelemetry's AMQP propagation reads them); nil when it has none.
func traceHeaders(m *notify.Message) amqp.Table {
	if m.Traceparent == "" {
		return nil
	}
	h := amqp.Table{"traceparent": m.Traceparent}
	if m.Tracestate != "" {
		h["tracestate"] = m.Tracestate
	}
	return h
}

// consume declares the intake queue, binds it and takes its messages on a channel of its own.
func (c *Client) consume(ctx context.Context, conn *amqp.Connection) error {
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	if c.cfg.IntakeExchange != c.cfg.Exchange {
		if err := ch.ExchangeDeclare(c.cfg.IntakeExchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
			return fmt.Errorf("declaring the intake exchange %q: %w", c.cfg.IntakeExchange, err)
		}
	}
	if _, err := ch.QueueDeclare(c.cfg.IntakeQueue, true, false, false, false, nil); err != nil {
		return fmt.Errorf("declaring the intake queue %q: %w", c.cfg.IntakeQueue, err)
	}
	if err := ch.QueueBind(c.cfg.IntakeQueue, c.cfg.IntakeKey, c.cfg.IntakeExchange, false, nil); err != nil {
		return fmt.Errorf("binding the intake queue %q to %q: %w", c.cfg.IntakeQueue, c.cfg.IntakeExchange, err)
	}
	if err := ch.Qos(prefetch, 0, false); err != nil {
		return err
	}
	msgs, err := ch.ConsumeWithContext(ctx, c.cfg.IntakeQueue, "hitl", false, false, false, false, nil)
	if err != nil {
		return fmt.Errorf("consuming the intake queue %q: %w", c.cfg.IntakeQueue, err)
	}
	c.taking.Go(func() {
		for d := range msgs {
			c.take(ctx, d)
		}
	})
	return nil
}

// take applies one intake message and acknowledges it after the commit; a message that can
// never be taken is rejected without requeue (dead-lettered when the queue has a DLX).
func (c *Client) take(ctx context.Context, d amqp.Delivery) {
	// A result sent in a trace (W3C headers, as hitl publishes them) makes an inquiry in that trace.
	tp, _ := d.Headers["traceparent"].(string)
	ts, _ := d.Headers["tracestate"].(string)
	ctx = tracing.Continue(ctx, tp, ts)
	c.intake.Handle(ctx, c.log, d.MessageId, d.Body,
		func() error { return d.Ack(false) },
		func() error { return d.Reject(false) },
		func() error {
			select { // not at once: what failed is most likely still failing
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			return d.Nack(false, true)
		})
}
