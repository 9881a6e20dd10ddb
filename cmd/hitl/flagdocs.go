package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The configuration reference (docs/configuration.md) is written from the commands' own flag
// definitions, so that it names every flag and variable there is and cannot drift from them:
// a test compares the page with what this writes (cmd/hitl/flagdocs_test.go).

// envInUsage finds the HITL_* variables a flag's help names, like "(HITL_ADDR)".
var envInUsage = regexp.MustCompile(`\bHITL_[A-Z0-9_]+\b`)

// unflagged are the variables hitl reads that no flag sets.
var unflagged = []struct{ name, what string }{
	{"HITL_URL", "the server the client commands (ask, ls, respond, ...) talk to; default: the credentials file's, else http://127.0.0.1:7447"},
	{"HITL_TOKEN", "the token the client commands send; default: the credentials file's"},
	{"HITL_CREDENTIALS", "the credentials file, where `hitl serve` writes the URL and the first admin token for the commands on this machine (a later start moves the URL on only when the token there is one of its keys; give each server on a machine its own file); default: $XDG_CONFIG_HOME/hitl/credentials.json"},
	{"HITL_ADMIN_TOKEN", "hitl serve: the admin token (at least 16 characters); unset, the first start creates an admin key and shows its token once"},
	{"HITL_CALLBACK_SECRET", "hitl serve: the secret that signs resume callbacks (whsec_...); unset, one is generated at the first start and kept in the database"},
	{"HITL_AUDIT_KEY", "hitl serve: the Ed25519 seed (32 bytes in base64) that signs the audit chain's heads; unset, one is generated and kept in the database"},
	{"HITL_SECRET_KEY", "hitl serve, secrets rotate: encrypts the secrets kept in the database, the path of a key file or 32 bytes in base64; unset, they are stored in plaintext"},
}

// writeFlagReference writes the configuration reference of root's commands in Markdown.
func writeFlagReference(w io.Writer, root *cobra.Command) {
	fmt.Fprint(w, `# Configuration

Every flag of every hitl command, with the environment variable that sets it where there is
one (a flag given on the command line wins over its variable). This page is generated from
the flags' definitions; a test keeps it in step with them. `+"`hitl COMMAND --help`"+` says the same.

`)
	fmt.Fprint(w, `## Variables without a flag

Secrets are read from the environment only, so that other users of the machine cannot see them
in the process list; the client commands find their server the same way.

| variable | what it is |
|---|---|
`)
	for _, v := range unflagged {
		fmt.Fprintf(w, "| `%s` | %s |\n", v.name, cell(v.what))
	}
	fmt.Fprintln(w)
	for _, cmd := range commandsOf(root) {
		writeCommandFlags(w, cmd, cmd.LocalFlags())
	}
}

// commandsOf lists root's commands, depth first in the order help shows them, without help
// and completion.
func commandsOf(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		out = append(out, c)
		out = append(out, commandsOf(c)...)
	}
	return out
}

// writeCommandFlags writes one command's heading and the table of its flags.
func writeCommandFlags(w io.Writer, cmd *cobra.Command, flags *pflag.FlagSet) {
	var rows []string
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		name := "`--" + f.Name + "`"
		if f.Shorthand != "" {
			name = "`-" + f.Shorthand + "`, " + name
		}
		vars := strings.Join(envInUsage.FindAllString(f.Usage, -1), ", ")
		if vars != "" {
			vars = "`" + strings.ReplaceAll(vars, ", ", "`, `") + "`"
		}
		def := f.DefValue
		switch {
		case def == "" || def == "[]" || f.Value.Type() == "bool" && def == "false",
			f.Value.Type() == "duration" && (def == "0" || def == "0s"): // none
			def = ""
		default:
			def = "`" + def + "`"
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", name, vars, def, cell(f.Usage)))
	})
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "## %s\n\n%s.\n\n", cmd.CommandPath(), strings.TrimSuffix(cmd.Short, "."))
	fmt.Fprintln(w, "| flag | variable | default | what it does |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintln(w, r)
	}
	fmt.Fprintln(w)
}

// cell is text fit for a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
