package main

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// complete asks the shell completion what it offers after args, as a shell does through
// cobra's hidden __complete command: the values (with their descriptions after a tab) and the
// directive, which says whether the shell may offer file names instead.
func complete(t *testing.T, args ...string) ([]string, cobra.ShellCompDirective) {
	t.Helper()
	code, out, errOut := cli(t, append([]string{cobra.ShellCompRequestCmd}, args...)...)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	last := lines[len(lines)-1]
	directive, err := strconv.Atoi(strings.TrimPrefix(last, ":"))
	if code != 0 || !strings.HasPrefix(last, ":") || err != nil {
		t.Fatalf("__complete %q: exit %d, %q %q", args, code, out, errOut)
	}
	return lines[:len(lines)-1], cobra.ShellCompDirective(directive)
}

// values are the completions without their descriptions.
func values(completions []string) []string {
	var out []string
	for _, c := range completions {
		v, _, _ := strings.Cut(c, "\t")
		out = append(out, v)
	}
	return out
}

// The flags that take one of a few words offer those words, from the domain's own lists, and
// never file names.
func TestCompletionOffersTheValuesOfFlags(t *testing.T) {
	var types []string
	for _, rt := range hitl.RequestTypes() {
		types = append(types, string(rt))
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"ask", "Deploy?", "--type", ""}, types},
		{[]string{"ask", "--type", "se"}, []string{"selection"}},
		{[]string{"ls", "--status", ""}, []string{"pending", "answered", "timed-out", "cancelled"}},
		{[]string{"list", "--status", "t"}, []string{"timed-out"}},
		{[]string{"keys", "create", "ann", "--role", ""}, hitl.Roles()},
	} {
		got, directive := complete(t, c.args...)
		if !slices.Equal(values(got), c.want) || directive != cobra.ShellCompDirectiveNoFileComp {
			t.Errorf("completing %q: %q, directive %d; want %q and no file names (%d)", c.args, got, directive, c.want, cobra.ShellCompDirectiveNoFileComp)
		}
	}
	// Each role is offered with what it lets a key do.
	roles, _ := complete(t, "keys", "create", "ann", "--role", "")
	if !slices.Contains(roles, "responder\tanswers the questions assigned to it or its groups") {
		t.Errorf("the roles offered: %q", roles)
	}
	for _, r := range hitl.Roles() {
		if roleDoes[r] == "" {
			t.Errorf("the role %s has no words for what it lets a key do", r)
		}
	}
	// Every status offered is one --status takes.
	for _, name := range statusNames() {
		if _, ok := statusNamed(name); !ok {
			t.Errorf("--status offers %q but refuses it", name)
		}
	}
}

// The commands that take an inquiry id offer the pending inquiries the caller may see, asked
// from the server, with their prompts; respond then offers the inquiry's options.
func TestCompletionOffersPendingInquiryIDs(t *testing.T) {
	admin, _ := startServer(t)
	ctx := context.Background()
	ask := func(req hitl.InquiryRequest) int64 {
		t.Helper()
		inq, _, err := admin.CreateInquiry(ctx, &req, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return inq.ID
	}
	venue := ask(hitl.InquiryRequest{Prompt: "Which venue?", Options: []hitl.Option{{Value: "hall", Label: "The hall"}, {Value: "garden"}, {Value: "roof"}}})
	deploy := ask(hitl.InquiryRequest{Prompt: "Deploy v2.5.0?", RequestType: hitl.RequestApproval, AssignedTo: []string{"group:ops"}})
	notOlgas := ask(hitl.InquiryRequest{Prompt: "Bob's question", AssignedTo: []string{"bob"}})
	answered := ask(hitl.InquiryRequest{Prompt: "Done?"})
	if _, err := admin.Respond(ctx, answered, []byte(`"yes"`), ""); err != nil {
		t.Fatal(err)
	}
	newestFirst := []string{fmt.Sprintf("%d\tBob's question", notOlgas), fmt.Sprintf("%d\tDeploy v2.5.0?", deploy), fmt.Sprintf("%d\tWhich venue?", venue)}
	for _, command := range []string{"show", "respond", "cancel", "wait", "claim", "decline"} {
		got, directive := complete(t, command, "")
		if !slices.Equal(got, newestFirst) || directive != cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveKeepOrder {
			t.Errorf("completing %s's id: %q, directive %d; want %q", command, got, directive, newestFirst)
		}
	}
	if got, _ := complete(t, "show", strconv.FormatInt(venue, 10)[:1]); !slices.Contains(values(got), strconv.FormatInt(venue, 10)) {
		t.Errorf("completing the start of an id: %q", got)
	}
	if got, directive := complete(t, "show", strconv.FormatInt(venue, 10), ""); len(got) != 0 || directive != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("after show's one id: %q, directive %d", got, directive)
	}
	// The answer to a selection is one of its options.
	if got, _ := complete(t, "respond", strconv.FormatInt(venue, 10), ""); !slices.Equal(got, []string{"hall\tThe hall", "garden", "roof"}) {
		t.Errorf("completing respond's answer: %q", got)
	}

	// A responder is offered what it may see: its group's inquiry and the unassigned one, not
	// Bob's.
	k, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "olga", Roles: []string{hitl.RoleResponder}, Groups: []string{"ops"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HITL_TOKEN", k.Token)
	if got, _ := complete(t, "respond", ""); !slices.Equal(got, newestFirst[1:]) {
		t.Errorf("completing olga's ids: %q, want %q", got, newestFirst[1:])
	}

	// A token the server refuses, or a server that does not answer, gets nothing offered, and
	// no file names either.
	t.Setenv("HITL_TOKEN", "hitl_nobodys")
	if got, directive := complete(t, "show", ""); len(got) != 0 || directive != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("with a refused token: %q, directive %d", got, directive)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HITL_URL", "http://"+l.Addr().String())
	l.Close()
	for _, args := range [][]string{{"show", ""}, {"respond", strconv.FormatInt(venue, 10), ""}} {
		if got, directive := complete(t, args...); len(got) != 0 || directive != cobra.ShellCompDirectiveNoFileComp {
			t.Errorf("completing %q with no server: %q, directive %d", args, got, directive)
		}
	}
}

// The root help names every role with what it lets a key do, in the words the commands'
// help uses: (role: admin), never "admins" or "an admin's".
func TestHelpNamesRolesOneWay(t *testing.T) {
	code, out, _ := cli(t, "--help")
	if code != 0 || !strings.Contains(out, "Roles: a key holds one or more of\n  agent      asks questions") || !strings.Contains(out, "keys        Manage API keys (role: admin)") {
		t.Fatalf("hitl --help: %d %q", code, out)
	}
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		help := cmd.Short + "\n" + cmd.Long
		cmd.Flags().VisitAll(func(f *pflag.Flag) { help += "\n" + f.Usage })
		for _, word := range []string{"admins", "an admin", "(admin)", "responders:", "a responder's", "admin's"} {
			if strings.Contains(help, word) {
				t.Errorf("%s's help says %q: say (role: admin), with the role admin, or role responder", cmd.CommandPath(), word)
			}
		}
		for _, c := range cmd.Commands() {
			walk(c)
		}
	}
	walk(newRoot())
}
