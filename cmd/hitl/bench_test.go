package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl/internal/bench"
	"github.com/hitl-dev/hitl/internal/testskip"
)

// TestBenchReportsEveryFigure runs a tiny benchmark against a real server process and checks
// the JSON it prints. The figures themselves are measured by `hitl bench`, not asserted here.
func TestBenchReportsEveryFigure(t *testing.T) {
	o := bench.Options{Waiters: 20, PollingWaiters: 20, PollInterval: 200 * time.Millisecond, ThroughputClients: 4,
		ThroughputDuration: 300 * time.Millisecond, Deadlines: 200, PreloadedDeadlines: 2000, DeadlineWindow: 200 * time.Millisecond, Subscribers: 20, FanoutEvents: 2, NotifySamples: 3,
		Server: []string{os.Args[0], "serve"}, Env: []string{"HITL_TEST_RUN_MAIN=1"}, AMQPEvents: 50, SDKWaiters: 10,
		OpenLoopFractions: []float64{0.1, 0.2}, OpenLoopDuration: 300 * time.Millisecond}
	// The TypeScript client's side runs when it is built (.ci/run builds it first).
	tsClient, _ := filepath.Abs(filepath.Join("..", "..", "clients", "typescript"))
	tsSkipped := bench.TypeScriptClientReady(tsClient)
	if tsSkipped == "" {
		o.TypeScriptClient = tsClient
	}
	o.AMQPURL, o.AMQPSkipped = bench.ReachableAMQP()
	o.CPUProfileDir = t.TempDir()
	res, err := bench.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// The server's CPU profile of the throughput run: a gzipped pprof protocol buffer.
	if b, err := os.ReadFile(filepath.Join(o.CPUProfileDir, "throughput-cpu.pprof")); err != nil || len(b) < 100 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("CPU profile: %d bytes, %v", len(b), err)
	}
	b, _ := json.Marshal(res)
	var fields map[string]any
	json.Unmarshal(b, &fields)
	notify, _ := fields["notification_latency_ms"].(map[string]any)
	fields["notification_latency_ms.email"], fields["notification_latency_ms.slack"] = notify["email"], notify["slack"]
	retention, _ := fields["retention"].(map[string]any)
	fields["retention.answer_latency_ms"], fields["retention.answer_latency_during_purge_ms"] = retention["answer_latency_ms"], retention["answer_latency_during_purge_ms"]
	fields["retention.events_removed_per_s"] = retention["events_removed_per_s"]
	for _, name := range []string{"wake_latency_ms", "wake_after_commit_ms", "polling_baseline_wake_latency_ms", "timeout_lateness_ms", "stream_fanout_latency_ms", "notification_latency_ms.email", "notification_latency_ms.slack",
		"retention.answer_latency_ms", "retention.answer_latency_during_purge_ms", "fsync_ms"} {
		l, ok := fields[name].(map[string]any)
		if !ok || l["p50"].(float64) < 0 || l["p99"].(float64) < l["p50"].(float64) || l["max"].(float64) < l["p99"].(float64) {
			t.Errorf("%s = %v", name, fields[name])
		}
	}
	for _, name := range []string{"notification_latency_ms.email", "notification_latency_ms.slack"} {
		if l, _ := fields[name].(map[string]any); l == nil || l["p50"].(float64) <= 0 {
			t.Errorf("%s was not measured: %v", name, fields[name])
		}
	}
	for _, name := range []string{"wake_speedup", "respond_throughput_per_s", "audit_verify_events_per_s", "server_cpu_us_per_cycle", "fsyncs_per_s", "retention.events_removed_per_s",
		"http_ceiling_cycles_per_s", "cycle_efficiency", "writer_cpu_us_per_change", "changes_per_commit"} {
		if v, ok := fields[name].(float64); !ok || v <= 0 {
			t.Errorf("%s = %v", name, fields[name])
		}
	}
	if o.AMQPURL == "" {
		if !strings.Contains(res.AMQPSkipped, "no RabbitMQ at") {
			t.Errorf("without RabbitMQ: amqp_skipped = %q", res.AMQPSkipped)
		}
	} else if l, ok := fields["amqp_latency_ms"].(map[string]any); !ok || l["p99"].(float64) < l["p50"].(float64) || *res.AMQPPublishPerS <= 0 {
		t.Errorf("amqp_publish_per_s = %v, amqp_latency_ms = %v", fields["amqp_publish_per_s"], fields["amqp_latency_ms"])
	}
	if l := res.WakeAfterCommitMS; l.P99 <= 0 || l.P99 > res.WakeLatencyMS.Max+1 {
		t.Errorf("wake_after_commit_ms = %+v beside wake_latency_ms = %+v", l, res.WakeLatencyMS)
	}
	if p := res.Preload; p == nil || p.Deadlines != 2000 || p.StartupS <= 0 {
		t.Errorf("preload = %+v", p)
	}
	// The open loop: one entry per fraction, its rate due and done, and each latency's
	// quantiles in order (the field names are the interface checks outside the project read).
	loop, _ := fields["open_loop"].([]any)
	if len(loop) != 2 {
		t.Fatalf("open_loop = %v; want one entry per fraction", fields["open_loop"])
	}
	for i, e := range loop {
		rate, _ := e.(map[string]any)
		if due, done := rate["target_per_s"].(float64), rate["achieved_per_s"].(float64); due <= 0 || done <= 0 || due != round3(res.RespondThroughputPerS*o.OpenLoopFractions[i]) {
			t.Errorf("open_loop[%d]: %v due, %v done, beside %v closed-loop cycles/s", i, rate["target_per_s"], rate["achieved_per_s"], res.RespondThroughputPerS)
		}
		for _, name := range []string{"create_ms", "answer_ms", "wake_ms"} {
			q, _ := rate[name].(map[string]any)
			if q == nil || q["p50"].(float64) <= 0 || q["p99"].(float64) < q["p50"].(float64) || q["p999"].(float64) < q["p99"].(float64) {
				t.Errorf("open_loop[%d].%s = %v", i, name, rate[name])
			}
		}
	}
	if _, ok := fields["bytes_per_waiter"].(float64); !ok {
		t.Errorf("bytes_per_waiter missing: %v", fields)
	}
	sdk := res.SDKWake
	if sdk == nil || sdk.Parked != 10 || !measured(sdk.Go) || !measured(sdk.GoWaiter) {
		t.Fatalf("sdk_wake_latency_ms = %+v", sdk)
	}
	t.Run("typescript", func(t *testing.T) {
		if tsSkipped != "" {
			if sdk.TypeScript != nil || sdk.TypeScriptSkipped == "" {
				t.Errorf("without the TypeScript client built: %+v", sdk)
			}
			testskip.Skip(t, "the TypeScript client's wake latency in hitl bench: build it with (cd clients/typescript && npm ci)")
		}
		if sdk.TypeScript == nil || sdk.TypeScriptWaiter == nil || !measured(*sdk.TypeScript) || !measured(*sdk.TypeScriptWaiter) {
			t.Errorf("the TypeScript client's figures: %+v (skipped: %q)", sdk, sdk.TypeScriptSkipped)
		}
	})
}

// measured: a latency distribution taken from observations (0 < p50 <= p99 <= max).
func measured(l bench.Latency) bool { return l.P50 > 0 && l.P99 >= l.P50 && l.Max >= l.P99 }

// round3 rounds as the bench's figures are, to three decimals.
func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// hitl bench --history grows a database through the sizes given and reports each size's
// figures (the field names are the interface checks outside the project read); sizes out of
// order are a usage error.
func TestBenchHistory(t *testing.T) {
	t.Setenv("HITL_TEST_RUN_MAIN", "1") // the servers the bench starts are this binary's main
	if code, _, stderr := cli(t, "bench", "--history", "600,300"); code != 2 || !strings.Contains(stderr, "ascending order") {
		t.Errorf("--history 600,300: exit %d, %q", code, stderr)
	}
	code, stdout, stderr := cli(t, "bench", "--history", "300,600", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		History []map[string]any `json:"history"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.History) != 2 {
		t.Fatalf("history = %v (%v)\n%s", res.History, err, stdout)
	}
	var events float64
	for i, h := range res.History {
		if n := h["n"].(float64); n != []float64{300, 600}[i] {
			t.Errorf("history[%d].n = %v", i, n)
		}
		for _, name := range []string{"bytes_per_inquiry", "startup_s", "audit_verify_events_per_s"} {
			if v, _ := h[name].(float64); v <= 0 {
				t.Errorf("history[%d].%s = %v", i, name, h[name])
			}
		}
		for _, name := range []string{"inbox_page_ms", "pending_list_ms", "search_ms"} {
			l, _ := h[name].(map[string]any)
			if l == nil || l["p50"].(float64) <= 0 || l["p99"].(float64) < l["p50"].(float64) {
				t.Errorf("history[%d].%s = %v", i, name, h[name])
			}
		}
		// Each copy brings its events into the audit chain, which verifies whole.
		if e := h["events"].(float64); e <= events {
			t.Errorf("history[%d] verified %v events, after %v", i, e, events)
		}
		events = h["events"].(float64)
	}
	if !strings.Contains(stderr, "history: a database of ended inquiries") {
		t.Errorf("the table on stderr:\n%s", stderr)
	}
}

// TestBenchAtScale: hitl bench --scale parks its multiplexed waits on the preloaded inquiries of
// the one server and measures the wake latency and the deadlines beside them.
func TestBenchAtScale(t *testing.T) {
	o := bench.Options{Scale: 2, Waiters: 20, Deadlines: 100, DeadlineWindow: 200 * time.Millisecond, PreloadedDeadlines: 3000, MultiplexedWaiters: 2000,
		Server: []string{os.Args[0], "serve"}, Env: []string{"HITL_TEST_RUN_MAIN=1"}}
	res, err := bench.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Scale != 2 || res.Preload == nil || res.Preload.Deadlines != 3000 || res.Preload.StartupCPUS <= 0 || res.MultiplexedWaiters != 2000 || res.RSSWithMultiplexedWaiters <= 0 || res.ParkMultiplexedS <= 0 {
		t.Errorf("scale %d, preload %+v, multiplexed %d (RSS %d, parked in %v s)", res.Scale, res.Preload, res.MultiplexedWaiters, res.RSSWithMultiplexedWaiters, res.ParkMultiplexedS)
	}
	for name, l := range map[string]bench.Latency{"wake": res.WakeLatencyMS, "timeout lateness": res.TimeoutLatenessMS} {
		if !measured(l) {
			t.Errorf("%s = %+v", name, l)
		}
	}
	if res.RespondThroughputPerS != 0 || res.History != nil {
		t.Errorf("a run at scale measured more: throughput %v, history %v", res.RespondThroughputPerS, res.History)
	}
}
