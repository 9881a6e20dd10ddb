// Package bench measures a real hitl server on loopback: how fast a parked agent wakes when
// the human answers (and how that compares with polling every 2 s), how many durable
// ask-and-answer cycles it completes per second, how close to their deadlines inquiries time
// out, and how much memory each parked waiter costs.
//
// The server runs as a child process (`hitl serve` on a temporary SQLite database), so that
// its memory is measured apart from the load generator's. On PostgreSQL (Options.DB) two nodes
// serve a fresh schema of that database, which adds the cross-node wake latency.
package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/store/postgres"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Options size a run. Quick finishes in under a minute, Full in about two.
type Options struct {
	// Server is the command that runs `hitl serve` (its flags are appended).
	Server []string
	// Env is added to the server's environment.
	Env []string
	// DB is a postgres:// URL to measure on PostgreSQL with two nodes; empty for SQLite.
	DB string

	Waiters            int           // parked long polls for the wake latency (1,000)
	PollingWaiters     int           // agents polling every PollInterval for the baseline (1,000)
	PollInterval       time.Duration // 2 s, the OpenIntent SDK's interval
	ThroughputClients  int           // concurrent create+respond loops (64)
	ThroughputDuration time.Duration // 10 s
	Deadlines          int           // inquiries timing out within DeadlineWindow (10,000)
	// PreloadedDeadlines pending inquiries with deadlines an hour or more away are in the
	// SQLite database before the server starts (1,000,000), so that its start-up loads them
	// and every later figure is taken with them held; none on PostgreSQL.
	PreloadedDeadlines int
	DeadlineWindow     time.Duration // 2 s
	Subscribers        int           // SSE streams one event fans out to (1,000)
	FanoutEvents       int           // events sent to them, one at a time (10)
	WebhookEvents      int           // events delivered to a local webhook receiver (5,000)
	NotifySamples      int           // inquiries whose email and Slack message are timed, one at a time (200)
	// AMQPURL is a reachable RabbitMQ (see ReachableAMQP), "" to skip its scenario with
	// AMQPSkipped as the note; AMQPEvents are published to it (5,000).
	AMQPURL, AMQPSkipped string
	AMQPEvents           int
	Progress             io.Writer // where to say what is running; nil for silence
	// MultiplexedWaiters are waits parked through one client.Waiter (POST /v1/inquiries/wait
	// streams) on a server of their own, for their memory (100,000).
	MultiplexedWaiters int
	// SDKWaiters are parked through each client, Go's and TypeScript's, for SDKWake (1,000);
	// TypeScriptClient is the TypeScript client's directory (clients/typescript, built), ""
	// to leave its figures out.
	SDKWaiters       int
	TypeScriptClient string
	// OpenLoopFractions are the arrival rates of the open loop, as fractions of the closed
	// loop's rate in the same run (0.25, 0.5, 0.75, 0.9), each held for OpenLoopDuration.
	OpenLoopFractions []float64
	OpenLoopDuration  time.Duration
	// HistorySizes are the numbers of ended inquiries a database of its own is grown through
	// (ascending), measuring at each what grows with them (see History).
	HistorySizes []int
	// HistoryOnly runs the history alone (hitl bench --history).
	HistoryOnly bool
	// CPUProfileDir, when set, receives the CPU profile of the (first) server during the
	// throughput run, throughput-cpu.pprof, for `go tool pprof`.
	CPUProfileDir string
	// Scale, above 1, runs only what is measured at scale (hitl bench --scale, see Scaled):
	// the start-up with the preloaded deadlines, MultiplexedWaiters parked on them on the same
	// server, and the wake latency and the deadlines' lateness while both are held.
	Scale int
}

// Full is the standard run; Quick a smaller one for a quick look and for CI.
func Full() Options {
	return Options{Waiters: 10000, MultiplexedWaiters: 100000, SDKWaiters: 1000, PollingWaiters: 1000, PollInterval: 2 * time.Second, ThroughputClients: 64,
		ThroughputDuration: 10 * time.Second, Deadlines: 10000, PreloadedDeadlines: 1_000_000, DeadlineWindow: 2 * time.Second, Subscribers: 1000, FanoutEvents: 10, WebhookEvents: 5000, NotifySamples: 200, AMQPEvents: 5000,
		OpenLoopFractions: openLoopFractions, OpenLoopDuration: 5 * time.Second, HistorySizes: []int{10_000, 100_000, 1_000_000}}
}

func Quick() Options {
	return Options{Waiters: 300, MultiplexedWaiters: 10000, SDKWaiters: 1000, PollingWaiters: 300, PollInterval: 2 * time.Second, ThroughputClients: 64,
		ThroughputDuration: 3 * time.Second, Deadlines: 3000, DeadlineWindow: 2 * time.Second, Subscribers: 200, FanoutEvents: 5, WebhookEvents: 1000, NotifySamples: 20, AMQPEvents: 1000,
		OpenLoopFractions: openLoopFractions, OpenLoopDuration: 2 * time.Second, HistorySizes: []int{10_000, 100_000}}
}

// openLoopFractions are the open loop's arrival rates, as fractions of the closed loop's.
var openLoopFractions = []float64{0.25, 0.5, 0.75, 0.9}

// Latency is a distribution in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// Result is what a run measured; the JSON field names are part of the benchmark's contract.
type Result struct {
	WakeLatencyMS Latency `json:"wake_latency_ms"`
	// WakeAfterCommitMS is the part of it after the answer's commit, as the server measured it
	// (hitl_wake_latency_seconds): from the commit having returned to the waiter's wait
	// returning in the engine, before its HTTP response is written. It is read from histogram
	// buckets of 50 µs × 2ⁿ, so a quantile is interpolated within its bucket, and the max is
	// the bound of the highest bucket used, not an observation.
	WakeAfterCommitMS       Latency `json:"wake_after_commit_ms"`
	PollingBaselineMS       Latency `json:"polling_baseline_wake_latency_ms"`
	WakeSpeedup             float64 `json:"wake_speedup"`
	RespondThroughputPerS   float64 `json:"respond_throughput_per_s"`
	TimeoutLatenessMS       Latency `json:"timeout_lateness_ms"`
	TimeoutObservedLateness Latency `json:"timeout_observed_lateness_ms"`
	BytesPerWaiter          float64 `json:"bytes_per_waiter"`
	// BytesPerMultiplexedWaiter is the server's memory growth per wait parked through the Go
	// client's Waiter (few POST /v1/inquiries/wait streams), measured like BytesPerWaiter on a
	// server of its own with MultiplexedWaiters parked; RSSWithMultiplexedWaiters is that
	// server's whole resident memory then.
	BytesPerMultiplexedWaiter float64 `json:"bytes_per_multiplexed_waiter"`
	MultiplexedWaiters        int     `json:"multiplexed_waiters"`
	RSSWithMultiplexedWaiters int64   `json:"rss_with_multiplexed_waiters_bytes"`
	// ParkMultiplexedS is how long the multiplexed waits took to be parked (--scale only).
	ParkMultiplexedS       float64  `json:"park_multiplexed_waiters_s,omitempty"`
	CrossNodeWakeLatencyMS *Latency `json:"cross_node_wake_latency_ms,omitempty"`
	// SDKWake is each client's wake latency, Go's and TypeScript's, on this server (1,000 parked).
	SDKWake *SDKWake `json:"sdk_wake_latency_ms,omitempty"`
	// Scale is Options.Scale when the run was hitl bench --scale (absent otherwise): only the
	// preload, the multiplexed waits (then on the first server, beside the preloaded
	// deadlines), the wake latency and the deadlines were measured.
	Scale int `json:"scale,omitempty"`
	// Preload is the start-up with PreloadedDeadlines pending deadlines (SQLite only).
	Preload               *Preload `json:"preload,omitempty"`
	StreamFanoutLatencyMS Latency  `json:"stream_fanout_latency_ms"`
	Subscribers           int      `json:"subscribers"`
	WebhookDeliveriesPerS float64  `json:"webhook_deliveries_per_s"`
	WebhookLatencyMS      Latency  `json:"webhook_delivery_latency_ms"` // one event at a time
	WebhookEvents         int      `json:"webhook_events"`
	// Events confirmed by RabbitMQ per second, and from the commit to a consumer having one;
	// absent, with AMQPSkipped saying why, when no broker was reachable.
	AMQPPublishPerS *float64 `json:"amqp_publish_per_s,omitempty"`
	AMQPLatencyMS   *Latency `json:"amqp_latency_ms,omitempty"`
	AMQPEvents      int      `json:"amqp_events,omitempty"`
	AMQPSkipped     string   `json:"amqp_skipped,omitempty"`
	// NotificationLatencyMS runs from an inquiry's creation to its message's arrival at a mail
	// relay and at a stand-in for Slack's Web API, both on loopback, one inquiry at a time.
	NotificationLatencyMS NotificationLatency `json:"notification_latency_ms"`
	NotifySamples         int                 `json:"notify_samples"`
	Store                 string              `json:"store"`
	Nodes                 int                 `json:"nodes"`
	Waiters               int                 `json:"waiters"`
	PollingWaiters        int                 `json:"polling_waiters"`
	ThroughputClients     int                 `json:"throughput_clients"`
	Deadlines             int                 `json:"deadlines"`
	ParkedForMemory       int                 `json:"parked_for_memory"`
	CPUs                  int                 `json:"cpus"`
	DurationS             float64             `json:"duration_s"`

	// AuditVerifyEventsPerS is how fast `hitl audit verify` recomputes the chain of the log
	// the throughput run left (AuditEvents events), read from the database beside the server.
	AuditVerifyEventsPerS float64 `json:"audit_verify_events_per_s"`
	AuditEvents           int64   `json:"audit_events"`
	// Retention is what purging the throughput run's inquiries costs the answers beside it.
	Retention Retention `json:"retention"`

	// ServerCPUMicrosPerCycle is the CPU time (user and system) the server spent per
	// create+respond cycle of the throughput run: with the load generator on the same cores,
	// what the server costs, whatever the machine's share of it.
	ServerCPUMicrosPerCycle float64 `json:"server_cpu_us_per_cycle"`
	// HTTPCeilingCyclesPerS is the same create+respond traffic, from the same client, against
	// an in-process server that decodes and answers with the same JSON and stores nothing;
	// CycleEfficiency is RespondThroughputPerS over it: how close storage comes to HTTP alone.
	HTTPCeilingCyclesPerS float64 `json:"http_ceiling_cycles_per_s"`
	CycleEfficiency       float64 `json:"cycle_efficiency"`
	// OpenLoop is the latency–throughput curve: questions arriving on a schedule at fractions
	// of RespondThroughputPerS, whatever the server does (see OpenLoopRate).
	OpenLoop []OpenLoopRate `json:"open_loop"`
	// History is what a database of many ended inquiries costs, one entry per size
	// (Options.HistorySizes).
	History []History `json:"history"`
	// WriterCPUMicrosPerChange is the CPU time of the store's writer goroutines (SQLite has one,
	// a PostgreSQL node two), from node 1's CPU profile of the throughput run, per change they
	// ran (hitl_store_changes_total); PostgreSQL's own CPU is not in it, nor in
	// ServerCPUMicrosPerCycle. ChangesPerCommit is how many changes shared each transaction and
	// its flush.
	WriterCPUMicrosPerChange float64 `json:"writer_cpu_us_per_change"`
	ChangesPerCommit         float64 `json:"changes_per_commit"`
	// FsyncsPerS is how many small writes, each followed by fsync, the disk of the database
	// took per second at the start of the run: the bound of durable commits that day.
	FsyncsPerS float64 `json:"fsyncs_per_s"`
	// FsyncMS is how long each of those writes and fsyncs took: every answer's commit waits
	// for one, so its tail is a floor under the wake latency's.
	FsyncMS Latency `json:"fsync_ms"`
}

// NotificationLatency is the latency of notifications by channel.
type NotificationLatency struct {
	Email Latency `json:"email"`
	Slack Latency `json:"slack"`
}

const adminToken = "bench-admin-token-0123456789"

// run holds one benchmark's server and clients.
type run struct {
	o          Options
	url        string
	pid        int
	pprof      string // the first server's profiles, "" when none are taken
	agent      *client.Client
	agentToken string // for the TypeScript client's process (SDKWake)
	// preloaded are the ids of the preloaded inquiries (first preloaded.first, n of them in a row).
	preloaded idRange
	// held are the waits another scenario keeps parked (atScale) while a scenario parks its own.
	held  int
	human *client.Client
	admin *client.Client
	hc    *http.Client
}

func (r *run) say(format string, args ...any) {
	if r.o.Progress != nil {
		fmt.Fprintf(r.o.Progress, format+"\n", args...)
	}
}

// Run starts the server(s), measures, stops them and returns the figures.
func Run(ctx context.Context, o Options) (*Result, error) {
	began := time.Now()
	dir, err := os.MkdirTemp("", "hitl-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	fsyncs, fsyncLat, err := fsyncRate(dir, time.Second)
	if err != nil {
		return nil, fmt.Errorf("measuring the disk's fsync rate: %w", err)
	}
	db, nodes, store := filepath.Join(dir, "bench.db"), 1, "sqlite"
	if o.DB != "" {
		url, drop, err := postgres.TempSchema(ctx, o.DB, "hitl_bench_")
		if err != nil {
			return nil, fmt.Errorf("a schema for the benchmark: %w", err)
		}
		defer drop()
		db, nodes, store = url, 2, "postgres"
	}
	r := &run{o: o}
	// One transport for everything, allowed as many connections as there are parked waiters.
	r.hc = &http.Client{Transport: &http.Transport{MaxIdleConns: 0, MaxIdleConnsPerHost: 20000, IdleConnTimeout: time.Minute,
		DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext}}
	if o.HistoryOnly {
		res := &Result{CPUs: cpus(), Store: store, Nodes: nodes, FsyncsPerS: fsyncs, FsyncMS: fsyncLat}
		if res.History, err = r.history(ctx, dir); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		res.DurationS = round(time.Since(began).Seconds())
		return res, nil
	}
	var (
		emptyRSS int64
		preload  = o.PreloadedDeadlines > 0 && o.DB == ""
	)
	if preload {
		r.say("preload: %d pending inquiries with deadlines an hour or more away ...", o.PreloadedDeadlines)
		if emptyRSS, r.preloaded, err = r.preload(ctx, db, dir, o.PreloadedDeadlines); err != nil {
			return nil, fmt.Errorf("preloading deadlines: %w", err)
		}
	}
	starting := time.Now()
	var urls []string
	for i := range nodes {
		var extra []string
		if i == 0 { // its CPU profile gives the writer's share (and --cpuprofile the file)
			addr, err := freeAddr()
			if err != nil {
				return nil, err
			}
			extra, r.pprof = []string{"--pprof", addr}, "http://"+addr
		}
		url, stop, pid, err := startServer(ctx, o, db, dir, extra...)
		if err != nil {
			return nil, err
		}
		defer stop()
		if i == 0 {
			r.url, r.pid = url, pid
		}
		urls = append(urls, url)
	}
	r.admin = client.New(r.url, adminToken, r.hc)
	// A start-up loading millions of deadlines on a busy machine takes more than the usual 20 s.
	within := 20*time.Second + time.Duration(o.PreloadedDeadlines/100_000)*3*time.Second
	for _, url := range urls {
		if err := readyWithin(ctx, client.New(url, adminToken, r.hc), within); err != nil {
			return nil, err
		}
	}
	var loaded *Preload
	if preload {
		full, err := rss(r.pid)
		if err != nil {
			return nil, err
		}
		cpu, err := cpuTime(r.pid)
		if err != nil {
			return nil, err
		}
		loaded = &Preload{Deadlines: o.PreloadedDeadlines, StartupS: round(time.Since(starting).Seconds()),
			StartupCPUS: round(cpu.Seconds()), BytesPerPending: round(float64(full-emptyRSS) / float64(o.PreloadedDeadlines))}
		r.say("start-up: %.2f s (%.2f s of CPU), %.0f bytes per deadline", loaded.StartupS, loaded.StartupCPUS, loaded.BytesPerPending)
	}
	if r.agent, r.agentToken, err = r.keyToken(ctx, "bench-agent", hitl.RoleAgent); err != nil {
		return nil, err
	}
	var humanToken string
	if r.human, humanToken, err = r.keyToken(ctx, "bench-human", hitl.RoleResponder); err != nil {
		return nil, err
	}
	res := &Result{Waiters: o.Waiters, PollingWaiters: o.PollingWaiters, ThroughputClients: o.ThroughputClients, Deadlines: o.Deadlines,
		Subscribers: o.Subscribers, WebhookEvents: o.WebhookEvents, NotifySamples: o.NotifySamples, CPUs: cpus(), Store: store, Nodes: nodes,
		FsyncsPerS: fsyncs, FsyncMS: fsyncLat, Preload: loaded}
	if o.Scale > 1 {
		if err := r.atScale(ctx, res); err != nil {
			return nil, err
		}
		res.DurationS = round(time.Since(began).Seconds())
		return res, nil
	}

	r.say("throughput: %d clients asking and answering for %s ...", o.ThroughputClients, o.ThroughputDuration)
	cpuBefore, err := cpuTime(r.pid)
	if err != nil {
		return nil, err
	}
	var (
		cycles int64
		writer writerRun
	)
	if res.RespondThroughputPerS, cycles, writer, err = r.throughput(ctx); err != nil {
		return nil, err
	}
	cpuAfter, err := cpuTime(r.pid)
	if err != nil {
		return nil, err
	}
	res.ServerCPUMicrosPerCycle = round(float64((cpuAfter-cpuBefore)/time.Microsecond) / float64(max(cycles, 1)))
	if res.WriterCPUMicrosPerChange, res.ChangesPerCommit, err = writer.cost(); err != nil {
		return nil, err
	}
	r.say("HTTP ceiling: the same %d clients against a server that stores nothing, for %s ...", o.ThroughputClients, o.ThroughputDuration)
	if res.HTTPCeilingCyclesPerS, err = r.ceiling(ctx); err != nil {
		return nil, err
	}
	if res.HTTPCeilingCyclesPerS > 0 {
		res.CycleEfficiency = round(res.RespondThroughputPerS / res.HTTPCeilingCyclesPerS)
	}
	r.say("audit: verifying the chain of the events so far ...")
	if res.AuditVerifyEventsPerS, res.AuditEvents, err = r.auditVerify(ctx, db); err != nil {
		return nil, fmt.Errorf("audit verify: %w", err)
	}
	retentionFor := max(time.Second, o.ThroughputDuration/3)
	r.say("retention: %d clients asking and answering for %s, then while the inquiries answered so far are purged ...", RetentionClients, retentionFor)
	if res.Retention, err = r.retention(ctx, retentionFor); err != nil {
		return nil, fmt.Errorf("retention: %w", err)
	}
	if res.OpenLoop, err = r.openLoop(ctx, res.RespondThroughputPerS); err != nil {
		return nil, err
	}
	r.say("wake latency: %d parked waiters answered one by one ...", o.Waiters)
	woken, err := r.histogram(ctx, "hitl_wake_latency_seconds")
	if err != nil {
		return nil, err
	}
	if res.WakeLatencyMS, err = r.wakeLatency(ctx, r.human, res); err != nil {
		return nil, err
	}
	wokenAfter, err := r.histogram(ctx, "hitl_wake_latency_seconds")
	if err != nil {
		return nil, err
	}
	res.WakeAfterCommitMS = between(woken, wokenAfter)
	if nodes > 1 {
		r.say("cross-node wake latency: %d waiters on node 1 answered on node 2 ...", o.Waiters)
		cross, err := r.wakeLatency(ctx, client.New(urls[1], humanToken, r.hc), nil)
		if err != nil {
			return nil, err
		}
		res.CrossNodeWakeLatencyMS = &cross
	}
	if o.SDKWaiters > 0 {
		if res.SDKWake, err = r.sdkWake(ctx); err != nil {
			return nil, err
		}
	}
	r.say("polling baseline: %d agents polling every %s ...", o.PollingWaiters, o.PollInterval)
	if res.PollingBaselineMS, err = r.pollingBaseline(ctx); err != nil {
		return nil, err
	}
	if res.WakeLatencyMS.P50 > 0 {
		res.WakeSpeedup = round(res.PollingBaselineMS.P50 / res.WakeLatencyMS.P50)
	}
	r.say("deadlines: %d inquiries timing out within %s, each with a parked waiter ...", o.Deadlines, o.DeadlineWindow)
	if err := r.deadlines(ctx, res); err != nil {
		return nil, err
	}
	r.say("stream fan-out: %d events, each to %d SSE subscribers ...", o.FanoutEvents, o.Subscribers)
	if res.StreamFanoutLatencyMS, err = r.fanout(ctx); err != nil {
		return nil, err
	}
	r.say("webhooks: %d events delivered to a local receiver ...", o.WebhookEvents)
	if res.WebhookDeliveriesPerS, res.WebhookLatencyMS, err = r.webhooks(ctx); err != nil {
		return nil, err
	}
	r.say("notifications: %d inquiries, each to a person by email and on Slack, one at a time ...", o.NotifySamples)
	if res.NotificationLatencyMS.Email, res.NotificationLatencyMS.Slack, err = r.notifications(ctx, dir); err != nil {
		return nil, err
	}
	if o.AMQPURL == "" || o.AMQPEvents == 0 {
		res.AMQPSkipped = cmp.Or(o.AMQPSkipped, "no RabbitMQ given")
	} else {
		r.say("RabbitMQ: %d events published by a server of their own ...", o.AMQPEvents)
		perS, lat, err := r.amqpPublish(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("RabbitMQ: %w", err)
		}
		res.AMQPPublishPerS, res.AMQPLatencyMS, res.AMQPEvents = &perS, &lat, o.AMQPEvents
	}
	if o.MultiplexedWaiters > 0 {
		r.say("multiplexed waits: %d waits through one Waiter, on a server of its own ...", o.MultiplexedWaiters)
		if err := r.multiplexed(ctx, dir, res); err != nil {
			return nil, fmt.Errorf("multiplexed waits: %w", err)
		}
	}
	if len(o.HistorySizes) > 0 {
		if res.History, err = r.history(ctx, dir); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
	}
	res.DurationS = round(time.Since(began).Seconds())
	return res, nil
}

// startServer runs one `hitl serve` on db and returns its URL, a function that stops it, and
// its process id.
func startServer(ctx context.Context, o Options, db, dir string, extra ...string) (string, func(), int, error) {
	addr, err := freeAddr()
	if err != nil {
		return "", nil, 0, err
	}
	// Private addresses allowed: the webhook receiver is on loopback. No connection cap: the
	// run parks 10,000 waiters while the connections of earlier scenarios are still open.
	args := append(slices.Clone(o.Server), "--addr", addr, "--db", db, "--log-level", "error", "--webhook-allow-private", "--max-conns", "0")
	args = append(args, extra...)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(append(os.Environ(), o.Env...), "HITL_ADMIN_TOKEN="+adminToken, "HITL_CREDENTIALS="+filepath.Join(dir, "credentials.json"))
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, 0, fmt.Errorf("start the server: %w", err)
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
	return "http://" + addr, stop, cmd.Process.Pid, nil
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func ready(ctx context.Context, c *client.Client) error { return readyWithin(ctx, c, 20*time.Second) }

// readyWithin waits for the server to be ready, for at most d.
func readyWithin(ctx context.Context, c *client.Client, d time.Duration) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if c.Ready(ctx) == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("the server did not become ready within %s", d)
}

// keyToken creates a key and returns a client of the first node with it, and its token.
func (r *run) keyToken(ctx context.Context, name, role string) (*client.Client, string, error) {
	k, err := r.admin.CreateKey(ctx, &hitl.KeyRequest{Name: name, Roles: []string{role}})
	if err != nil {
		return nil, "", err
	}
	return client.New(r.url, k.Token, r.hc), k.Token, nil
}

// throughput runs create+respond loops for the duration and returns cycles per second. Every
// answer counted was acknowledged, so it is on disk (synchronous=FULL). Meanwhile it takes the
// server's CPU profile and counts its writer's changes, for writerCost.
func (r *run) throughput(ctx context.Context) (perS float64, n int64, w writerRun, err error) {
	w.changes, w.batches, err = r.writerCounts(ctx)
	if err != nil {
		return 0, 0, w, err
	}
	profiled := make(chan error, 1)
	go func() {
		var err error
		w.profile, err = r.cpuProfile(ctx, r.o.ThroughputDuration)
		if err == nil {
			var changes, batches int64
			changes, batches, err = r.writerCounts(ctx)
			w.changes, w.batches = changes-w.changes, batches-w.batches
		}
		profiled <- err
	}()
	perS, n, err = cycles(ctx, r.o.ThroughputClients, r.o.ThroughputDuration, r.agent, r.human)
	if perr := <-profiled; err == nil {
		err = perr
	}
	if err != nil {
		return 0, 0, w, err
	}
	if r.o.CPUProfileDir != "" {
		path := filepath.Join(r.o.CPUProfileDir, "throughput-cpu.pprof")
		if err := os.WriteFile(path, w.profile, 0o644); err != nil {
			return 0, 0, w, err
		}
		r.say("CPU profile of the server during the throughput run: %s (go tool pprof -top %s)", path, path)
	}
	return perS, n, w, nil
}

// cycles runs clients create+respond loops against the server of agent and human for d, and
// returns the cycles per second and how many.
func cycles(ctx context.Context, clients int, d time.Duration, agent, human *client.Client) (float64, int64, error) {
	stop := time.Now().Add(d)
	started := time.Now()
	took, err := askAndAnswer(ctx, clients, agent, human, func() bool { return time.Now().Before(stop) })
	if err != nil {
		return 0, 0, fmt.Errorf("throughput: %w", err)
	}
	n := int64(len(took))
	return round(float64(n) / time.Since(started).Seconds()), n, nil
}

// askAndAnswer runs clients loops, each asking an approval and answering it, while more says
// so (each loop does one cycle at least), and returns how long each answer took. The first
// error stops its loop and is returned.
func askAndAnswer(ctx context.Context, clients int, agent, human *client.Client, more func() bool) ([]time.Duration, error) {
	var (
		mu    sync.Mutex
		took  []time.Duration
		first error
		wg    sync.WaitGroup
	)
	for range clients {
		wg.Go(func() {
			var mine []time.Duration // merged at the end: no lock on the way
			var err error
			for cycle := 0; cycle == 0 || more(); cycle++ {
				var inq *hitl.Inquiry
				if inq, _, err = agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Approve?", RequestType: hitl.RequestApproval}, client.CreateOptions{}); err != nil {
					break
				}
				start := time.Now()
				if _, err = human.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), ""); err != nil {
					break
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			took, first = append(took, mine...), cmp.Or(first, err)
			mu.Unlock()
		})
	}
	wg.Wait()
	return took, first
}

// cpuProfile takes the first server's CPU profile for d (whole seconds, at least one).
func (r *run) cpuProfile(ctx context.Context, d time.Duration) ([]byte, error) {
	secs := max(1, int((d+time.Second-1)/time.Second))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", r.pprof, secs), nil)
	if err != nil {
		return nil, err
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("CPU profile: %s", resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	return b, nil
}

// create makes n inquiries with up to 64 in flight.
func (r *run) create(ctx context.Context, n int, req func(i int) *hitl.InquiryRequest) ([]int64, error) {
	return createAs(ctx, r.agent, n, req)
}

// createAs is create through another agent's client.
func createAs(ctx context.Context, agent *client.Client, n int, req func(i int) *hitl.InquiryRequest) ([]int64, error) {
	ids := make([]int64, n)
	errs := make(chan error, 1)
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			inq, _, err := agent.CreateInquiry(ctx, req(i), client.CreateOptions{})
			if err != nil {
				select {
				case errs <- err:
				default:
				}
				return
			}
			ids[i] = inq.ID
		})
	}
	wg.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
		return ids, nil
	}
}

// park starts a long poll on each inquiry and waits until the server holds all of them.
// done receives, per index, when the poll returned and what it returned.
type returned struct {
	at  time.Time
	inq *hitl.Inquiry
	err error
}

func (r *run) park(ctx context.Context, ids []int64, wait time.Duration) ([]chan returned, error) {
	out := make([]chan returned, len(ids))
	for i, id := range ids {
		out[i] = make(chan returned, 1)
		go func() {
			inq, err := r.agent.Wait(ctx, id, wait)
			out[i] <- returned{time.Now(), inq, err}
		}()
	}
	if err := r.parkedBeyond(ctx, len(ids)); err != nil {
		return nil, err
	}
	return out, nil
}

// metric reads one unlabelled value from the server's /metrics.
func (r *run) metric(ctx context.Context, name string) (float64, error) {
	return r.metricOf(ctx, r.url, name)
}

// metricOf is metric of the server at url.
func (r *run) metricOf(ctx context.Context, url, name string) (float64, error) {
	f, err := r.family(ctx, url, name)
	if err != nil {
		return 0, err
	}
	switch m := f.GetMetric()[0]; f.GetType() {
	case dto.MetricType_COUNTER:
		return m.GetCounter().GetValue(), nil
	case dto.MetricType_GAUGE:
		return m.GetGauge().GetValue(), nil
	default:
		return m.GetUntyped().GetValue(), nil
	}
}

// family reads the metric family name from the /metrics of the server at url.
func (r *run) family(ctx context.Context, url, name string) (*dto.MetricFamily, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"/metrics", nil)
	resp, err := r.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading /metrics: %w", err)
	}
	f := families[name]
	if f == nil || len(f.GetMetric()) == 0 {
		return nil, fmt.Errorf("metric %s not found", name)
	}
	return f, nil
}

// wakeLatency: time from sending the answer (through answerer: on this node or another) to
// the parked waiter's long poll returning. Given res, it also measures the server's memory
// per parked waiter: the first phase to park this many, so the growth is the waiters' own
// and not taken from what an earlier phase left free.
func (r *run) wakeLatency(ctx context.Context, answerer *client.Client, res *Result) (Latency, error) {
	ids, err := r.create(ctx, r.o.Waiters, func(int) *hitl.InquiryRequest { return &hitl.InquiryRequest{Prompt: "Go?"} })
	if err != nil {
		return Latency{}, err
	}
	before, err := rss(r.pid)
	if err != nil {
		return Latency{}, err
	}
	parked, err := r.park(ctx, ids, 2*time.Minute)
	if err != nil {
		return Latency{}, err
	}
	if res != nil {
		after, err := rss(r.pid)
		if err != nil {
			return Latency{}, err
		}
		res.ParkedForMemory = len(ids)
		res.BytesPerWaiter = round(float64(after-before) / float64(len(ids)))
	}
	return r.wakeOfParked(ctx, answerer, ids, parked)
}

// wakeOfParked answers the parked waits one by one and takes each latency from its answer
// being sent to its wait returning.
func (r *run) wakeOfParked(ctx context.Context, answerer *client.Client, ids []int64, parked []chan returned) (Latency, error) {
	sent, err := r.answerOneByOne(ctx, answerer, ids)
	if err != nil {
		return Latency{}, err
	}
	lat := make([]time.Duration, len(ids))
	for i := range ids {
		ret := <-parked[i]
		if ret.err != nil || ret.inq.Status != hitl.StatusResponded {
			return Latency{}, fmt.Errorf("waiter %d returned %v %v", ids[i], ret.inq, ret.err)
		}
		lat[i] = ret.at.Sub(sent[i])
	}
	return summarize(lat), nil
}

// answerOneByOne answers each inquiry in turn and returns when each answer was sent.
func (r *run) answerOneByOne(ctx context.Context, answerer *client.Client, ids []int64) ([]time.Time, error) {
	sent := make([]time.Time, len(ids))
	for i, id := range ids {
		sent[i] = time.Now()
		if _, err := answerer.Respond(ctx, id, json.RawMessage(`"go"`), ""); err != nil {
			return nil, err
		}
	}
	return sent, nil
}

// pollingBaseline: the same, for agents that poll GET /v1/inquiries/{id} every interval.
func (r *run) pollingBaseline(ctx context.Context) (Latency, error) {
	n := r.o.PollingWaiters
	ids, err := r.create(ctx, n, func(int) *hitl.InquiryRequest { return &hitl.InquiryRequest{Prompt: "Go?"} })
	if err != nil {
		return Latency{}, err
	}
	seen := make([]chan time.Time, n)
	for i, id := range ids {
		seen[i] = make(chan time.Time, 1)
		// Independent agents poll at random phases of the interval (in an order unrelated to
		// the order of the answers, which would bias the figure).
		phase := rand.N(r.o.PollInterval)
		go func() {
			time.Sleep(phase)
			for {
				inq, err := r.agent.Inquiry(ctx, id)
				if err == nil && inq.Status.Final() {
					seen[i] <- time.Now()
					return
				}
				if ctx.Err() != nil {
					return
				}
				time.Sleep(r.o.PollInterval)
			}
		}()
	}
	time.Sleep(r.o.PollInterval) // every poller has started
	sent := make([]time.Time, n)
	for i, id := range ids {
		sent[i] = time.Now()
		if _, err := r.human.Respond(ctx, id, json.RawMessage(`"go"`), ""); err != nil {
			return Latency{}, err
		}
	}
	lat := make([]time.Duration, n)
	for i := range ids {
		lat[i] = (<-seen[i]).Sub(sent[i])
	}
	return summarize(lat), nil
}

// deadlines creates inquiries whose deadlines fall within one window, parks a waiter on each,
// and measures how late each timed out:
// on the server (the transition's time) and as the waiting agent saw it.
func (r *run) deadlines(ctx context.Context, res *Result) error {
	n := r.o.Deadlines
	// Leave time to create them and park the waiters before the first deadline.
	lead := 3*time.Second + time.Duration(float64(n)/max(res.RespondThroughputPerS, 200)*2*float64(time.Second))
	base := time.Now().Add(lead)
	at := make([]time.Time, n)
	ids, err := r.create(ctx, n, func(i int) *hitl.InquiryRequest {
		at[i] = base.Add(time.Duration(int64(r.o.DeadlineWindow) * int64(i) / int64(n)))
		t := at[i]
		return &hitl.InquiryRequest{Prompt: "Timing out", TimeoutAt: &t}
	})
	if err != nil {
		return err
	}
	parked, err := r.park(ctx, ids, 2*time.Minute)
	if err != nil {
		return err
	}
	if time.Now().After(base) {
		return fmt.Errorf("parking %d waiters took past the first deadline; give more lead", n)
	}

	server := make([]time.Duration, n)
	observed := make([]time.Duration, n)
	for i := range ids {
		ret := <-parked[i]
		if ret.err != nil || ret.inq.Status != hitl.StatusTimeout {
			return fmt.Errorf("waiter on %d returned %v %v", ids[i], ret.inq, ret.err)
		}
		server[i] = ret.inq.UpdatedAt.Sub(*ret.inq.TimeoutAt)
		observed[i] = ret.at.Sub(*ret.inq.TimeoutAt)
	}
	res.TimeoutLatenessMS = summarize(server)
	res.TimeoutObservedLateness = summarize(observed)
	return nil
}

// fanout: time from creating an inquiry to its event reaching each of many SSE subscribers.
func (r *run) fanout(ctx context.Context) (Latency, error) {
	if r.o.Subscribers == 0 {
		return Latency{}, nil
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type arrival struct {
		inquiry int64
		at      time.Time
	}
	arrivals := make(chan arrival, r.o.Subscribers*r.o.FanoutEvents)
	for range r.o.Subscribers {
		events, err := r.agent.Events(sctx, client.StreamOptions{FromNow: true, Types: []string{hitl.EventInquiryCreated}})
		if err != nil {
			return Latency{}, err
		}
		go func() {
			for ev := range events {
				arrivals <- arrival{*ev.InquiryID, time.Now()}
			}
		}()
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		n, err := r.metric(ctx, "hitl_streams")
		if err != nil {
			return Latency{}, err
		}
		if int(n) >= r.o.Subscribers {
			break
		}
		if time.Now().After(deadline) {
			return Latency{}, fmt.Errorf("only %d of %d streams opened within 60 s", int(n), r.o.Subscribers)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var lat []time.Duration
	for range r.o.FanoutEvents {
		sent := time.Now()
		inq, _, err := r.agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "fan out"}, client.CreateOptions{})
		if err != nil {
			return Latency{}, err
		}
		for range r.o.Subscribers {
			select {
			case a := <-arrivals:
				if a.inquiry != inq.ID {
					return Latency{}, fmt.Errorf("a subscriber received inquiry %d, want %d", a.inquiry, inq.ID)
				}
				lat = append(lat, a.at.Sub(sent))
			case <-time.After(30 * time.Second):
				return Latency{}, errors.New("not every subscriber received the event within 30 s")
			}
		}
	}
	return summarize(lat), nil
}

// webhooks subscribes a receiver on loopback to inquiry.created and creates WebhookEvents
// inquiries as fast as it can: the deliveries per second run from the first creation to the
// last delivery the receiver acknowledged. Then it creates 50 more one at a time, each after
// the last was delivered, for the latency from the creation's answer to the delivery's arrival.
func (r *run) webhooks(ctx context.Context) (float64, Latency, error) {
	n := r.o.WebhookEvents
	if n == 0 {
		return 0, Latency{}, nil
	}
	var (
		mu       sync.Mutex
		seen     = map[string]bool{}
		arrivals = make(chan time.Time, n+100)
	)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, Latency{}, err
	}
	receiver := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		at := time.Now()
		mu.Lock()
		defer mu.Unlock()
		if id := req.Header.Get("webhook-id"); !seen[id] {
			seen[id] = true
			arrivals <- at
		}
	})}
	go receiver.Serve(l)
	defer receiver.Close()
	wh, err := r.admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: "http://" + l.Addr().String() + "/hook", Events: []string{hitl.EventInquiryCreated}})
	if err != nil {
		return 0, Latency{}, err
	}
	defer r.admin.DeleteWebhook(context.WithoutCancel(ctx), wh.ID)
	return r.burstThenOneByOne(ctx, n, "webhook", arrivals, "a webhook delivery")
}

// burstThenOneByOne creates n inquiries as fast as it can and returns how many per second
// arrived (first creation → the n-th arrival), then creates 50 one at a time, each after the
// last arrived, for the latency from the creation's answer (the commit) to the arrival.
// arrivals receives when each event reached its receiver; what names it in messages.
func (r *run) burstThenOneByOne(ctx context.Context, n int, prompt string, arrivals <-chan time.Time, what string) (float64, Latency, error) {
	arrival := func() (time.Time, error) {
		select {
		case at := <-arrivals:
			return at, nil
		case <-time.After(60 * time.Second):
			return time.Time{}, errors.New(what + " did not arrive within 60 s")
		}
	}
	started := time.Now()
	if _, err := r.create(ctx, n, func(i int) *hitl.InquiryRequest {
		return &hitl.InquiryRequest{Prompt: fmt.Sprintf("%s %d", prompt, i)}
	}); err != nil {
		return 0, Latency{}, err
	}
	var (
		last time.Time
		err  error
	)
	for range n {
		if last, err = arrival(); err != nil {
			return 0, Latency{}, err
		}
	}
	perS := round(float64(n) / last.Sub(started).Seconds())
	var lat []time.Duration
	for range 50 {
		if _, _, err := r.agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: prompt + " latency"}, client.CreateOptions{}); err != nil {
			return 0, Latency{}, err
		}
		sent := time.Now()
		at, err := arrival()
		if err != nil {
			return 0, Latency{}, err
		}
		lat = append(lat, at.Sub(sent))
	}
	return perS, summarize(lat), nil
}

// cpuTime reads the CPU time (user and system) a process has used, from /proc/PID/stat in
// clock ticks of 10 ms (USER_HZ is 100 on Linux whatever the kernel's HZ).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the server's CPU time: %w", err)
	}
	// The command name (field 2) is in parentheses and may hold spaces: count from after it.
	_, rest, ok := strings.Cut(string(b), ") ")
	fields := strings.Fields(rest)
	if !ok || len(fields) < 13 {
		return 0, errors.New("reading the server's CPU time: /proc stat has too few fields")
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64) // field 14 of the line
	stime, err2 := strconv.ParseInt(fields[12], 10, 64) // field 15
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("reading the server's CPU time: %w", err)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// fsyncRate writes 512 bytes and fsyncs them, again and again, in dir for d, and returns how
// many it did per second and how long each took.
func fsyncRate(dir string, d time.Duration) (float64, Latency, error) {
	f, err := os.CreateTemp(dir, "fsync-")
	if err != nil {
		return 0, Latency{}, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	block := make([]byte, 512)
	var took []time.Duration
	start := time.Now()
	for time.Since(start) < d {
		began := time.Now()
		if _, err := f.WriteAt(block, int64(len(took)%64)*512); err != nil {
			return 0, Latency{}, err
		}
		if err := f.Sync(); err != nil {
			return 0, Latency{}, err
		}
		took = append(took, time.Since(began))
	}
	return round(float64(len(took)) / time.Since(start).Seconds()), summarize(took), nil
}

// rss reads the resident memory of a process, in bytes.
func rss(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the server's memory: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmRSS in /proc status")
}

func summarize(ds []time.Duration) Latency {
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return round(float64(d) / float64(time.Millisecond)) }
	q := func(p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
	return Latency{P50: ms(q(0.50)), P99: ms(q(0.99)), Max: ms(ds[len(ds)-1])}
}

func round(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

func cpus() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "processor\t:")
}

// multiplexed parks MultiplexedWaiters waits through one client.Waiter, measuring the
// server's memory before and after, as deadlines does for long polls. It runs on a server
// (and SQLite file) of its own, started for it: what the earlier scenarios left in the first
// server's heap would hide the growth. The waits are ended by closing the Waiter, not answered.
func (r *run) multiplexed(ctx context.Context, dir string, res *Result) error {
	n := r.o.MultiplexedWaiters
	url, stop, pid, err := startServer(ctx, r.o, filepath.Join(dir, "multiplexed.db"), dir)
	if err != nil {
		return err
	}
	defer stop()
	admin := client.New(url, adminToken, r.hc)
	if err := ready(ctx, admin); err != nil {
		return err
	}
	k, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "bench-multiplexed-agent", Roles: []string{hitl.RoleAgent}})
	if err != nil {
		return err
	}
	agent := client.New(url, k.Token, r.hc)
	ids, err := createAs(ctx, agent, n, func(int) *hitl.InquiryRequest { return &hitl.InquiryRequest{Prompt: "Go?"} })
	if err != nil {
		return err
	}
	release, err := parkMultiplexed(ctx, r, agent, url, pid, ids, 2*time.Minute, res)
	if err != nil {
		return err
	}
	return release()
}

// parkMultiplexed parks a wait on each of ids through one client.Waiter of c, on the server at
// url (process pid), and notes in res how many, how long parking them took and the server's
// memory before and after. release ends the waits, saying whether any returned meanwhile.
func parkMultiplexed(ctx context.Context, r *run, c *client.Client, url string, pid int, ids []int64, within time.Duration, res *Result) (release func() error, err error) {
	n := len(ids)
	before, err := rss(pid)
	if err != nil {
		return nil, err
	}
	w := c.NewWaiter()
	waitCtx, cancel := context.WithCancel(ctx)
	returned := make(chan error, 1)
	go func() {
		_, err := w.WaitAll(waitCtx, ids)
		returned <- err
	}()
	released := false
	release = func() error {
		if released {
			return nil
		}
		released = true
		var early error
		select {
		case err := <-returned:
			early = fmt.Errorf("the multiplexed waits returned while held: %v", err)
		default:
		}
		w.Close()
		cancel()
		if early == nil {
			<-returned
		}
		return early
	}
	parking := time.Now()
	for {
		parked, err := r.metricOf(ctx, url, "hitl_waiters")
		if err == nil && int(parked) < n && time.Since(parking) > within {
			err = fmt.Errorf("only %d of %d waits parked within %s", int(parked), n, within)
		}
		if err != nil {
			release()
			return nil, err
		}
		if int(parked) >= n {
			break
		}
		select {
		case err := <-returned:
			w.Close()
			cancel()
			return nil, fmt.Errorf("the waits returned before all were parked: %v", err)
		default:
		}
		time.Sleep(50 * time.Millisecond)
	}
	after, err := rss(pid)
	if err != nil {
		release()
		return nil, err
	}
	res.MultiplexedWaiters = n
	res.BytesPerMultiplexedWaiter = round(float64(after-before) / float64(n))
	res.RSSWithMultiplexedWaiters = after
	res.ParkMultiplexedS = round(time.Since(parking).Seconds())
	return release, nil
}

// bucket is one cumulative bucket of a Prometheus histogram: how many observations were at
// most le.
type bucket struct {
	le    float64
	count float64
}

// histogram reads the cumulative buckets of the unlabelled histogram name from /metrics.
func (r *run) histogram(ctx context.Context, name string) ([]bucket, error) {
	f, err := r.family(ctx, r.url, name)
	if err != nil {
		return nil, err
	}
	h := f.GetMetric()[0].GetHistogram()
	if h == nil {
		return nil, fmt.Errorf("metric %s is no histogram", name)
	}
	var out []bucket // the last one +Inf
	for _, b := range h.GetBucket() {
		out = append(out, bucket{b.GetUpperBound(), float64(b.GetCumulativeCount())})
	}
	return out, nil
}

// between is the distribution, in milliseconds, of what a histogram in seconds observed from
// before to after: each quantile interpolated within its bucket (as Prometheus's
// histogram_quantile does), the max the bound of the highest bucket used (of the highest
// finite one when the slowest were past every bound).
func between(before, after []bucket) Latency {
	delta := make([]bucket, len(after))
	for i := range after {
		delta[i] = bucket{after[i].le, after[i].count - before[i].count}
	}
	total := delta[len(delta)-1].count
	if total == 0 {
		return Latency{}
	}
	q := func(p float64) float64 {
		want, lower, below := p*total, 0.0, 0.0
		for _, b := range delta {
			if b.count >= want {
				if math.IsInf(b.le, 1) {
					return lower
				}
				return lower + (b.le-lower)*(want-below)/(b.count-below)
			}
			lower, below = b.le, b.count
		}
		return lower
	}
	highest, finite, below := 0.0, 0.0, 0.0 // the bound of the highest bucket that gained observations
	for _, b := range delta {
		if !math.IsInf(b.le, 1) {
			finite = b.le
		}
		if b.count > below {
			highest = finite
		}
		below = b.count
	}
	return Latency{P50: round(q(0.5) * 1000), P99: round(q(0.99) * 1000), Max: round(highest * 1000)}
}
