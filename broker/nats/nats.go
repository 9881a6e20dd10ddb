// Package nats publishes hitl's events to NATS JetStream and takes action results from it:
// the adapter between the outbox's broker deliveries and JetStream. Events go to subjects
// PREFIX.<event type> of a stream created if missing, with Nats-Msg-Id = the event ID, so that
// JetStream drops a repeat within its duplicate window.
package nats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/broker"
	"github.com/hitl-dev/hitl/internal/tracing"
	"github.com/hitl-dev/hitl/notify"
)

// Config is the NATS settings of `hitl serve` (HITL_NATS_*).
type Config struct {
	URL string // nats://host:4222; empty: no NATS
	// Prefix of the event subjects (default hitl): hitl.inquiry.created, ...
	Prefix string
	// Stream holds the event subjects, created if missing (default HITL).
	Stream string
	// Format is broker.FormatCloudEvents (default) or broker.FormatAttune.
	Format string
	// IntakeSubject, when set, is consumed by the durable consumer IntakeDurable (default
	// hitl-intake) from the stream that holds it (one named Stream_INTAKE is created if none does).
	IntakeSubject, IntakeDurable string
}

// Defaults.
const (
	DefaultPrefix  = "hitl"
	DefaultStream  = "HITL"
	DefaultDurable = "hitl-intake"
	// pending is how many intake messages are unacknowledged at once.
	pending     = 16
	setupFirst  = 250 * time.Millisecond
	setupMax    = 30 * time.Second
	dialTimeout = 5 * time.Second
)

// Validate reports every problem of the settings at once; nil when NATS is not configured.
func (c *Config) Validate() error {
	if c.URL == "" {
		if c.IntakeSubject != "" {
			return errors.New("--nats-intake-subject needs --nats-url")
		}
		return nil
	}
	var errs []error
	for _, raw := range strings.Split(c.URL, ",") {
		if u, err := url.Parse(strings.TrimSpace(raw)); err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
			errs = append(errs, fmt.Errorf("--nats-url %q is not a NATS URL like nats://host:4222", raw))
		}
	}
	if strings.ContainsAny(c.Prefix, " *>") || strings.HasSuffix(c.Prefix, ".") {
		errs = append(errs, fmt.Errorf("--nats-prefix %q is not a subject prefix like hitl or acme.hitl", c.Prefix))
	}
	if c.Format != "" {
		if err := broker.CheckFormat(c.Format); err != nil {
			errs = append(errs, fmt.Errorf("--nats-format: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Client is one NATS connection: a notify.Publisher, and the intake's consumer when configured.
type Client struct {
	cfg    Config
	log    *slog.Logger
	intake *broker.Intake
	ids    broker.Identities

	mu       sync.Mutex
	js       jetstream.JetStream // nil until the stream exists
	ready    error               // why js is nil
	consumer jetstream.ConsumeContext
}

// New returns a client; Run connects it. eng is used only with an intake subject.
func New(cfg Config, eng broker.Engine, log *slog.Logger) *Client {
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	if cfg.Stream == "" {
		cfg.Stream = DefaultStream
	}
	if cfg.Format == "" {
		cfg.Format = broker.FormatCloudEvents
	}
	if cfg.IntakeDurable == "" {
		cfg.IntakeDurable = DefaultDurable
	}
	c := &Client{cfg: cfg, log: log.With("broker", "nats"), ready: errors.New("not connected yet")}
	if eng != nil {
		c.ids = eng
	}
	if cfg.IntakeSubject != "" {
		c.intake = broker.NewIntake(eng, hitl.BrokerNATS, "nats:"+cfg.IntakeSubject)
	}
	return c
}

// Run connects (the NATS client reconnects by itself from then on), creates the stream and
// the intake consumer, retrying with backoff until they exist, and holds until ctx ends.
func (c *Client) Run(ctx context.Context) {
	nc, err := nats.Connect(c.cfg.URL, nats.Name("hitl"), nats.Timeout(dialTimeout), nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil { // nil: closed by this client, at shutdown
				c.log.Warn("lost the connection to NATS; reconnecting", "err", err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) { c.log.Info("reconnected to NATS") }))
	if err != nil {
		c.log.Error("NATS cannot be used", "err", err)
		return
	}
	defer nc.Close()
	wait := setupFirst
	for first := true; ; first = false {
		err := c.setup(ctx, nc)
		if err == nil {
			break
		}
		c.mu.Lock()
		c.ready = err
		c.mu.Unlock()
		if first {
			c.log.Warn("NATS JetStream is unreachable; events wait in the outbox while hitl keeps trying", "url", c.cfg.URL, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(wait*2, setupMax)
	}
	c.log.Info("connected to NATS JetStream", "url", c.cfg.URL, "stream", c.cfg.Stream, "intake_subject", c.cfg.IntakeSubject)
	<-ctx.Done()
	if c.consumer != nil {
		// The messages in hand are settled before the engine stops; those buffered come again.
		c.consumer.Stop()
		<-c.consumer.Closed()
	}
}

// setup creates what is missing: the event stream, the intake's stream and consumer.
func (c *Client) setup(ctx context.Context, nc *nats.Conn) error {
	if !nc.IsConnected() {
		return errors.New("not connected to " + c.cfg.URL)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if err := ensureStream(sctx, js, c.cfg.Stream, c.cfg.Prefix+".>"); err != nil {
		return err
	}
	if c.intake != nil {
		if err := c.consume(ctx, sctx, js); err != nil {
			return err
		}
	}
	c.mu.Lock()
	c.js, c.ready = js, nil
	c.mu.Unlock()
	return nil
}

// ensureStream creates the stream for subject unless it exists; an existing one is left as it is.
func ensureStream(ctx context.Context, js jetstream.JetStream, name, subject string) error {
	_, err := js.Stream(ctx, name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{subject}, Storage: jetstream.FileStorage})
	}
	if err != nil {
		return fmt.Errorf("the stream %s: %w", name, err)
	}
	return nil
}

// Subject is where events of a type are published.
func (c *Client) Subject(eventType string) string { return c.cfg.Prefix + "." + eventType }

// Ready is nil once the stream (and the intake's consumer) exist, else why not.
func (c *Client) Ready() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ready
}

// Publish sends one event to PREFIX.<type> with Nats-Msg-Id = the event ID and returns once
// JetStream stored it (or recognised it as a duplicate).
func (c *Client) Publish(ctx context.Context, m *notify.Message) error {
	c.mu.Lock()
	js, ready := c.js, c.ready
	c.mu.Unlock()
	if js == nil {
		return fmt.Errorf("NATS JetStream is not ready: %w", ready)
	}
	body, contentType, err := broker.Render(ctx, c.cfg.Format, m, c.ids)
	if err != nil {
		return err
	}
	msg := nats.NewMsg(c.Subject(m.Type))
	msg.Data = body
	msg.Header.Set("Content-Type", contentType)
	msg.Header.Set("Hitl-Event-Type", m.Type)
	// W3C Trace Context, by the names its HTTP headers have (as OpenTelemetry's NATS propagation reads them).
	if m.Traceparent != "" {
		msg.Header.Set("traceparent", m.Traceparent)
	}
	if m.Tracestate != "" {
		msg.Header.Set("tracestate", m.Tracestate)
	}
	if _, err := js.PublishMsg(ctx, msg, jetstream.WithMsgID(m.ID)); err != nil {
		return fmt.Errorf("publishing to NATS JetStream: %w", err)
	}
	return nil
}

// consume takes the intake subject's messages with a durable consumer: acknowledged after the
// commit, terminated (never redelivered) when they can never be taken.
func (c *Client) consume(ctx, sctx context.Context, js jetstream.JetStream) error {
	stream, err := js.StreamNameBySubject(sctx, c.cfg.IntakeSubject)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		stream = c.cfg.Stream + "_INTAKE"
		err = ensureStream(sctx, js, stream, c.cfg.IntakeSubject)
	}
	if err != nil {
		return fmt.Errorf("the stream of %s: %w", c.cfg.IntakeSubject, err)
	}
	cons, err := js.CreateOrUpdateConsumer(sctx, stream, jetstream.ConsumerConfig{Durable: c.cfg.IntakeDurable,
		FilterSubject: c.cfg.IntakeSubject, AckPolicy: jetstream.AckExplicitPolicy, MaxAckPending: pending})
	if err != nil {
		return fmt.Errorf("the consumer %s: %w", c.cfg.IntakeDurable, err)
	}
	c.consumer, err = cons.Consume(func(m jetstream.Msg) { c.take(ctx, m) }, jetstream.PullMaxMessages(pending))
	return err
}

func (c *Client) take(ctx context.Context, m jetstream.Msg) {
	id := m.Headers().Get(jetstream.MsgIDHeader)
	if id == "" {
		if md, err := m.Metadata(); err == nil {
			id = fmt.Sprintf("%s#%d", md.Stream, md.Sequence.Stream)
		}
	}
	// A result sent in a trace (W3C headers, as hitl publishes them) makes an inquiry in that trace.
	ctx = tracing.Continue(ctx, m.Headers().Get("traceparent"), m.Headers().Get("tracestate"))
	c.intake.Handle(ctx, c.log, id, m.Data(), m.Ack, m.Term, func() error { return m.NakWithDelay(time.Second) })
}
