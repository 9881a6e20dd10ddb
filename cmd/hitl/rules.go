package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl"
)

// rulesCmd lists, adds and revokes standing approval rules (docs/rules.md).
func rulesCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "rules", Short: "Standing approvals: rules that approve covered tool calls and approvals as they are asked (role: admin)"}
	var asJSON bool
	ls := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the rules: every rule with the role admin, your own with the role responder",
		Args:    exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			rules, err := c.Rules(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), rules)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tAPPROVES\tAGENT\tARGS\tAUTHOR\tEXPIRES\tSTATE\tMATCHED")
			now := time.Now()
			for _, r := range rules {
				what := "tool " + r.Tool
				if r.Template != "" {
					what = "template " + r.Template
				}
				args := "any"
				if len(r.Args) > 0 || len(r.ArgsSchema) > 0 {
					args = string(r.Args) + string(r.ArgsSchema)
				}
				state := "active"
				switch {
				case r.RevokedAt != nil:
					state = "revoked"
				case !r.ActiveAt(now):
					state = "expired"
				case r.Shadow:
					state = "shadow"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", r.ID, what, dash(r.Agent), args, r.Author, r.ExpiresAt.Format(time.RFC3339), state, r.Matched)
			}
			return tw.Flush()
		},
	}
	ls.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	var req hitl.RuleRequest
	var args, schema, lasts string
	add := &cobra.Command{
		Use:   "add",
		Short: "Make a rule: what it approves (--tool or --template), for which agent, which arguments, for how long",
		Example: "  hitl rules add --tool deploy --agent ci-bot --args '{\"env\":\"staging\"}' --for 8h\n" +
			"  hitl rules add --template release --for 2d --shadow",
		Args: exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := hitl.ParseDuration(lasts)
			if err != nil || d <= 0 {
				return fmt.Errorf("--for %q is not a duration like 8h or 2d", lasts)
			}
			req.ExpiresAt = time.Now().Add(time.Duration(d) * time.Second).UTC()
			if args != "" {
				if !json.Valid([]byte(args)) {
					return fmt.Errorf("--args is not JSON: give an object like {\"env\":\"staging\"}")
				}
				req.Args = json.RawMessage(args)
			}
			if schema != "" {
				if !json.Valid([]byte(schema)) {
					return fmt.Errorf("--args-schema is not JSON: give a JSON Schema like {\"properties\":{\"replicas\":{\"maximum\":3}}}")
				}
				req.ArgsSchema = json.RawMessage(schema)
			}
			c, err := connect()
			if err != nil {
				return err
			}
			r, err := c.CreateRule(cmd.Context(), &req)
			if err != nil {
				return withFieldErrors(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), r.ID)
			fmt.Fprintf(cmd.ErrOrStderr(), "Rule %s approves until %s.\n", r.ID, r.ExpiresAt.Format(time.RFC3339))
			return nil
		},
	}
	add.Flags().StringVar(&req.Tool, "tool", "", "the tool call's name it approves")
	add.Flags().StringVar(&req.Template, "template", "", "the template whose approvals it approves")
	add.Flags().StringVar(&req.Agent, "agent", "", "the asking agent (default: any)")
	add.Flags().StringVar(&args, "args", "", "exact values the arguments must hold, a JSON object")
	add.Flags().StringVar(&schema, "args-schema", "", "a JSON Schema the arguments must satisfy")
	add.Flags().StringVar(&lasts, "for", "", "how long it approves, like 8h or 2d (required)")
	add.Flags().BoolVar(&req.Shadow, "shadow", false, "approve nothing; record which inquiries it would have approved")
	add.MarkFlagRequired("for")

	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a rule: it stops at once, on every node",
		Args:  exactArgs(1, "a rule's id"),
		RunE: func(cmd *cobra.Command, a []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			if _, err := c.RevokeRule(cmd.Context(), a[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Rule %s revoked.\n", a[0])
			return nil
		},
	}
	cmd.AddCommand(ls, add, revoke)
	return cmd
}
