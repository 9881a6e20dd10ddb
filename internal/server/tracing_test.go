package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/broker"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// The agent's trace: the span that asks hitl has the parent-id agentSpan.
const (
	agentTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	agentSpan  = "00f067aa0ba902b7"
	agentState = "vendor=opaque,other=1"
)

var agentTraceparent = "00-" + agentTrace + "-" + agentSpan + "-01"

// askTraced creates an inquiry by a raw POST with the headers given.
func askTraced(t *testing.T, e *env, token, body string, headers ...string) *hitl.Inquiry {
	t.Helper()
	r := e.do("POST", "/v1/inquiries", token, body, append([]string{"Content-Type", "application/json"}, headers...)...)
	if r.status != http.StatusCreated {
		t.Fatalf("creating the inquiry: %d %s", r.status, r.text)
	}
	var inq hitl.Inquiry
	must(t, json.Unmarshal([]byte(r.text), &inq))
	return &inq
}

// inAgentTrace checks that a message's traceparent continues the agent's trace, as a child of
// something other than the agent's own span, and returns its parent-id.
func inAgentTrace(t *testing.T, what, traceparent, tracestate string) string {
	t.Helper()
	parts := strings.Split(traceparent, "-")
	if len(parts) != 4 || parts[0] != "00" || parts[1] != agentTrace || len(parts[2]) != 16 || parts[2] == agentSpan || parts[3] != "01" {
		t.Fatalf("%s: traceparent %q; want 00-%s-<a parent-id of its own>-01", what, traceparent, agentTrace)
	}
	if tracestate != agentState {
		t.Errorf("%s: tracestate %q; want the agent's %q", what, tracestate, agentState)
	}
	return parts[2]
}

// TestTraceCarriedOntoWebhooksAndCallbacks: the traceparent of the request that asked is kept
// with the inquiry and shown with it; each webhook and resume callback of its events carries the
// agent's trace on with a parent-id of its own (no spans are exported here: hitl passes the
// trace on without recording). An inquiry asked outside any trace sends none.
func TestTraceCarriedOntoWebhooksAndCallbacks(t *testing.T) {
	e := webhookEnv(t, fastWebhooks)
	hooks := newReceiver(t, func(int, received) int { return http.StatusOK })
	callbacks := newReceiver(t, func(int, received) int { return http.StatusOK })
	_, err := e.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: hooks.URL + "/hook", Events: []string{"inquiry.created", "inquiry.responded"}})
	must(t, err)
	agent := e.token("bot", hitl.RoleAgent)
	human := e.principal("ann", []string{hitl.RoleResponder})

	inq := askTraced(t, e, agent, fmt.Sprintf(`{"prompt":"Ship it?","request_type":"approval","callback_url":%q}`, callbacks.URL+"/cb"),
		"traceparent", agentTraceparent, "tracestate", agentState)
	if inq.Traceparent != agentTraceparent || inq.Tracestate != agentState {
		t.Fatalf("the inquiry keeps traceparent %q, tracestate %q; want the request's", inq.Traceparent, inq.Tracestate)
	}
	if r := e.do("GET", fmt.Sprintf("/v1/inquiries/%d", inq.ID), agent, ""); r.body["traceparent"] != agentTraceparent {
		t.Fatalf("GET shows traceparent %v: %s", r.body["traceparent"], r.text)
	}
	_, err = human.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "")
	must(t, err)
	untraced := ask(t, clientFor(e, agent), hitl.InquiryRequest{Prompt: "No trace?"})
	if untraced.Traceparent != "" {
		t.Fatalf("an inquiry asked outside any trace has traceparent %q", untraced.Traceparent)
	}

	eventually(t, "three webhooks and two callbacks", func() bool { return len(hooks.requests()) == 3 && len(callbacks.requests()) == 2 })
	parents := map[string]bool{}
	for _, r := range append(hooks.requests(), callbacks.requests()...) {
		ce := r.event(t)
		var data struct {
			ID      int64 `json:"id"`
			Inquiry *struct {
				ID int64 `json:"id"`
			} `json:"inquiry"`
		}
		must(t, json.Unmarshal(ce.Data, &data))
		if data.Inquiry != nil {
			data.ID = data.Inquiry.ID
		}
		what := r.path + " " + ce.Type
		if data.ID == untraced.ID {
			if r.header["traceparent"] != "" || r.header["tracestate"] != "" {
				t.Errorf("%s of the untraced inquiry carries traceparent %q, tracestate %q", what, r.header["traceparent"], r.header["tracestate"])
			}
			continue
		}
		parent := inAgentTrace(t, what, r.header["traceparent"], r.header["tracestate"])
		if parents[parent] {
			t.Errorf("%s: parent-id %s was sent before: each message gets its own", what, parent)
		}
		parents[parent] = true
	}
	if len(parents) != 4 {
		t.Fatalf("%d traced messages; want the two webhooks and two callbacks of the traced inquiry", len(parents))
	}
}

// TestBadTraceparentIsIgnored: a traceparent that is not W3C Trace Context is no error (the
// recommendation says to start a new trace): the inquiry is created, without a trace, and a
// tracestate without a valid traceparent goes with it. A later version's header is read for
// the fields version 00 has; a good one on Attune's action result is kept as on a create.
func TestBadTraceparentIsIgnored(t *testing.T) {
	e := newEnv(t)
	agent := e.token("bot", hitl.RoleAgent)
	zeros32, zeros16 := strings.Repeat("0", 32), strings.Repeat("0", 16)
	for _, bad := range []string{
		"00-" + strings.ToUpper(agentTrace) + "-" + agentSpan + "-01", // upper-case hex
		"00-" + zeros32 + "-" + agentSpan + "-01",                     // all-zero trace-id
		"00-" + agentTrace + "-" + zeros16 + "-01",                    // all-zero parent-id
		agentTraceparent + "-extra",                                   // version 00 is exactly 55 characters
		agentTraceparent + "-",                                        // even with nothing after the dash
		"00-" + agentTrace[1:] + "-" + agentSpan + "-01",              // a short trace-id
		"00-" + agentTrace + "-" + agentSpan + "-1",                   // a short flags field
		"ff-" + agentTrace + "-" + agentSpan + "-01",                  // version ff is invalid
		"00-" + agentTrace[:31] + "g-" + agentSpan + "-01",            // not hex
		"00_" + agentTrace + "_" + agentSpan + "_01",                  // not dashes
		"00-" + agentTrace + "-" + agentSpan + "-0100",                // a long flags field
		"hello",
	} {
		inq := askTraced(t, e, agent, `{"prompt":"Traced?"}`, "traceparent", bad, "tracestate", agentState)
		if inq.Traceparent != "" || inq.Tracestate != "" {
			t.Errorf("traceparent %q was kept as %q (tracestate %q); want it ignored", bad, inq.Traceparent, inq.Tracestate)
		}
	}
	// Attune's action result keeps the trace of its request too.
	if r := e.do("POST", "/api/v1/executions/77/result", agent, `{"__inquiry":{"prompt":"Traced?"}}`, "traceparent", agentTraceparent); r.status != http.StatusCreated {
		t.Fatalf("an action result in a trace: %d %s", r.status, r.text)
	}
	if r := e.do("GET", "/v1/inquiries?execution=77", agent, ""); !strings.Contains(r.text, `"traceparent":"`+agentTraceparent+`"`) {
		t.Errorf("the action result's inquiry: %s; want the request's traceparent", r.text)
	}
	future := "cc-" + agentTrace + "-" + agentSpan + "-01-what-comes-next"
	if inq := askTraced(t, e, agent, `{"prompt":"Traced?"}`, "traceparent", future); inq.Traceparent != agentTraceparent {
		t.Errorf("traceparent %q was kept as %q; want %q", future, inq.Traceparent, agentTraceparent)
	}
}

// TestRabbitMQMessagesCarryTheTrace: RabbitMQ messages carry the inquiry's trace in their AMQP
// headers, by the names of the W3C HTTP headers, each with a parent-id of its own. (NATS
// JetStream's headers: TestJetStreamCarriesTheInquiryEvents.)
func TestRabbitMQMessagesCarryTheTrace(t *testing.T) {
	t.Parallel()
	r := newRabbit(t)
	e := startServer(t, testserver.Configure(r.config(broker.FormatCloudEvents)))
	human := e.principal("vic", []string{hitl.RoleResponder})
	inq := askTraced(t, e, e.token("bot", hitl.RoleAgent), `{"prompt":"Over RabbitMQ?","request_type":"approval"}`,
		"traceparent", agentTraceparent, "tracestate", agentState)
	created := r.Next(t)
	_, err := human.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "")
	must(t, err)
	responded := r.Next(t)
	var parents []string
	for _, m := range []struct {
		typ     string
		headers map[string]any
	}{{created.RoutingKey, created.Headers}, {responded.RoutingKey, responded.Headers}} {
		tp, _ := m.headers["traceparent"].(string)
		ts, _ := m.headers["tracestate"].(string)
		parents = append(parents, inAgentTrace(t, "the RabbitMQ message "+m.typ, tp, ts))
	}
	if parents[0] == parents[1] {
		t.Errorf("both messages have parent-id %s; want one each", parents[0])
	}
}

// otlpReceiver is an OTLP/HTTP trace collector on loopback: it keeps every span it is sent,
// with its resource's service.name.
type otlpReceiver struct {
	*httptest.Server
	mu      sync.Mutex
	spans   []*tracepb.Span
	service map[*tracepb.Span]string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	o := &otlpReceiver{service: map[*tracepb.Span]string{}}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		var req coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(b, &req)
		}
		if r.URL.Path != "/v1/traces" || err != nil {
			http.Error(w, fmt.Sprintf("%s: %v", r.URL.Path, err), http.StatusBadRequest)
			return
		}
		o.mu.Lock()
		for _, rs := range req.ResourceSpans {
			service := ""
			for _, a := range rs.GetResource().GetAttributes() {
				if a.Key == "service.name" {
					service = a.GetValue().GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					o.spans = append(o.spans, s)
					o.service[s] = service
				}
			}
		}
		o.mu.Unlock()
		resp, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(resp)
	}))
	t.Cleanup(o.Close)
	return o
}

// span is the first span named name in trace (hex), nil when none came yet.
func (o *otlpReceiver) span(name, trace string) *tracepb.Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range o.spans {
		if s.Name == name && hex.EncodeToString(s.TraceId) == trace {
			return s
		}
	}
	return nil
}

// spansNamed are the spans named name that came so far.
func (o *otlpReceiver) spansNamed(name string) []*tracepb.Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range o.spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// TestSpansExportedByOTLP: with OTEL_EXPORTER_OTLP_ENDPOINT set, hitl exports its spans by
// OTLP/HTTP in the agent's trace: the request that asked, the creation of the inquiry, and each
// webhook's delivery, whose traceparent names that delivery's span. The answer, which came
// outside the trace, is linked to it.
func TestSpansExportedByOTLP(t *testing.T) {
	otlp := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", otlp.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "20") // milliseconds: export at once rather than every 5 s
	e := startServer(t, testserver.Webhooks(fastWebhooks))
	hooks := newReceiver(t, func(int, received) int { return http.StatusOK })
	_, err := e.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: hooks.URL + "/hook", Events: []string{"inquiry.created", "inquiry.responded"}})
	must(t, err)
	human := e.principal("ann", []string{hitl.RoleResponder})
	inq := askTraced(t, e, e.token("bot", hitl.RoleAgent), `{"prompt":"Ship it?","request_type":"approval"}`,
		"traceparent", agentTraceparent, "tracestate", agentState)
	_, err = human.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "")
	must(t, err)
	eventually(t, "two webhooks", func() bool { return len(hooks.requests()) == 2 })

	var request, create *tracepb.Span
	eventually(t, "the spans of the request and the creation", func() bool {
		request, create = otlp.span("POST /v1/inquiries", agentTrace), otlp.span("hitl.create_inquiry", agentTrace)
		return request != nil && create != nil
	})
	if hex.EncodeToString(request.ParentSpanId) != agentSpan || request.Kind != tracepb.Span_SPAN_KIND_SERVER || otlp.service[request] != "hitl" {
		t.Errorf("the request's span: parent %x, kind %v, service %q; want a server span of hitl under the agent's span %s",
			request.ParentSpanId, request.Kind, otlp.service[request], agentSpan)
	}
	if !bytes.Equal(create.ParentSpanId, request.SpanId) {
		t.Errorf("the creation's span has parent %x; want the request's span %x", create.ParentSpanId, request.SpanId)
	}
	if want := "00-" + agentTrace + "-" + hex.EncodeToString(create.SpanId) + "-01"; inq.Traceparent != want {
		t.Errorf("the inquiry keeps traceparent %q; want its creation's span, %q", inq.Traceparent, want)
	}
	var deliveries []*tracepb.Span
	eventually(t, "the spans of the two webhook deliveries", func() bool {
		deliveries = otlp.spansNamed("POST webhook")
		return len(deliveries) == 2
	})
	for i, r := range hooks.requests() {
		parent := inAgentTrace(t, "webhook "+r.event(t).Type, r.header["traceparent"], r.header["tracestate"])
		found := slices.IndexFunc(deliveries, func(s *tracepb.Span) bool { return hex.EncodeToString(s.SpanId) == parent })
		if found < 0 {
			t.Fatalf("webhook %d names parent %s, which is no delivery span", i, parent)
		}
		d := deliveries[found]
		if hex.EncodeToString(d.TraceId) != agentTrace || !bytes.Equal(d.ParentSpanId, create.SpanId) || d.Kind != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("a delivery's span: trace %x, parent %x, kind %v; want a client span under the creation's", d.TraceId, d.ParentSpanId, d.Kind)
		}
	}
	var respond []*tracepb.Span
	eventually(t, "the span of the answer", func() bool {
		respond = otlp.spansNamed("hitl.respond")
		return len(respond) == 1
	})
	if links := respond[0].Links; len(links) != 1 || hex.EncodeToString(links[0].TraceId) != agentTrace || !bytes.Equal(links[0].SpanId, create.SpanId) {
		t.Errorf("the answer's span has links %v; want one to the inquiry's creation in the agent's trace", links)
	}
}
