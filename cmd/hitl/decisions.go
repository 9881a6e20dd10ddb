package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/hitl-dev/hitl"
)

// printDecisions writes the decision analytics of `hitl stats` as a table: per row, the time
// to first view and to decision (p50/p90), the deadlines met, approval this week and the last,
// and the decisions made faster than reading takes.
func printDecisions(w io.Writer, d *hitl.DecisionAnalytics) error {
	if d == nil || d.Total.Answers == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nHow people decide (too fast: less time than reading takes at %d words a minute)\n", d.ReadingWordsPerMinute)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BY\tNAME\tANSWERS\tFIRST VIEW P50/P90\tDECISION P50/P90\tIN TIME\tAPPROVED\tLAST WEEK\tTOO FAST")
	row := func(by string, r hitl.DecisionFigures) {
		fv := "-"
		if r.FirstView.Count > 0 {
			fv = seconds(r.FirstView.P50Seconds) + "/" + seconds(r.FirstView.P90Seconds)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s/%s\t%s\t%s\t%s\t%d\n", by, dash(r.Key), r.Answers, fv,
			seconds(r.Decision.P50Seconds), seconds(r.Decision.P90Seconds), share(r.WithinDeadline), share(r.ApprovalThisWeek), share(r.ApprovalLastWeek), r.TooFast)
	}
	row("all", d.Total)
	for _, part := range []struct {
		by   string
		rows []hitl.DecisionFigures
	}{{"person", d.ByPerson}, {"group", d.ByGroup}, {"tool", d.ByTool}, {"template", d.ByTemplate}} {
		for _, r := range part.rows {
			row(part.by, r)
		}
	}
	return tw.Flush()
}

func share(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", *v*100)
}
