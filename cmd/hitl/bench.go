package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl/internal/bench"
	"github.com/hitl-dev/hitl/internal/server"
)

func benchCmd() *cobra.Command {
	var (
		quick, asJSON          bool
		db, cpuProfile, tsPath string
		chart                  string
		history                []int
		scale                  int
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure wake latency, throughput, deadline precision and memory on loopback",
		Long: `Start a hitl server on a temporary SQLite database (as a child process) and measure:
wake latency of 10,000 parked waiters against a 2 s polling baseline, durable create+respond
cycles per second with 64 clients, the start-up with 1,000,000 pending deadlines (SQLite, not
with --quick) and how late 10,000 deadlines within 2 s fire beside them, and memory per
parked waiter (a long poll each, and 100,000 waits multiplexed through the Go client's Waiter
on a server of their own), the fan-out of one event to 1,000 SSE streams, and webhook deliveries per
second to a local receiver, and events published to RabbitMQ per second with their latency
(when one answers at HITL_BENCH_AMQP_URL, default the local guest account). With --db postgres://..., two nodes serve a fresh schema of that database
(dropped afterwards) and the cross-node wake latency is measured too. The Go and TypeScript
clients' wake latency are compared with 1,000 questions parked through each (TypeScript's when
--typescript-client names the client's directory, built with npm ci; run from a checkout, it
is found in clients/typescript). --scale N measures only what grows with the load, at N times
the full run's: N×1,000,000 preloaded deadlines and N×100,000 waits multiplexed through one
Waiter on the same server, with the wake latency and the deadlines' lateness beside them
(SQLite; minutes at 10). The figures go to stdout as JSON (--json) and to stderr as a table.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o := bench.Full()
			switch {
			case cmd.Flags().Changed("scale") && (scale < 2 || quick || cmd.Flags().Changed("history") || db != ""):
				return usagef("--scale takes a factor of 2 or more, and goes without --quick, --history and --db (it measures SQLite)")
			case cmd.Flags().Changed("scale"):
				o = bench.Scaled(scale)
			case quick:
				o = bench.Quick()
			}
			self, err := os.Executable()
			if err != nil {
				return err
			}
			o.Server = []string{self, "serve"}
			if db != "" && !server.IsPostgres(db) {
				return usagef("--db must be a postgres:// URL (without it the bench uses a temporary SQLite file)")
			}
			o.DB = db
			if cmd.Flags().Changed("history") {
				if len(history) == 0 || !slices.IsSorted(history) || history[0] <= 0 {
					return usagef("--history takes sizes in ascending order, each above 0 (--history 10000,100000)")
				}
				o.HistorySizes, o.HistoryOnly = history, true
			}
			if cpuProfile != "" {
				if err := os.MkdirAll(cpuProfile, 0o755); err != nil {
					return fmt.Errorf("--cpuprofile: %w", err)
				}
				o.CPUProfileDir = cpuProfile
			}
			o.AMQPURL, o.AMQPSkipped = bench.ReachableAMQP()
			o.TypeScriptClient = tsPath
			if !cmd.Flags().Changed("typescript-client") && bench.TypeScriptClientReady(tsPath) != "" {
				o.TypeScriptClient = "" // not in a checkout with the client built: its figures are left out, saying why
			}
			o.Progress = cmd.ErrOrStderr()
			res, err := bench.Run(cmd.Context(), o)
			if err != nil {
				return err
			}
			switch {
			case o.HistoryOnly:
				printHistory(cmd.ErrOrStderr(), res.History)
			case o.Scale > 1:
				printScale(cmd.ErrOrStderr(), res)
			default:
				printTable(cmd.ErrOrStderr(), res)
			}
			if chart != "" {
				title := fmt.Sprintf("hitl open loop: %s, %d node(s), %d CPUs", res.Store, res.Nodes, res.CPUs)
				if err := os.WriteFile(chart, bench.CurveSVG(res.OpenLoop, title), 0o644); err != nil {
					return fmt.Errorf("--chart: %w", err)
				}
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&quick, "quick", false, "a smaller run that finishes in under a minute")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the figures as JSON on stdout")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "a directory for the server's CPU profile during the throughput run (throughput-cpu.pprof; read it with go tool pprof)")
	cmd.Flags().StringVar(&tsPath, "typescript-client", "clients/typescript", "the TypeScript client's directory (built: npm ci), to measure its wake latency beside the Go client's")
	cmd.Flags().StringVar(&chart, "chart", "", "write the open loop's latency–throughput curve to this file as SVG")
	cmd.Flags().IntSliceVar(&history, "history", nil, "measure only a database grown through these numbers of ended inquiries (10000,100000,1000000): bytes per inquiry, the inbox page, the pending list, search, start-up, audit verify")
	cmd.Flags().IntVar(&scale, "scale", 0, "measure only what grows with the load, at this many times the standard run's: --scale 10 preloads 10,000,000 deadlines and parks 1,000,000 multiplexed waits beside them on one server, then measures wake latency and deadline lateness")
	cmd.Flags().StringVar(&db, "db", "", "postgres:// URL: measure two nodes on a fresh schema of that database")
	return cmd
}

// printScale prints what hitl bench --scale measured.
func printScale(w io.Writer, r *bench.Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	lat := func(name string, l bench.Latency) {
		fmt.Fprintf(tw, "%s\tp50 %.3f ms\tp99 %.3f ms\tmax %.3f ms\n", name, l.P50, l.P99, l.Max)
	}
	fmt.Fprintf(tw, "\nat scale %d, on one server\t\t\t\n", r.Scale)
	if r.Preload != nil {
		fmt.Fprintf(tw, "start-up with %d pending deadlines\t%.2f s\t%.0f bytes per deadline\t\n", r.Preload.Deadlines, r.Preload.StartupS, r.Preload.BytesPerPending)
	}
	fmt.Fprintf(tw, "memory per multiplexed wait (%d through one Waiter, parked in %.1f s)\t%.0f bytes\tserver RSS %.0f MiB\t\n",
		r.MultiplexedWaiters, r.ParkMultiplexedS, r.BytesPerMultiplexedWaiter, float64(r.RSSWithMultiplexedWaiters)/(1<<20))
	lat(fmt.Sprintf("wake latency (%d parked waiters, beside them)", r.Waiters), r.WakeLatencyMS)
	lat("  of which after the answer's commit (server)", r.WakeAfterCommitMS)
	lat(fmt.Sprintf("timeout lateness, server (%d deadlines in 2 s)", r.Deadlines), r.TimeoutLatenessMS)
	lat("timeout lateness, as the waiting agent saw it", r.TimeoutObservedLateness)
	fmt.Fprintf(tw, "run took %.1f s on %d CPUs\t\t\t\n", r.DurationS, r.CPUs)
	tw.Flush()
}

func printTable(w io.Writer, r *bench.Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	lat := func(name string, l bench.Latency) {
		fmt.Fprintf(tw, "%s\tp50 %.3f ms\tp99 %.3f ms\tmax %.3f ms\n", name, l.P50, l.P99, l.Max)
	}
	fmt.Fprintln(tw, "")
	lat(fmt.Sprintf("wake latency (%d parked waiters)", r.Waiters), r.WakeLatencyMS)
	lat("  of which after the answer's commit (server)", r.WakeAfterCommitMS)
	if r.CrossNodeWakeLatencyMS != nil {
		lat("cross-node wake latency (waiter on node 1, answer on node 2)", *r.CrossNodeWakeLatencyMS)
	}
	if w := r.SDKWake; w != nil {
		lat(fmt.Sprintf("Go client, %d parked (long polls)", w.Parked), w.Go)
		lat(fmt.Sprintf("Go client, %d parked (one Waiter)", w.Parked), w.GoWaiter)
		if w.TypeScript != nil {
			lat(fmt.Sprintf("TypeScript client, %d parked (ask)", w.Parked), *w.TypeScript)
			lat(fmt.Sprintf("TypeScript client, %d parked (ask with a waiter)", w.Parked), *w.TypeScriptWaiter)
		} else {
			fmt.Fprintf(tw, "TypeScript client\tleft out: %s\t\t\n", w.TypeScriptSkipped)
		}
	}
	lat(fmt.Sprintf("polling baseline (%d agents, every 2 s)", r.PollingWaiters), r.PollingBaselineMS)
	fmt.Fprintf(tw, "wake speedup\t%.0f×\t\t\n", r.WakeSpeedup)
	fmt.Fprintf(tw, "durable create+respond cycles (%d clients)\t%.0f /s\tserver CPU %.0f µs per cycle\t\n", r.ThroughputClients, r.RespondThroughputPerS, r.ServerCPUMicrosPerCycle)
	fmt.Fprintf(tw, "the same traffic, nothing stored (HTTP ceiling)\t%.0f /s\tefficiency %.2f\t\n", r.HTTPCeilingCyclesPerS, r.CycleEfficiency)
	fmt.Fprintf(tw, "the store's writer\t%.0f µs CPU per change\t%.1f changes per commit\t\n", r.WriterCPUMicrosPerChange, r.ChangesPerCommit)
	fmt.Fprintf(tw, "the disk at the start (512-byte write + fsync)\t%.0f /s\tp50 %.3f ms, p99 %.3f ms each\t\n", r.FsyncsPerS, r.FsyncMS.P50, r.FsyncMS.P99)
	fmt.Fprintf(tw, "audit verify (%d events)\t%.0f events/s\t\t\n", r.AuditEvents, r.AuditVerifyEventsPerS)
	lat(fmt.Sprintf("answers beside a steady load (%d clients)", bench.RetentionClients), r.Retention.AnswerMS)
	lat(fmt.Sprintf("the same while a purge removes %d events at %.0f /s", r.Retention.EventsRemoved, r.Retention.EventsRemovedPerS), r.Retention.DuringPurgeMS)
	if r.Preload != nil {
		fmt.Fprintf(tw, "start-up with %d pending deadlines\t%.2f s\t%.0f bytes per deadline\t\n", r.Preload.Deadlines, r.Preload.StartupS, r.Preload.BytesPerPending)
	}
	lat(fmt.Sprintf("timeout lateness, server (%d deadlines in 2 s)", r.Deadlines), r.TimeoutLatenessMS)
	lat("timeout lateness, as the waiting agent saw it", r.TimeoutObservedLateness)
	lat(fmt.Sprintf("stream fan-out (one event to %d SSE subscribers)", r.Subscribers), r.StreamFanoutLatencyMS)
	fmt.Fprintf(tw, "webhook deliveries (%d events to a local receiver)\t%.0f /s\t\t\n", r.WebhookEvents, r.WebhookDeliveriesPerS)
	lat("webhook delivery latency (one event at a time)", r.WebhookLatencyMS)
	if r.AMQPPublishPerS != nil {
		fmt.Fprintf(tw, "RabbitMQ publishes, confirmed (%d events)\t%.0f /s\t\t\n", r.AMQPEvents, *r.AMQPPublishPerS)
		lat("RabbitMQ latency (commit to a consumer, one event at a time)", *r.AMQPLatencyMS)
	} else {
		fmt.Fprintf(tw, "RabbitMQ\tskipped: %s\t\t\n", r.AMQPSkipped)
	}
	if r.NotifySamples > 0 {
		lat(fmt.Sprintf("notification latency, email (%d, created → at the relay)", r.NotifySamples), r.NotificationLatencyMS.Email)
		lat(fmt.Sprintf("notification latency, Slack (%d, created → at the Web API)", r.NotifySamples), r.NotificationLatencyMS.Slack)
	}
	fmt.Fprintf(tw, "memory per parked waiter (%d parked)\t%.0f bytes\t\t\n", r.ParkedForMemory, r.BytesPerWaiter)
	if r.MultiplexedWaiters > 0 {
		fmt.Fprintf(tw, "memory per multiplexed wait (%d through one Waiter)\t%.0f bytes\tserver RSS %.0f MiB\t\n", r.MultiplexedWaiters, r.BytesPerMultiplexedWaiter, float64(r.RSSWithMultiplexedWaiters)/(1<<20))
	}
	fmt.Fprintf(tw, "run took %.1f s on %d CPUs, %s, %d node(s)\t\t\t\n", r.DurationS, r.CPUs, r.Store, r.Nodes)
	tw.Flush()
	printOpenLoop(w, r.OpenLoop)
	printHistory(w, r.History)
}

// printHistory is the history's figures, a row per size.
func printHistory(w io.Writer, sizes []bench.History) {
	if len(sizes) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "\nhistory: a database of ended inquiries (ms, p50 / p99 of %d requests one at a time)\n", bench.HistoryRequests)
	fmt.Fprintln(tw, "inquiries\tbytes each\tinbox page\tpending list\tsearch\tstart-up\taudit verify\t")
	l := func(l bench.Latency) string { return fmt.Sprintf("%.2f / %.2f", l.P50, l.P99) }
	for _, h := range sizes {
		fmt.Fprintf(tw, "%d\t%.0f\t%s\t%s\t%s\t%.2f s\t%.0f events/s\t\n", h.N, h.BytesPerInquiry, l(h.InboxPageMS), l(h.PendingListMS), l(h.SearchMS), h.StartupS, h.AuditVerifyEventsPerS)
	}
	tw.Flush()
}

// printOpenLoop is the latency–throughput curve as a table of its own: its columns are not
// the other figures'.
func printOpenLoop(w io.Writer, rates []bench.OpenLoopRate) {
	if len(rates) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "\nopen loop: questions arriving on a schedule, latency from when each was due (ms, p50 / p99 / p99.9)")
	fmt.Fprintln(tw, "of the closed loop\tdue /s\tdone /s\tcreate\tanswer\twake\t")
	q := func(l bench.Quantiles) string { return fmt.Sprintf("%.2f / %.2f / %.2f", l.P50, l.P99, l.P999) }
	for _, o := range rates {
		fmt.Fprintf(tw, "%.0f%%\t%.0f\t%.0f\t%s\t%s\t%s\t\n", o.Fraction*100, o.TargetPerS, o.AchievedPerS, q(o.CreateMS), q(o.AnswerMS), q(o.WakeMS))
	}
	tw.Flush()
}
