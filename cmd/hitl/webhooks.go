package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

func webhooksCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "webhooks", Short: "Manage webhooks and their deliveries (role: admin)"}
	var (
		events      []string
		description string
		asJSON      bool
	)
	create := &cobra.Command{
		Use:   "create URL",
		Short: "Subscribe a URL to events; its signing secret is printed once",
		Example: "  hitl webhooks create https://ops.example.com/hitl --event inquiry.created --event inquiry.responded\n" +
			"  hitl webhooks create https://ops.example.com/hitl --event '*'",
		Args: exactArgs(1, "the URL to deliver to"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			w, err := c.CreateWebhook(cmd.Context(), &hitl.WebhookRequest{URL: args[0], Events: events, Description: description})
			if err != nil {
				return withFieldErrors(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Created webhook %s for %s. Its signing secret is shown only now:\n", w.ID, strings.Join(w.Events, ", "))
			_, err = fmt.Fprintln(cmd.OutOrStdout(), w.Secret)
			return err
		},
	}
	create.Flags().StringArrayVar(&events, "event", []string{"*"}, `an event type to receive, or "*" for all (repeat)`)
	create.Flags().StringVar(&description, "description", "", "what the webhook is for")

	ls := &cobra.Command{
		Use:   "ls",
		Short: "List webhooks",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			ws, err := c.Webhooks(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), ws)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tURL\tEVENTS\tDESCRIPTION\tCREATED")
			for _, w := range ws {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", w.ID, w.URL, strings.Join(w.Events, ","), dash(w.Description), w.CreatedAt.Format(time.RFC3339))
			}
			return tw.Flush()
		},
	}
	ls.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	rm := &cobra.Command{
		Use:   "rm ID",
		Short: "Delete a webhook and its deliveries",
		Args:  exactArgs(1, "a webhook id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			if err := c.DeleteWebhook(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Webhook %s deleted.\n", args[0])
			return nil
		},
	}

	var o client.DeliveryOptions
	deliveries := &cobra.Command{
		Use:   "deliveries [WEBHOOK_ID]",
		Short: "List deliveries, newest first: a webhook's, or all (resume callbacks included)",
		Example: "  hitl webhooks deliveries wh_3kQ9 --status failed\n" +
			"  hitl webhooks deliveries --session deploy-7781",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			if len(args) == 1 {
				o.WebhookID = args[0]
			}
			p, err := c.Deliveries(cmd.Context(), o)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), p.Data)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tKIND\tEVENT\tSTATUS\tATTEMPTS\tLAST\tNEXT\tTO")
			for _, d := range p.Data {
				last := lastOutcome(d)
				next := "-"
				if d.NextAttemptAt != nil {
					next = d.NextAttemptAt.Format(time.RFC3339)
				}
				to := d.URL
				switch d.Kind {
				case hitl.DeliveryNotification:
					to = d.Channel + " " + d.Recipient // a notification goes to someone by a channel
				case hitl.DeliveryBroker:
					to = d.Channel // a publish goes to a broker
				}
				fmt.Fprintf(tw, "%s\t%s\t%d %s\t%s\t%d\t%s\t%s\t%s\n", d.ID, d.Kind, d.EventSeq, d.EventType, d.Status, d.Attempts, dash(last), next, to)
			}
			return tw.Flush()
		},
	}
	df := deliveries.Flags()
	df.StringVar(&o.Status, "status", "", "pending, delivered or failed")
	df.StringVar(&o.Session, "session", "", "only the deliveries of this session's events")
	df.Int64Var(&o.InquiryID, "inquiry", 0, "only the deliveries of this inquiry's events")
	df.IntVar(&o.Limit, "limit", 50, "how many to list (at most 500)")
	df.BoolVar(&asJSON, "json", false, "print JSON")

	retry := &cobra.Command{
		Use:   "retry DELIVERY_ID",
		Short: "Send a delivered or failed delivery again, now (same webhook-id)",
		Args:  exactArgs(1, "a delivery id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			d, err := c.RetryDelivery(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Delivery %s is %s again; it is sent now.\n", d.ID, d.Status)
			return nil
		},
	}

	secret := &cobra.Command{
		Use:   "callback-secret",
		Short: "Print the secret resume callbacks are signed with",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			s, err := c.CallbackSecret(cmd.Context())
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), s)
			return err
		},
	}
	cmd.AddCommand(create, ls, rm, deliveries, retry, secret, webhooksListenCmd())
	return cmd
}

// lastOutcome is a delivery's last attempt in a few words: the network's error, or the
// receiver's status, with the start of what it said when it refused (a callback handler's
// "signature does not verify" is the fix to make, not only a 401).
func lastOutcome(d *hitl.Delivery) string {
	switch {
	case d.LastError != "":
		return d.LastError
	case d.LastStatus == 0:
		return ""
	case d.LastStatus >= 300 && strings.TrimSpace(d.LastResponse) != "":
		return fmt.Sprintf("%d: %s", d.LastStatus, shorten(d.LastResponse, 60))
	}
	return fmt.Sprint(d.LastStatus)
}
