// Command hitl is the human-in-the-loop server and its command-line client: `hitl serve`
// runs the server; ask, wait, ls, show, respond, decline, cancel, keys and whoami talk to it; bench
// measures it; version says which hitl this is.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/buildinfo"
)

// Exit statuses, documented in the README.
const (
	exitOK        = 0
	exitError     = 1
	exitUsage     = 2
	exitTimeout   = 3
	exitCancelled = 4
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// usageError is a mistake in how the command was called.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// run is the whole program, so tests can run it as a user would.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var (
		ue usageError
		te *client.TimeoutError
		ce *client.CancelledError
		se signalError
	)
	switch {
	case errors.As(err, &se):
		fmt.Fprintln(stderr, "hitl:", err)
		return se.exitCode()
	case errors.As(err, &te):
		fmt.Fprintln(stderr, "hitl:", err)
		return exitTimeout
	case errors.As(err, &ce):
		fmt.Fprintln(stderr, "hitl:", err)
		return exitCancelled
	case errors.As(err, &ue), strings.HasPrefix(err.Error(), "unknown command"), strings.HasPrefix(err.Error(), "unknown flag"):
		fmt.Fprintln(stderr, "hitl:", err)
		// The help of the command that was called, which is where the mistake is.
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		return exitUsage
	default:
		if msg, ok := unreachable(err); ok {
			fmt.Fprintln(stderr, "hitl:", msg)
			return exitError
		}
		if msg, ok := refusedToken(err); ok {
			fmt.Fprintln(stderr, "hitl:", msg)
			return exitError
		}
		fmt.Fprintln(stderr, "hitl:", err)
		return exitError
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "hitl",
		Short:         "Human-in-the-loop server: agents ask, humans answer, agents resume",
		Long:          "Human-in-the-loop server: agents ask, humans answer, agents resume.\n\n" + rolesHelp(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Get().String(),
	}
	root.SetVersionTemplate(versionLine() + "\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(serveCmd(), migrateCmd(), tailCmd(), askCmd(), waitCmd(), lsCmd(), showCmd(), respondCmd(), declineCmd(), claimCmd(), cancelCmd(), keysCmd(), webhooksCmd(), peopleCmd(), groupsCmd(), templatesCmd(), rulesCmd(), whoamiCmd(), mcpCmd(), benchCmd(), auditCmd(), backupCmd(), restoreCmd(), purgeCmd(), secretsCmd(), statsCmd(), receiptCmd(), versionCmd())
	for _, group := range root.Commands() {
		refuseUnknownSubcommands(group)
	}
	addLongNames(root)
	return root
}

// longNames are the words people type for the short ones: hitl list, hitl people delete.
var longNames = map[string]string{"ls": "list", "rm": "delete"}

// addLongNames lets every ls and rm command, at any depth, be called by its long name too.
func addLongNames(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		if long, ok := longNames[c.Name()]; ok {
			c.Aliases = append(c.Aliases, long)
		}
		addLongNames(c)
	}
}

// refuseUnknownSubcommands makes a group of commands (hitl audit, hitl webhooks, ...) say that
// a subcommand it does not have is unknown, with a usage error: cobra would show the group's
// help and exit 0, as if `hitl audit verfy` had worked.
func refuseUnknownSubcommands(group *cobra.Command) {
	if !group.HasSubCommands() || group.Runnable() {
		return
	}
	group.Args = cobra.ArbitraryArgs
	group.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("unknown command %q for %q", args[0], cmd.CommandPath())
		}
		return cmd.Help()
	}
}

// versionLine is what `hitl version` and `hitl --version` print.
func versionLine() string { return "hitl " + buildinfo.Get().String() }

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the VCS revision and the Go toolchain of this hitl",
		Long: `Print the module version and the VCS revision hitl was built from, and the Go toolchain
that built it. A build that recorded none (go run, go test, -buildvcs=false) says "(devel)" and
"revision unknown". The server reports the same in its hitl_build_info metric and as its MCP
server version.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), versionLine())
			return nil
		},
	}
}

// exactArgs is cobra.ExactArgs that reports a usage error.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) == n:
		case len(args) == 0:
			return usagef("expected %s", what)
		case len(args) == 1:
			return usagef("expected %s, got 1 argument", what)
		default:
			return usagef("expected %s, got %d arguments", what, len(args))
		}
		return nil
	}
}

// isTerminal reports whether a reader or writer is a terminal: a character device is not
// enough (/dev/null is one), so ask the terminal driver.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}

// signalError: a signal stopped the command before it did what it was asked.
type signalError struct {
	sig  syscall.Signal
	what string // what was not done
}

// signalNames are the signals that stop a form.
var signalNames = map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}

func (e signalError) Error() string {
	return fmt.Sprintf("stopped by %s: %s", signalNames[e.sig], e.what)
}

// exitCode is the shell's convention: 128 + the signal's number.
func (e signalError) exitCode() int { return 128 + int(e.sig) }

// untilSignal runs fn with a context that a SIGINT, SIGTERM or SIGHUP ends, and says which
// signal ended it, 0 for none: the signal is then the command's to handle, not the process's
// to die of, so that the command can say what it left undone.
func untilSignal(ctx context.Context, fn func(context.Context) error) (syscall.Signal, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	caught := make(chan syscall.Signal, 1)
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case s := <-signals:
			caught <- s.(syscall.Signal)
			cancel()
		case <-stop:
		}
	}()
	err := fn(ctx)
	close(stop)
	<-watched
	select {
	case s := <-caught:
		return s, err
	default:
		return 0, err
	}
}
