package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/wording"
)

// Shell completion offers the values a flag or an argument takes, never file names: none of
// hitl's completed flags and arguments is a file.

// completionTimeout bounds what completing an inquiry id asks the server: a shell waits for
// the answer before it draws anything, so a slow or absent server must cost little.
const completionTimeout = 2 * time.Second

// roleDoes says what each role lets a key do, as the help texts and the completion of --role
// say it; a test checks that every role of the domain has its words.
var roleDoes = map[string]string{
	hitl.RoleAgent:     "asks questions and waits for their answers",
	hitl.RoleResponder: "answers the questions assigned to it or its groups",
	hitl.RoleAdmin:     "may do everything",
	hitl.RoleRelay:     "carries other people's answers, in their name (a chat bot, an operator console)",
}

// rolesHelp names every role with what it lets a key do, for the root command's help.
func rolesHelp() string {
	var b strings.Builder
	b.WriteString("Roles: a key holds one or more of\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, r := range hitl.Roles() {
		fmt.Fprintf(tw, "  %s\t%s\n", r, roleDoes[r])
	}
	tw.Flush()
	b.WriteString("A command that needs a role says so, like (role: admin).")
	return b.String()
}

// orList joins words as a sentence lists alternatives: "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// requestTypeNames are the request types --type takes.
func requestTypeNames() []string {
	var names []string
	for _, t := range hitl.RequestTypes() {
		names = append(names, string(t))
	}
	return names
}

// statusNames are the inquiry statuses as people name them on the command line: pending,
// answered, timed-out, cancelled (statusNamed reads them back).
func statusNames() []string {
	var names []string
	for _, s := range hitl.Statuses() {
		names = append(names, strings.ReplaceAll(wording.Status(s), " ", "-"))
	}
	return names
}

// completeWords completes a flag from a fixed list of values, each with its description when
// descriptions has one.
func completeWords(values []string, descriptions map[string]string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, v := range values {
			if strings.HasPrefix(v, toComplete) {
				out = append(out, withDescription(v, descriptions[v]))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeInquiryID completes the first argument of the commands that take an inquiry id:
// the pending inquiries the caller may see, newest first, each with its prompt. A server that
// does not answer in time, or refuses, gets nothing offered.
func completeInquiryID(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	c, err := connect()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
	defer cancel()
	page, err := c.Inquiries(ctx, client.ListOptions{Status: string(hitl.StatusPending), Limit: 100})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, inq := range page.Data {
		if id := strconv.FormatInt(inq.ID, 10); strings.HasPrefix(id, toComplete) {
			out = append(out, withDescription(id, shorten(inq.Prompt, 60)))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
}

// completeAnswer completes hitl respond's arguments: the inquiry id, then that inquiry's
// options, which is what the answer to a selection is.
func completeAnswer(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) != 1 {
		return completeInquiryID(cmd, args, toComplete)
	}
	id, c, err := inquiryClient(args[0])
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
	defer cancel()
	inq, err := c.Inquiry(ctx, id)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, o := range inq.Options {
		if strings.HasPrefix(o.Value, toComplete) {
			out = append(out, withDescription(o.Value, o.Label))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
}

// withDescription is a completion with its description, when it has one: cobra would show an
// empty one as a lone separator.
func withDescription(value, description string) cobra.Completion {
	if description == "" {
		return value
	}
	return cobra.CompletionWithDesc(value, description)
}
