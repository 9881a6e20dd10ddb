package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl"
)

func purgeCmd() *cobra.Command {
	var (
		before string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "purge --before DATE",
		Short: "Remove the inquiries and sessions that ended before a date, with their events (role: admin)",
		Long: `Remove what --retain-resolved removes on its own, by hand: every inquiry that ended (answered,
timed out or cancelled) before DATE, every finished session that ended before it with its
inquiries, and what is kept for them — assignees, deliveries, idempotency keys and events.
Pending inquiries, running sessions and what a delivery still waits on stay. The server
removes them in small batches, each leaving an audit.checkpoint event, so that 'hitl audit
verify' still verifies the log (see the README, section Operating hitl).

DATE is a day (2026-01-31: its start, UTC), a time (2026-01-31T12:00:00Z), or an age (90d,
36h: that long before now).`,
		Example: `  hitl purge --before 2026-01-01
  hitl purge --before 90d`,
		Args: exactArgs(0, "no arguments: the date goes in --before"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			at, err := parseBefore(before, time.Now())
			if err != nil {
				return usagef("--before: %v", err)
			}
			c, err := connect()
			if err != nil {
				return err
			}
			// The server works for a while at a time on a large backlog; ask until it is done.
			total := hitl.PurgeResult{Before: at}
			for {
				res, err := c.Purge(cmd.Context(), at)
				if err != nil {
					return err
				}
				total.Before = res.Before
				total.Inquiries, total.Sessions, total.Events, total.Checkpoints = total.Inquiries+res.Inquiries, total.Sessions+res.Sessions, total.Events+res.Events, total.Checkpoints+res.Checkpoints
				if !res.More {
					break
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "Removed %d inquiries and %d events so far ...\n", total.Inquiries, total.Events)
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(total)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Removed %d inquiries, %d sessions and %d events that ended before %s (%d checkpoints in the audit log).\n",
				total.Inquiries, total.Sessions, total.Events, total.Before.Format(time.RFC3339), total.Checkpoints)
			return nil
		},
	}
	cmd.Flags().StringVar(&before, "before", "", "remove what ended before this: 2026-01-31, 2026-01-31T12:00:00Z, or an age like 90d (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the server's answer as JSON")
	return cmd
}

// parseBefore reads --before: a day, a time, or an age before now.
func parseBefore(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, fmt.Errorf("required: a day like 2026-01-31, a time like 2026-01-31T12:00:00Z, or an age like 90d")
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := parseLongDuration(s)
	if err != nil || d <= 0 {
		return time.Time{}, fmt.Errorf("%q is neither a day (2026-01-31), a time (2026-01-31T12:00:00Z) nor an age (90d)", s)
	}
	return now.Add(-d), nil
}
