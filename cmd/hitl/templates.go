package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/strictjson"
)

func templatesCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "templates", Short: "Templates that agents ask with: hitl ask --template NAME --var k=v (set and rm: role admin)"}
	var (
		file   string
		asJSON bool
	)
	set := &cobra.Command{
		Use:   "set NAME",
		Short: "Set a template from a JSON file (or stdin): any field of a question, a prompt with {{.var}} placeholders, and vars_schema; replaces what was there",
		Long: `Set a template from a JSON file, or from stdin when --file is - or not given. The JSON holds
any field of a question (request_type, response_schema, options, assigned_to, timeout_seconds,
fallback_policy, ...), a prompt with {{.var}} placeholders (Go text/template syntax without
functions: {{.var}}, {{.var.field}}, {{if .var}}…{{else}}…{{end}}) and, optionally, vars_schema:
the JSON Schema the vars of each question must satisfy. The server checks it all now and
reports every problem with its path.`,
		Example: `  hitl templates set deploy-approval --file deploy-approval.json
  echo '{"prompt":"Deploy {{.version}}?","request_type":"approval"}' | hitl templates set deploy-approval`,
		Args: exactArgs(1, "the template's name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var (
				b   []byte
				err error
			)
			if file == "" || file == "-" {
				b, err = io.ReadAll(cmd.InOrStdin())
			} else {
				b, err = os.ReadFile(file)
			}
			if err != nil {
				return usagef("--file: %v", err)
			}
			// Read as strictly as the server reads it: a misspelt field is an error here too,
			// not a field the client drops on the way.
			var req hitl.TemplateRequest
			if err := strictjson.Unmarshal(b, &req); err != nil {
				return usagef("%s: %v", templateSource(file), err)
			}
			c, err := connect()
			if err != nil {
				return err
			}
			t, created, err := c.PutTemplate(cmd.Context(), args[0], &req)
			if err != nil {
				return withFieldErrors(err)
			}
			what := "replaced"
			if created {
				what = "created"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Template %s %s; ask with it: hitl ask --template %s%s\n", t.Name, what, t.Name, varFlags(t.Prompt))
			return nil
		},
	}
	set.Flags().StringVarP(&file, "file", "f", "", "the template's JSON (default, or -: stdin)")

	ls := &cobra.Command{
		Use:   "ls",
		Short: "List templates",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			ts, err := c.Templates(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), ts)
			}
			if len(ts) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "No templates.")
				return nil
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tTYPE\tUPDATED BY\tPROMPT")
			for _, t := range ts {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, dash(string(t.RequestType)), t.UpdatedBy, shorten(t.Prompt, 60))
			}
			return tw.Flush()
		},
	}
	ls.Flags().BoolVar(&asJSON, "json", false, "print JSON, with every field")

	rm := &cobra.Command{
		Use:   "rm NAME",
		Short: "Delete a template (the questions asked with it stay)",
		Args:  exactArgs(1, "a template's name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			if err := c.DeleteTemplate(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Template %s deleted.\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(set, ls, rm)
	return cmd
}

func templateSource(file string) string {
	if file == "" || file == "-" {
		return "stdin"
	}
	return file
}

// varFlags is a hint of the --var flags a prompt takes: " --var version=…" for each
// {{.version}}, found by a plain look at the text (the server holds the parser).
func varFlags(prompt string) string {
	var b strings.Builder
	seen := map[string]bool{}
	for rest := prompt; ; {
		i := strings.Index(rest, "{{")
		if i < 0 {
			break
		}
		rest = rest[i+2:]
		action, _, _ := strings.Cut(rest, "}}")
		action = strings.TrimSpace(strings.Trim(action, "- "))
		action = strings.TrimSpace(strings.TrimPrefix(action, "if "))
		name, ok := strings.CutPrefix(action, ".")
		if name, _, _ = strings.Cut(name, "."); ok && name != "" && !seen[name] {
			seen[name] = true
			fmt.Fprintf(&b, " --var %s=…", name)
		}
	}
	return b.String()
}

// varsArg turns --var KEY=VALUE flags into the vars object: a value that is JSON is taken as
// that JSON (3, true, {"a":1}, "quoted"), any other as a string (v2.5.0, production).
func varsArg(flags []string) (json.RawMessage, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	vars := map[string]json.RawMessage{}
	for _, kv := range flags {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok || k == "":
			return nil, usagef("--var %q: want NAME=VALUE", kv)
		case vars[k] != nil:
			return nil, usagef("--var %s is given twice", k)
		case json.Valid([]byte(v)):
			vars[k] = json.RawMessage(v)
		default:
			vars[k], _ = json.Marshal(v)
		}
	}
	return json.Marshal(vars)
}
