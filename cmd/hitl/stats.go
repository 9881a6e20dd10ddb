package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl"
)

func statsCmd() *cobra.Command {
	var (
		since  string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Show how long humans take, what timed out and what waits (role admin: everything; role responder: their own)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			st, err := c.Stats(cmd.Context(), since)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), st)
			}
			return printStats(cmd.OutOrStdout(), st)
		},
	}
	f := cmd.Flags()
	f.StringVar(&since, "since", "7d", "the window, ending now: 24h, 7d, 30d, ... (at most 366d)")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printStats writes the numbers as a few lines and a table of the response times.
func printStats(w io.Writer, st *hitl.Stats) error {
	whose := "Every inquiry"
	if st.Scope == hitl.StatsOwn {
		whose = "Your own inquiries"
	}
	const at = "2006-01-02 15:04 UTC"
	fmt.Fprintf(w, "%s, %s to %s\n", whose, st.From.UTC().Format(at), st.Until.UTC().Format(at))
	fmt.Fprintf(w, "Answered %d, timed out %d (%d fell back), cancelled %d\n", st.Answered, st.TimedOut, st.FellBack, st.Cancelled)
	fmt.Fprintf(w, "Waiting now %d", st.Pending)
	if o := st.OldestPending; o != nil {
		fmt.Fprintf(w, ", the oldest inquiry %d for %s", o.InquiryID, span(time.Duration(o.AgeSeconds*float64(time.Second))))
	}
	fmt.Fprintln(w)
	if st.ResponseTime.Count == 0 {
		_, err := fmt.Fprintln(w, "No answers in this window.")
		return err
	}
	if st.Sampled {
		fmt.Fprintf(w, "The response times are those of the newest %d answers.\n", st.ResponseTime.Count)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BY\tNAME\tANSWERS\tP50\tP90")
	row := func(by string, r hitl.ResponseTimes) {
		name := dash(r.Key)
		if r.Others > 0 {
			name = fmt.Sprintf("%d others", r.Others)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", by, name, r.Count, seconds(r.P50Seconds), seconds(r.P90Seconds))
	}
	row("all", st.ResponseTime)
	for _, part := range []struct {
		by   string
		rows []hitl.ResponseTimes
	}{{"type", st.ByRequestType}, {"responder", st.ByResponder}, {"group", st.ByGroup}} {
		for _, r := range part.rows {
			row(part.by, r)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return printDecisions(w, st.Decisions)
}

// seconds is a response time as Go writes durations, to the second under a day: 1m30s, 2h5m0s.
func seconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	if d < 10*time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
