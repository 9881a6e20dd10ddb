package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/wording"
)

func tailCmd() *cobra.Command {
	var (
		o      client.StreamOptions
		mine   bool
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "tail",
		Short: "Follow the live event stream, one line per event",
		Long: `Print the events you may see as they happen, one line each (or JSON with --json).
It resumes by itself after a dropped connection or a server restart, with no event missed
or repeated. --after SEQ starts from the stored events after SEQ; by default only new ones.`,
		Example: "  hitl tail\n  hitl tail --type inquiry.responded --session deploy-7781\n  hitl tail --after 0 --json | jq .",
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if mine {
				o.AssignedTo = []string{"me"}
			}
			c, err := connect()
			if err != nil {
				return err
			}
			o.FromNow = !cmd.Flags().Changed("after")
			events, err := c.Events(cmd.Context(), o)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for ev := range events {
				if asJSON {
					b, _ := json.Marshal(ev)
					fmt.Fprintln(out, string(b))
				} else {
					printEvent(out, ev)
				}
			}
			return cmd.Context().Err()
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Types, "type", nil, "only these event types (repeat or comma-separate)")
	f.StringVar(&o.Session, "session", "", "only this session")
	f.Int64Var(&o.InquiryID, "inquiry", 0, "only this inquiry")
	f.BoolVar(&mine, "mine", false, "only inquiries assigned to me or my groups")
	f.Int64Var(&o.After, "after", 0, "start with the stored events after this seq")
	f.BoolVar(&asJSON, "json", false, "print each event as one line of JSON")
	return cmd
}

// printEvent writes one readable line: time, seq, type, the inquiry or session, and what changed.
func printEvent(w io.Writer, ev *hitl.Event) {
	what := ""
	if ev.InquiryID != nil {
		var inq hitl.Inquiry
		if json.Unmarshal(ev.Data, &inq) == nil {
			what = fmt.Sprintf("inquiry %d %s %q", inq.ID, inq.Status, shorten(inq.Prompt, 50))
			if !hitl.IsNull(inq.Response) || inq.Status == hitl.StatusResponded || inq.FallbackApplied { // null is an answer too
				what += " → " + shorten(string(inq.Response), 60)
			}
			if words := wording.Nudge(ev); words != "" {
				what += ": " + words
			}
		}
	} else if ev.Session != "" {
		what = "session " + ev.Session
	}
	fmt.Fprintf(w, "%s  #%d  %-18s %s  (by %s)\n", ev.Time.Local().Format(time.TimeOnly), ev.Seq, ev.Type, strings.TrimSpace(what), ev.Actor)
}
