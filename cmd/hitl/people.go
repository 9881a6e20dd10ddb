package main

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl"
)

func peopleCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "people", Short: "Where people are reached: email, Slack (role: admin)"}
	var (
		req    hitl.PersonRequest
		hours  []string
		asJSON bool
	)
	set := &cobra.Command{
		Use:   "set NAME",
		Short: "Set where a person (the principal of its keys' name) is reached; replaces what was there",
		Example: "  hitl people set ada --email ada@example.com --slack U012AB3CD\n" +
			"  hitl people set ada --email ada@example.com --slack U012AB3CD --channel slack\n" +
			"  hitl people set ada --email ada@example.com --time-zone Europe/Berlin --hours mon-fri=09:00-17:00",
		Args: exactArgs(1, "the person's name (the name of its keys)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if req.WorkingHours, err = workingHoursFlags(hours); err != nil {
				return err
			}
			c, err := connect()
			if err != nil {
				return err
			}
			p, err := c.PutPerson(cmd.Context(), args[0], &req)
			if err != nil {
				return withFieldErrors(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s is reached by %s.\n", p.Name, personChannels(p))
			return nil
		},
	}
	set.Flags().StringVar(&req.DisplayName, "name", "", "how messages greet the person")
	set.Flags().StringVar(&req.Email, "email", "", "email address")
	set.Flags().StringVar(&req.SlackUserID, "slack", "", "Slack member ID, like U012AB3CD")
	set.Flags().StringArrayVar(&req.Channels, "channel", nil, "a channel the person wants messages by: email or slack (repeat; default: every channel with an address)")
	set.Flags().StringVar(&req.TimeZone, "time-zone", "", "the person's IANA time zone, like Europe/Berlin (default: UTC)")
	set.Flags().StringArrayVar(&hours, "hours", nil, "working hours, DAYS=HH:MM-HH:MM in the person's zone, like mon-fri=09:00-17:00 or sat=10:00-14:00 (repeat; default: always)")

	ls := &cobra.Command{
		Use:   "ls",
		Short: "List people",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			people, err := c.People(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), people)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tDISPLAY NAME\tEMAIL\tSLACK\tREACHED BY")
			for _, p := range people {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Name, dash(p.DisplayName), dash(p.Email), dash(p.SlackUserID), personChannels(p))
			}
			return tw.Flush()
		},
	}
	ls.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	rm := &cobra.Command{
		Use:   "rm NAME",
		Short: "Forget where a person is reached (the person's keys stay)",
		Args:  exactArgs(1, "a person's name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			if err := c.DeletePerson(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Person %s deleted.\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(set, ls, rm, absenceCmd())
	return cmd
}

// absenceCmd sets, shows and ends a person's absence: the person themself or an admin.
func absenceCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "absence", Short: "A person away: who answers in their place, and until when (the person themself, or role: admin)"}
	var from, until, delegate string
	set := &cobra.Command{
		Use:   "set NAME",
		Short: "Set a person's absence, replacing theirs: the delegate answers what is assigned to them by name, and gets their messages",
		Example: "  hitl people absence set alice --until 2027-01-04T09:00:00Z --delegate bob\n" +
			"  hitl people absence set alice --from 2026-12-22T00:00:00Z --until 2027-01-04T09:00:00Z --delegate bob",
		Args: exactArgs(1, "the name of the person who is away"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := hitl.AbsenceRequest{From: time.Now().UTC(), Delegate: delegate}
			var err error
			if from != "" {
				if req.From, err = time.Parse(time.RFC3339, from); err != nil {
					return fmt.Errorf("--from %q is not a time like 2026-12-22T00:00:00Z", from)
				}
			}
			if req.Until, err = time.Parse(time.RFC3339, until); err != nil {
				return fmt.Errorf("--until %q is not a time like 2027-01-04T09:00:00Z", until)
			}
			c, err := connect()
			if err != nil {
				return err
			}
			a, err := c.SetAbsence(cmd.Context(), args[0], &req)
			if err != nil {
				return withFieldErrors(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s is away from %s until %s; %s answers in their place.\n", a.Person,
				a.From.Format(time.RFC3339), a.Until.Format(time.RFC3339), a.Delegate)
			return nil
		},
	}
	set.Flags().StringVar(&from, "from", "", "when the absence starts, like 2026-12-22T00:00:00Z (default: now)")
	set.Flags().StringVar(&until, "until", "", "when it ends, like 2027-01-04T09:00:00Z (required)")
	set.Flags().StringVar(&delegate, "delegate", "", "who answers in the person's place (required)")
	set.MarkFlagRequired("until")
	set.MarkFlagRequired("delegate")

	show := &cobra.Command{
		Use:   "show NAME",
		Short: "Show a person's absence, unless it has ended",
		Args:  exactArgs(1, "a person's name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			a, err := c.Absence(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printJSON(cmd.OutOrStdout(), a)
		},
	}
	end := &cobra.Command{
		Use:   "end NAME",
		Short: "End a person's absence now: they answer for themself again",
		Args:  exactArgs(1, "a person's name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			if err := c.EndAbsence(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s's absence ended.\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(set, show, end)
	return cmd
}

// personChannels says by which channels a person is reached.
func personChannels(p *hitl.Person) string {
	channels := p.Channels
	if len(channels) == 0 {
		for _, c := range hitl.PersonChannels {
			if c == hitl.ChannelEmail && p.Email != "" || c == hitl.ChannelSlack && p.SlackUserID != "" {
				channels = append(channels, c)
			}
		}
	}
	if len(channels) == 0 {
		return "nothing yet"
	}
	return strings.Join(channels, " and ")
}

func groupsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "groups", Short: "Groups' shared contact points: a list, a Slack channel (role: admin)"}
	var (
		req    hitl.GroupRequest
		asJSON bool
	)
	set := &cobra.Command{
		Use:     "set NAME",
		Short:   "Set where a group (group:NAME) is reached, once rather than member by member; replaces what was there",
		Example: "  hitl groups set ops --email ops@example.com --slack-channel C012AB3CD",
		Args:    exactArgs(1, "the group's name, without group:"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			g, err := c.PutGroup(cmd.Context(), args[0], &req)
			if err != nil {
				return withFieldErrors(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "group:%s is reached by %s.\n", g.Name, groupPoints(g))
			return nil
		},
	}
	set.Flags().StringVar(&req.Email, "email", "", "the group's email address (a list)")
	set.Flags().StringVar(&req.SlackChannel, "slack-channel", "", "the group's Slack channel ID, like C012AB3CD")

	ls := &cobra.Command{
		Use:   "ls",
		Short: "List groups' contact points",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			gs, err := c.Groups(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), gs)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "GROUP\tEMAIL\tSLACK CHANNEL")
			for _, g := range gs {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", g.Name, dash(g.Email), dash(g.SlackChannel))
			}
			return tw.Flush()
		},
	}
	ls.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	rm := &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove a group's contact points: its members are reached one by one",
		Args:  exactArgs(1, "a group's name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			if err := c.DeleteGroup(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Group %s's contact points deleted.\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(set, ls, rm)
	return cmd
}

func groupPoints(g *hitl.Group) string {
	var points []string
	if g.Email != "" {
		points = append(points, "email "+g.Email)
	}
	if g.SlackChannel != "" {
		points = append(points, "Slack channel "+g.SlackChannel)
	}
	if len(points) == 0 {
		return "each member's own channels"
	}
	return strings.Join(points, " and ")
}

// workingHoursFlags reads --hours DAYS=HH:MM-HH:MM flags (DAYS one day, or a range like
// mon-fri) into working hours; the server checks the days and times themselves.
func workingHoursFlags(flags []string) (hitl.WorkingHours, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	out := hitl.WorkingHours{}
	for _, f := range flags {
		days, window, ok := strings.Cut(f, "=")
		start, end, ok2 := strings.Cut(window, "-")
		if !ok || !ok2 {
			return nil, fmt.Errorf("--hours %q: give DAYS=HH:MM-HH:MM, like mon-fri=09:00-17:00", f)
		}
		first, last, isRange := strings.Cut(days, "-")
		if !isRange {
			out[days] = []string{start, end}
			continue
		}
		i, j := slices.Index(hitl.Weekdays[:], first), slices.Index(hitl.Weekdays[:], last)
		if i < 0 || j < 0 {
			return nil, fmt.Errorf("--hours %q: %s is not a range of days; days are mon, tue, wed, thu, fri, sat and sun", f, days)
		}
		for k := i; ; k = (k + 1) % 7 { // mon-fri, or fri-mon across the weekend
			out[hitl.Weekdays[k]] = []string{start, end}
			if k == j {
				break
			}
		}
	}
	return out, nil
}
