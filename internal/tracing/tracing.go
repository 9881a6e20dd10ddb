// Package tracing keeps and carries on W3C Trace Context (traceparent, tracestate), and sets up
// OpenTelemetry's export by OTLP when the standard OTEL_EXPORTER_OTLP_* variables ask for it.
//
// The trace context of the request that created an inquiry is kept with it; the webhooks,
// resume callbacks and broker messages of its events carry it on, so that an agent's trace goes
// on through the human's answer. That holds with export off as well: then hitl records no span
// of its own and passes the agent's trace on with a new parent-id per message, as the W3C
// recommendation lets a participant that does not record do.
package tracing

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Scope is the instrumentation scope of hitl's spans.
const Scope = "github.com/hitl-dev/hitl"

// w3c reads and writes the traceparent and tracestate headers. Its reading is the
// recommendation's: a version-00 traceparent is exactly 55 characters of lowercase hex and
// dashes, with a trace-id and a parent-id that are not all zeros; version ff is invalid; a
// later version is read for its first four fields. Anything else is no trace context at all:
// a bad header is ignored, and the request starts a new trace, never fails.
var w3c = propagation.TraceContext{}

// Enabled reports whether the environment asks for spans to be exported: the OTLP exporter's
// endpoint, for every signal or for traces, is set.
func Enabled() bool {
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup returns the tracer provider of a server: one that exports by OTLP over HTTP when
// Enabled (the exporter reads the endpoint, headers, timeout and TLS settings from the standard
// OTEL_EXPORTER_OTLP_* variables, the SDK its sampler and resource from OTEL_TRACES_SAMPLER,
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES), else a no-op one. shutdown exports the spans
// still held and stops; call it once the server has stopped making spans.
func Setup(ctx context.Context, version string, log *slog.Logger) (tp trace.TracerProvider, shutdown func(context.Context) error, err error) {
	if !Enabled() {
		return noop.NewTracerProvider(), func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("setting up the OTLP trace exporter (OTEL_EXPORTER_OTLP_*): %w", err)
	}
	// The environment's attributes (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) win over hitl's.
	res, err := resource.Merge(resource.NewSchemaless(semconv.ServiceName("hitl"), semconv.ServiceVersion(version)), resource.Environment())
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("reading OTEL_RESOURCE_ATTRIBUTES: %w", err), exp.Shutdown(ctx))
	}
	// Export failures are retried by the exporter and then dropped; they never stop hitl, and
	// the log says so rather than the standard error of the process.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("exporting traces failed", "err", err) }))
	sdk := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return sdk, sdk.Shutdown, nil
}

// Extract returns ctx with the trace context of the request headers h as its remote parent;
// ctx as it is when h has no valid traceparent (or more than one: the recommendation makes
// that invalid too).
func Extract(ctx context.Context, h http.Header) context.Context {
	if tp := h.Values("traceparent"); len(tp) != 1 || !plausible(tp[0]) {
		return ctx
	}
	return w3c.Extract(ctx, propagation.HeaderCarrier(h))
}

// plausible holds what the propagator does not check: version 00 is exactly 55 characters
// (it lets a trailing dash pass), and a later version has a dash after the first 55.
func plausible(traceparent string) bool {
	switch {
	case len(traceparent) < 55:
		return false
	case strings.HasPrefix(traceparent, "00"):
		return len(traceparent) == 55
	}
	return len(traceparent) == 55 || traceparent[55] == '-'
}

// Parse is the span context of a stored traceparent and tracestate; invalid when traceparent is.
func Parse(traceparent, tracestate string) trace.SpanContext {
	if !plausible(traceparent) {
		return trace.SpanContext{}
	}
	c := propagation.MapCarrier{"traceparent": traceparent}
	if tracestate != "" {
		c["tracestate"] = tracestate
	}
	return trace.SpanContextFromContext(w3c.Extract(context.Background(), c))
}

// Of is the traceparent and tracestate of ctx's span, to keep; "" when ctx has none.
func Of(ctx context.Context) (traceparent, tracestate string) {
	c := propagation.MapCarrier{}
	w3c.Inject(ctx, c)
	return c["traceparent"], c["tracestate"]
}

// Inject writes the trace context of ctx's span into the headers of a message it sends. A
// span that does not record (export off, or not sampled) stands for hitl in the agent's trace
// without an ID of its own: the message gets a new parent-id under the same trace-id, so that
// each of hitl's messages is told apart.
func Inject(ctx context.Context, c propagation.TextMapCarrier) {
	span := trace.SpanFromContext(ctx)
	sc := span.SpanContext()
	if !sc.IsValid() {
		return
	}
	if !span.IsRecording() {
		sc = sc.WithSpanID(newSpanID())
	}
	w3c.Inject(trace.ContextWithSpanContext(ctx, sc), c)
}

func newSpanID() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() { // all zeros is the one invalid parent-id
		rand.Read(id[:])
	}
	return id
}

// Continue returns ctx with the stored trace context as the remote parent of what follows;
// ctx as it is when traceparent is "" or invalid.
func Continue(ctx context.Context, traceparent, tracestate string) context.Context {
	if sc := Parse(traceparent, tracestate); sc.IsValid() {
		return trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return ctx
}

// Link links span to the stored trace context (an answer's span to its inquiry's trace, when
// the answer came in a trace of its own); nothing when traceparent is "" or invalid.
func Link(span trace.Span, traceparent, tracestate string) {
	if sc := Parse(traceparent, tracestate); sc.IsValid() && sc.TraceID() != span.SpanContext().TraceID() {
		span.AddLink(trace.Link{SpanContext: sc})
	}
}

// End ends span, marking it failed with err's message when err is not nil.
func End(span trace.Span, err error) {
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// Tracer is the tracer of tp; a no-op one when tp is nil.
func Tracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	return tp.Tracer(Scope)
}
