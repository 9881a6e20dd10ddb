package tracing

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

const (
	traceID     = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentID    = "00f067aa0ba902b7"
	traceparent = "00-" + traceID + "-" + parentID + "-01"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		header string
		valid  bool
	}{
		{traceparent, true},
		{"00-" + traceID + "-" + parentID + "-00", true}, // not sampled is still a trace
		{"01-" + traceID + "-" + parentID + "-01-later", true},
		{"", false},
		{strings.ToUpper(traceparent), false},
		{"00-" + strings.Repeat("0", 32) + "-" + parentID + "-01", false},
		{"00-" + traceID + "-" + strings.Repeat("0", 16) + "-01", false},
		{traceparent + "-", false},
		{traceparent + "0", false},
		{"01-" + traceID + "-" + parentID + "-01x", false},
		{"ff-" + traceID + "-" + parentID + "-01", false},
		{"00-" + traceID + "-" + parentID, false},
	} {
		if got := Parse(tc.header, "").IsValid(); got != tc.valid {
			t.Errorf("Parse(%q) valid = %v, want %v", tc.header, got, tc.valid)
		}
	}
	if sc := Parse(traceparent, "a=1,b=2"); sc.TraceState().String() != "a=1,b=2" {
		t.Errorf("tracestate %q, want a=1,b=2", sc.TraceState())
	}
}

// TestInjectWithoutSpans: with no spans recorded, each message carries the trace on with a new
// parent-id of its own; the stored traceparent is kept as it came.
func TestInjectWithoutSpans(t *testing.T) {
	h := http.Header{"Traceparent": {traceparent}, "Tracestate": {"v=1"}}
	ctx, span := Tracer(nil).Start(Extract(context.Background(), h), "request")
	defer span.End()
	if tp, ts := Of(ctx); tp != traceparent || ts != "v=1" {
		t.Fatalf("kept %q %q; want the request's", tp, ts)
	}
	seen := map[string]bool{}
	for range 3 {
		ctx, _ := noop.NewTracerProvider().Tracer("").Start(Continue(context.Background(), traceparent, "v=1"), "delivery")
		c := propagation.MapCarrier{}
		Inject(ctx, c)
		parts := strings.Split(c["traceparent"], "-")
		if len(parts) != 4 || parts[1] != traceID || parts[2] == parentID || parts[3] != "01" || c["tracestate"] != "v=1" || seen[parts[2]] {
			t.Fatalf("injected %v; want the trace %s with a new parent-id each time", c, traceID)
		}
		seen[parts[2]] = true
	}
	c := propagation.MapCarrier{}
	Inject(context.Background(), c)
	if len(c) != 0 {
		t.Fatalf("no trace, yet injected %v", c)
	}
}

// TestInjectWithSpans: a recorded span is the parent of what it sends.
func TestInjectWithSpans(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	ctx, span := Tracer(tp).Start(Continue(context.Background(), traceparent, ""), "delivery")
	defer span.End()
	c := propagation.MapCarrier{}
	Inject(ctx, c)
	if want := "00-" + traceID + "-" + span.SpanContext().SpanID().String() + "-01"; c["traceparent"] != want {
		t.Fatalf("injected %q, want the span's %q", c["traceparent"], want)
	}
}
