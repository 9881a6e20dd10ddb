package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/credentials"
	"github.com/hitl-dev/hitl/internal/wording"
	"github.com/hitl-dev/hitl/schema"
)

// defaultURL is where a server started with no flags listens.
const defaultURL = "http://127.0.0.1:7447"

// target is the server the commands talk to, and where its address came from: people whose
// server does not answer need to know which setting to fix.
type target struct {
	URL, Token string
	From       string // "HITL_URL", "the credentials file PATH" or "the default"
	TokenFrom  string // "HITL_TOKEN" or "the credentials file PATH"
}

// findTarget reads HITL_URL and HITL_TOKEN, else the credentials file.
func findTarget() (target, error) {
	f, err := credentials.Load()
	if err != nil && (os.Getenv("HITL_URL") == "" || os.Getenv("HITL_TOKEN") == "") {
		return target{}, err
	}
	path, _ := credentials.Path()
	t := target{URL: os.Getenv("HITL_URL"), Token: os.Getenv("HITL_TOKEN"), From: "HITL_URL", TokenFrom: "HITL_TOKEN"}
	if t.Token == "" {
		t.Token, t.TokenFrom = f.Token, "the credentials file "+path
	}
	switch {
	case t.URL != "":
	case f.URL != "":
		t.URL, t.From = f.URL, "the credentials file "+path
	default:
		t.URL, t.From = defaultURL, "the default"
	}
	return t, nil
}

// connect returns a client for the target.
func connect() (*client.Client, error) {
	t, err := findTarget()
	if err != nil {
		return nil, err
	}
	if t.Token == "" {
		return nil, errors.New("no token: set HITL_TOKEN, or run 'hitl serve' on this machine once to write the credentials file")
	}
	return client.New(t.URL, t.Token, nil), nil
}

// unreachable says in words that the server did not answer, when that is what err is.
func unreachable(err error) (string, bool) {
	var (
		ue *client.UnreachableError
		oe *net.OpError
	)
	if !errors.As(err, &ue) && !(errors.As(err, &oe) && oe.Op == "dial") {
		return "", false
	}
	t, terr := findTarget()
	if terr != nil {
		return "", false
	}
	return fmt.Sprintf("cannot reach the hitl server at %s — is `hitl serve` running? (the address is from %s; set HITL_URL to use another)", t.URL, t.From), true
}

// refusedToken says in words that the server does not know the token, when that is what err
// is, and where the token came from: the setting to fix. A key that lacks the role says where
// its token came from too: an agent's key left in HITL_TOKEN is the usual reason an admin's
// command is refused.
func refusedToken(err error) (string, bool) {
	var ce *client.Error
	if !errors.As(err, &ce) || (ce.StatusCode != http.StatusUnauthorized && ce.StatusCode != http.StatusForbidden) {
		return "", false
	}
	t, terr := findTarget()
	if terr != nil {
		return "", false
	}
	if ce.StatusCode == http.StatusForbidden {
		return fmt.Sprintf("%s (the token is from %s; set HITL_TOKEN to use another key)", ce.Detail, t.TokenFrom), true
	}
	return fmt.Sprintf("the hitl server at %s refused the token: it is unknown or revoked (the token is from %s; set HITL_TOKEN to use another)", t.URL, t.TokenFrom), true
}

// jsonArg reads a JSON value given inline or as @file; what names it in messages ("--schema").
func jsonArg(what, v string) (json.RawMessage, error) {
	if v == "" {
		return nil, nil
	}
	b := []byte(v)
	if name, ok := strings.CutPrefix(v, "@"); ok {
		var err error
		if b, err = os.ReadFile(name); err != nil {
			return nil, usagef("%s: %v", what, err)
		}
	}
	if !json.Valid(b) {
		return nil, usagef("%s: not valid JSON", what)
	}
	return bytes.TrimSpace(b), nil
}

// schemaArg reads --schema and compiles it, so that a mistake in it is the flag's: the one
// problem the person must fix, where it is in the schema.
func schemaArg(v string) (json.RawMessage, error) {
	doc, err := jsonArg("--schema", v)
	if err != nil || doc == nil {
		return doc, err
	}
	if _, err := schema.Compile(doc); err != nil {
		// Compile says "invalid schema: PATH: PROBLEM; PATH: PROBLEM" (the alternatives the
		// validator tried); the first names the mistake, the others only other ways to be right.
		problem, _ := strings.CutPrefix(err.Error(), "invalid schema: ")
		problem, _, _ = strings.Cut(problem, "; ")
		if path, what, ok := strings.Cut(problem, ": "); ok && (path == "" || strings.HasPrefix(path, "/")) {
			problem = "at " + cmp.Or(path, "the top") + ": " + what
		}
		return nil, usagef("--schema is not a valid JSON Schema: %s", problem)
	}
	return doc, nil
}

// answerArg reads an answer given as JSON, as @file, or as a bare word that is not JSON,
// taken as a string: --fallback garden is "garden", as hitl respond 7 garden is.
func answerArg(what, v string) (json.RawMessage, error) {
	if v == "" || strings.HasPrefix(v, "@") || json.Valid([]byte(v)) {
		return jsonArg(what, v)
	}
	b, err := json.Marshal(v)
	return b, err
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// inquiryClient reads an inquiry id argument and connects.
func inquiryClient(arg string) (int64, *client.Client, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return 0, nil, usagef("%q is not an inquiry id", arg)
	}
	c, err := connect()
	return id, c, err
}

// fetchInquiry reads an inquiry id argument, connects and gets the inquiry.
func fetchInquiry(ctx context.Context, arg string) (*hitl.Inquiry, *client.Client, error) {
	id, c, err := inquiryClient(arg)
	if err != nil {
		return nil, nil, err
	}
	inq, err := c.Inquiry(ctx, id)
	return inq, c, err
}

func askCmd() *cobra.Command {
	var (
		req                                  hitl.InquiryRequest
		reqType, schema, ctxJSON, policy, fb string
		options, metadata                    []string
		timeout                              time.Duration
		vars                                 []string
		urgent                               bool
	)
	cmd := &cobra.Command{
		Use:   "ask [PROMPT]",
		Short: "Ask a human and wait for the answer, printed as JSON on stdout (role: agent)",
		Long: `Ask a human a question and block until it is answered, timed out or cancelled.
The answer is printed as JSON on stdout, so a script or CI job can gate on a human.

Exit status: 0 answered (or the fallback applied; stderr says so), 3 timed out,
4 cancelled, 1 any other error, 2 bad usage.

With --template, the question is made from a template (hitl templates ls; role admin sets them):
each --var NAME=VALUE fills its {{.NAME}} placeholders (a VALUE that is JSON is taken as
JSON: 3, true, {"a":1}, "quoted" with its quotes; any other as a string), and the flags given replace
the template's fields. The prompt is then optional: given, it replaces the template's.`,
		Example: `  hitl ask "Deploy v2.5.0 to production?" --type approval --timeout 30m
  hitl ask "Which venue?" --option Hall --option Garden --option Roof
  hitl ask "Release notes?" --schema '{"type":"string","minLength":20}'
  hitl ask --template deploy-approval --var version=v2.5.0 --var service=api`,
		Args: func(cmd *cobra.Command, args []string) error {
			if req.Template != "" && len(args) == 0 {
				return nil
			}
			return exactArgs(1, "the prompt (or --template NAME)")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				req.Prompt = args[0]
			}
			req.RequestType = hitl.RequestType(reqType)
			if reqType != "" && !req.RequestType.Valid() {
				return usagef("--type must be %s, not %q", orList(requestTypeNames()), reqType)
			}
			if len(options) == 1 {
				return usagef("--option: a selection needs at least two options to choose from; give --option once for each")
			}
			req.FallbackPolicy = hitl.FallbackPolicy(policy)
			if urgent {
				req.Priority = hitl.PriorityUrgent
			}
			for _, o := range options {
				req.Options = append(req.Options, hitl.Option{Value: o})
			}
			var err error
			if req.ResponseSchema, err = schemaArg(schema); err != nil {
				return err
			}
			if req.Context, err = jsonArg("--context", ctxJSON); err != nil {
				return err
			}
			if req.FallbackValue, err = answerArg("--fallback", fb); err != nil {
				return err
			}
			if len(vars) > 0 && req.Template == "" {
				return usagef("--var fills a template's placeholders: give --template NAME")
			}
			if req.Vars, err = varsArg(vars); err != nil {
				return err
			}
			if timeout < 0 {
				return usagef("--timeout must be positive")
			}
			if timeout > 0 {
				secs := int64(timeout.Round(time.Second) / time.Second)
				req.TimeoutSeconds = &secs
			}
			for _, kv := range metadata {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return usagef("--metadata %q: want KEY=VALUE", kv)
				}
				if req.Metadata == nil {
					req.Metadata = map[string]string{}
				}
				req.Metadata[k] = v
			}
			c, err := connect()
			if err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			stopSpinner := func() {}
			var (
				asked int64
				inq   *hitl.Inquiry
			)
			sig, err := untilSignal(cmd.Context(), func(ctx context.Context) (err error) {
				inq, err = c.Ask(ctx, &req, client.AskOptions{GiveUpAfter: c.GiveUpAfter, OnCreated: func(inq *hitl.Inquiry) {
					asked = inq.ID
					if inq.Joined != nil {
						// A joined inquiry cannot be answered itself (409): point at the one people answer.
						primary := *inq
						primary.ID = *inq.Joined
						fmt.Fprintf(stderr, "Asked inquiry %d; it joined inquiry %d, which asks the same question: waiting for its answer (hitl show %d; %s).\n", inq.ID, primary.ID, primary.ID, answerHint(&primary))
					} else {
						fmt.Fprintf(stderr, "Asked inquiry %d; waiting for an answer (hitl show %d; %s).\n", inq.ID, inq.ID, answerHint(inq))
					}
					if isTerminal(stderr) {
						stopSpinner = spinner(stderr, inq.ID, inq.TimeoutAt)
					}
				}})
				return err
			})
			stopSpinner()
			switch {
			case sig != 0 && asked == 0:
				return signalError{sig: sig, what: "stopped before the server said the question was asked (hitl ls --mine shows whether it was)"}
			case sig != 0:
				return stillPending(sig, asked)
			case err != nil:
				return err
			}
			return printAnswer(cmd, inq)
		},
	}
	f := cmd.Flags()
	f.StringVar(&reqType, "type", "", orList(requestTypeNames())+" (default: selection with options, else input)")
	f.StringArrayVar(&options, "option", nil, "an option to choose from (repeat; at least 2)")
	f.BoolVar(&req.Multiple, "multiple", false, "allow choosing several options")
	f.StringVar(&schema, "schema", "", "JSON Schema of the answer, inline or @file")
	f.StringVar(&ctxJSON, "context", "", "context for the human as JSON, inline or @file")
	f.StringVar(&req.Session, "session", "", "session (agent run) key")
	f.StringVar(&req.Origin, "origin", "", "who is asking (agent name)")
	f.StringArrayVar((*[]string)(&req.AssignedTo), "assign", nil, "who may answer: a name or group:NAME (repeat)")
	f.StringVar(&req.ChannelHint, "channel", "", "channel hint (slack, email, ...)")
	f.StringArrayVar(&req.Notify, "notify", nil, "notify only by this channel: email or slack (repeat; default: every channel of the recipients)")
	durationVar(f, &timeout, "timeout", 0, "deadline from now, like 30m or 2d (none by default)")
	f.Var(durationText{&req.RemindEvery}, "remind-every", "remind the recipients at this interval while nobody answers, like 30m (at least 1m)")
	f.Var(durationText{&req.EscalateAfter}, "escalate-after", "after this long without an answer, like 2h, add the --escalate-to people as assignees")
	f.StringArrayVar((*[]string)(&req.EscalateTo), "escalate-to", nil, "who to add on escalation: a name or group:NAME (repeat)")
	f.BoolVar(&urgent, "urgent", false, "remind and escalate at any hour, not only in the working hours of the people reached")
	f.StringVar(&policy, "fallback-policy", "", "fail, complete_with_fallback or use_default_and_continue")
	f.StringVar(&fb, "fallback", "", "the answer used when the deadline passes under a fallback policy: JSON, @file, or a bare word taken as a string")
	f.BoolVar(&req.Exclusive, "exclusive", false, "refuse if the session already has a pending inquiry")
	f.StringArrayVar(&metadata, "metadata", nil, "KEY=VALUE for filtering (repeat)")
	f.StringVar(&req.Template, "template", "", "ask with this template (hitl templates ls); the prompt is then optional")
	f.StringArrayVar(&vars, "var", nil, "NAME=VALUE for the template's {{.NAME}} (repeat; VALUE is JSON when it parses as JSON, else a string)")
	f.StringVar(&req.DedupKey, "dedup-key", "", "join a pending inquiry with this key that asks the same question, instead of asking people again (docs/dedup.md)")
	f.BoolVar(&req.Dedup, "dedup", false, "with --template: join a pending inquiry made from the same template and vars")
	cmd.RegisterFlagCompletionFunc("type", completeWords(requestTypeNames(), nil))
	return cmd
}

// stillPending is the error of a wait for inquiry id that a signal stopped: the question is
// still open, and the person needs to know how to withdraw it or wait for it again.
func stillPending(sig syscall.Signal, id int64) error {
	return signalError{sig: sig, what: fmt.Sprintf("inquiry %d is still pending: withdraw it with 'hitl cancel %d', or wait for its answer again with 'hitl wait %d'", id, id, id)}
}

// printAnswer prints a resolved inquiry's answer as JSON on stdout, then who gave it on
// stderr: on a terminal the note reads as the answer's caption.
func printAnswer(cmd *cobra.Command, inq *hitl.Inquiry) error {
	if _, err := fmt.Fprintln(cmd.OutOrStdout(), string(inq.Response)); err != nil {
		return err
	}
	if inq.FallbackApplied {
		fmt.Fprintln(cmd.ErrOrStderr(), "Nobody answered by the deadline: this is the fallback value.")
	} else if inq.RespondedBy != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "Answered by %s.\n", *inq.RespondedBy)
	}
	return nil
}

func waitCmd() *cobra.Command {
	return &cobra.Command{
		Use:               "wait ID",
		ValidArgsFunction: completeInquiryID,
		Short:             "Wait for an inquiry asked before, and print its answer as hitl ask does",
		Long: `Wait until an inquiry is answered, timed out or cancelled, as hitl ask does once it has
asked: the answer is printed as JSON on stdout, with the same exit statuses (0 answered or the
fallback applied, 3 timed out, 4 cancelled). For a hitl ask stopped by Ctrl-C, whose inquiry
is still pending, or an inquiry an agent asked.`,
		Example: "  hitl wait 7",
		Args:    exactArgs(1, "an inquiry id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			inq, c, err := fetchInquiry(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			id := inq.ID
			stderr := cmd.ErrOrStderr()
			if inq.Status == hitl.StatusPending {
				fmt.Fprintf(stderr, "Waiting for an answer to inquiry %d (hitl show %d; %s).\n", id, id, answerHint(inq))
				stopSpinner := func() {}
				if isTerminal(stderr) {
					stopSpinner = spinner(stderr, id, inq.TimeoutAt)
				}
				sig, err := untilSignal(cmd.Context(), func(ctx context.Context) (err error) {
					inq, err = c.Await(ctx, id)
					return err
				})
				stopSpinner()
				if sig != 0 {
					return stillPending(sig, id)
				}
				if err != nil {
					return err
				}
			} else if err := client.Outcome(inq); err != nil {
				return err
			}
			return printAnswer(cmd, inq)
		},
	}
}

func lsCmd() *cobra.Command {
	var (
		o      client.ListOptions
		mine   bool
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List inquiries you may see, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if mine {
				o.AssignedTo = []string{"me"}
			}
			status, ok := statusNamed(o.Status)
			if !ok {
				return usagef("--status %q: want %s", o.Status, orList(statusNames()))
			}
			o.Status = string(status)
			c, err := connect()
			if err != nil {
				return err
			}
			page, err := c.Inquiries(cmd.Context(), o)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return printJSON(out, page)
			}
			if len(page.Data) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "No inquiries.")
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATUS\tTYPE\tAGE\tSESSION\tPROMPT")
			for _, inq := range page.Data {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", inq.ID, wording.Status(inq.Status), inq.RequestType, age(inq.CreatedAt), dash(inq.Session), shorten(inq.Prompt, 60))
			}
			return tw.Flush()
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Status, "status", "", orList(statusNames())+" (or the API's responded, timeout)")
	f.StringVar(&o.Session, "session", "", "only this session")
	f.BoolVar(&mine, "mine", false, "only what is assigned to me or my groups")
	f.IntVar(&o.Limit, "limit", 50, "how many (1..500)")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	cmd.RegisterFlagCompletionFunc("status", completeWords(statusNames(), nil))
	return cmd
}

// statusNamed reads a status as people name it ("answered", "timed-out") or as the API
// does ("responded", "timeout"); "" is every status.
func statusNamed(name string) (hitl.Status, bool) {
	switch strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), " ", "-") {
	case "":
		return "", true
	case "pending":
		return hitl.StatusPending, true
	case "answered", "responded":
		return hitl.StatusResponded, true
	case "timed-out", "timed_out", "timeout":
		return hitl.StatusTimeout, true
	case "cancelled", "canceled":
		return hitl.StatusCancelled, true
	}
	return "", false
}

// age is how long ago t was, in its largest whole unit: 9s, 3m, 2h, 5d.
func age(t time.Time) string { return span(time.Since(t)) }

// span is a duration in its largest whole unit: 9s, 3m, 2h (up to two days), 5d.
func span(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func showCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:               "show ID",
		ValidArgsFunction: completeInquiryID,
		Short:             "Show one inquiry",
		Args:              exactArgs(1, "an inquiry id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			inq, _, err := fetchInquiry(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), inq)
			}
			return describe(cmd.OutOrStdout(), inq)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// describe prints an inquiry for people: what was asked (describeAsked), then what the
// answer should be and the answer, each indented under its heading.
func describe(w io.Writer, inq *hitl.Inquiry) error {
	if err := describeAsked(w, inq); err != nil {
		return err
	}
	if inq.Status == hitl.StatusPending {
		writeBlock(w, "The answer", answerWanted(inq))
	}
	if len(inq.Options) == 0 && !inq.IsPlainApproval() && !inq.HasDecisions() {
		writeBlock(w, "Answer schema", indentJSON(inq.ResponseSchema))
	}
	if inq.Status == hitl.StatusResponded || inq.FallbackApplied {
		writeBlock(w, "Response", cmp.Or(indentJSON(inq.Response), "null")) // null is an answer too
	}
	return nil
}

// askedBy is who asked: the key's name, and the agent (its X-Agent-ID, or the protocol it came
// by, such as a2a) when that says more than the name again.
func askedBy(key, agent string) string {
	switch {
	case agent == "" || agent == key:
		return key
	case key == "":
		return agent
	}
	return key + " (agent " + agent + ")"
}

// describeAsked prints what was asked: one line per fact, then the context and the tool call,
// each indented under its heading. The answer form shows it before the question.
func describeAsked(w io.Writer, inq *hitl.Inquiry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	line("Inquiry", strconv.FormatInt(inq.ID, 10))
	line("Status", wording.Status(inq.Status))
	line("Prompt", inq.Prompt)
	line("Type", string(inq.RequestType))
	line("Session", inq.Session)
	line("Asked by", askedBy(inq.CreatedBy, inq.Origin))
	line("Assigned to", strings.Join(inq.AssignedTo, ", "))
	line("Created", inq.CreatedAt.Format(time.RFC3339)+" ("+age(inq.CreatedAt)+" ago)")
	if inq.TimeoutAt != nil {
		deadline := inq.TimeoutAt.Format(time.RFC3339)
		if inq.Status == hitl.StatusPending {
			deadline += " (in " + span(time.Until(*inq.TimeoutAt)) + "; if nobody answers by then, " + wording.Fallback(inq.FallbackPolicy) + ")"
		}
		line("Deadline", deadline)
	}
	if inq.RemindEvery != nil {
		reminders := fmt.Sprintf("every %s, %d sent", inq.RemindEvery, inq.RemindersSent)
		if inq.NextReminderAt != nil {
			reminders += "; the next at " + inq.NextReminderAt.Format(time.RFC3339)
		}
		line("Reminders", reminders)
	}
	if l := inq.Escalation; l != nil && len(l.Steps) > 1 {
		for i, st := range l.Steps {
			what := fmt.Sprintf("after %s adds %s", st.After, wording.Assignees(st.AssignedTo))
			if len(st.Channels) > 0 {
				what += " by " + strings.Join(st.Channels, ", ")
			}
			switch {
			case st.ReachedAt != nil:
				what += "; reached at " + st.ReachedAt.Format(time.RFC3339)
			case i == l.Reached && l.NextAt != nil:
				what += "; next, at " + l.NextAt.Format(time.RFC3339)
			}
			line(fmt.Sprintf("Escalation %d", i+1), what)
		}
	} else if inq.EscalateAfter != nil {
		to := wording.Assignees(inq.EscalateTo)
		if inq.EscalatedAt != nil {
			line("Escalation", "escalated to "+to+" at "+inq.EscalatedAt.Format(time.RFC3339))
		} else {
			line("Escalation", fmt.Sprintf("to %s when nobody has answered %s after it was asked", to, inq.EscalateAfter))
		}
	}
	if inq.Pool != "" {
		line("Pool", "picked from the group "+inq.Pool)
	}
	if inq.Quorum != nil {
		line("Quorum", fmt.Sprintf("%d approvals; ended by %s", inq.Quorum.Required, wording.RejectRule(inq.Quorum.Reject)))
	}
	for i, st := range inq.Steps {
		state := "waiting"
		switch {
		case st.CompletedAt != nil:
			state = "approved at " + st.CompletedAt.Format(time.RFC3339)
		case i+1 == inq.CurrentStep && inq.Status == hitl.StatusPending:
			state = "now"
		case st.StartedAt != nil:
			state = "ended"
		}
		line(fmt.Sprintf("Step %d", i+1), fmt.Sprintf("%s, %d approval(s): %s", wording.Assignees(st.AssignedTo), st.Required, state))
	}
	if inq.Status == hitl.StatusPending {
		line("Votes", wording.Progress(inq))
		line("Claim", wording.Claim(inq, time.Now()))
	}
	for _, v := range inq.Votes {
		word := "rejected"
		if v.Approved {
			word = "approved"
		}
		vote := v.By + " " + word + " at " + v.At.Format(time.RFC3339)
		if v.Comment != "" {
			vote += ": " + v.Comment
		}
		line("Vote", vote)
	}
	if inq.RespondedBy != nil {
		line("Answered by", *inq.RespondedBy+" at "+inq.RespondedAt.Format(time.RFC3339))
	}
	if inq.Comment != nil {
		line("Comment", *inq.Comment)
	}
	if inq.FallbackApplied {
		line("Fallback", "nobody answered by the deadline; the fallback value is the answer")
	}
	if inq.CancelReason != nil {
		line("Cancelled", *inq.CancelReason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeBlock(w, "Context", indentJSON(inq.Context))
	if inq.HasDecisions() {
		writeBlock(w, "Tool call", inq.ToolCall.Name+" "+indentJSON(inq.ToolCall.Arguments))
	}
	return nil
}

// writeBlock prints text under its heading, indented; nothing for no text.
func writeBlock(w io.Writer, heading, text string) {
	if text != "" {
		fmt.Fprintf(w, "\n%s:\n  %s\n", heading, strings.ReplaceAll(text, "\n", "\n  "))
	}
}

// indentJSON is a JSON value indented for reading; "" for none.
func indentJSON(m json.RawMessage) string {
	if hitl.IsNull(m) {
		return ""
	}
	var b bytes.Buffer
	if json.Indent(&b, m, "", "  ") != nil {
		return string(m)
	}
	return b.String()
}

// answerWanted says what the answer should be: the options, Approve / Reject, or one line
// per field of the schema's form.
func answerWanted(inq *hitl.Inquiry) string {
	var b strings.Builder
	switch {
	case len(inq.Options) > 0:
		b.WriteString("choose one of")
		if inq.Multiple {
			b.Reset()
			b.WriteString("choose any of")
		}
		for _, o := range inq.Options {
			b.WriteString("\n  " + strings.Join(slices.DeleteFunc([]string{o.Value, o.Label, o.Description}, func(s string) bool { return s == "" }), " — "))
		}
	case inq.IsPlainApproval():
		fmt.Fprintf(&b, "approve or reject, with a comment if you like (hitl respond %d --approve|--reject --comment TEXT)", inq.ID)
	case inq.HasDecisions():
		fmt.Fprintf(&b, "decide about the call of %s: %s", inq.ToolCall.Name, decisionWords(inq.AllowedDecisions))
		for _, d := range inq.AllowedDecisions {
			fmt.Fprintf(&b, "\n  %s", map[hitl.Decision]string{
				hitl.DecisionApprove: fmt.Sprintf("hitl respond %d --approve            run it as proposed", inq.ID),
				hitl.DecisionEdit:    fmt.Sprintf("hitl respond %d --edit '{...}'       run it with these arguments instead", inq.ID),
				hitl.DecisionReject:  fmt.Sprintf("hitl respond %d --reject \"reason\"    do not run it", inq.ID),
				hitl.DecisionRespond: fmt.Sprintf(`hitl respond %d '{"decision":"respond","message":"..."}'    do not run it; answer instead`, inq.ID),
			}[d])
		}
		if inq.Allows(hitl.DecisionEdit) {
			b.WriteString("\nArguments schema:\n  " + strings.ReplaceAll(indentJSON(inq.ToolCall.ParametersSchema), "\n", "\n  "))
		}
	default:
		root := schema.FormFor(inq.ResponseSchema)
		if root.Kind != schema.KindObject {
			return fieldWords(root)
		}
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		for _, f := range root.Fields {
			required := ""
			if f.Required {
				required = "required"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Key, required, fieldWords(f))
		}
		tw.Flush()
		return strings.TrimSuffix(b.String(), "\n")
	}
	return b.String()
}

// fieldWords says what one field of an answer takes, and its title and description.
func fieldWords(f *schema.Field) string {
	var what string
	switch f.Kind {
	case schema.KindBoolean:
		what = "yes or no (true/false)"
	case schema.KindChoice:
		what = "one of " + strings.Join(f.Choices, ", ")
	case schema.KindChoices:
		what = "any of " + strings.Join(f.Choices, ", ")
	case schema.KindInteger:
		what = strings.TrimSuffix("a whole number, "+f.Expects(), ", ")
	case schema.KindNumber:
		what = strings.TrimSuffix("a number, "+f.Expects(), ", ")
	case schema.KindText, schema.KindTextArea:
		what = strings.TrimSuffix("text, "+f.Expects(), ", ")
	case schema.KindObject:
		what = "an object (see the schema)"
	case schema.KindList:
		what = "a list"
	default:
		what = "JSON (see the schema)"
	}
	return strings.Join(slices.DeleteFunc([]string{what, f.Title, f.Description}, func(s string) bool { return s == "" }), " — ")
}

func respondCmd() *cobra.Command {
	var (
		approve, reject                 bool
		comment, edit, session, forWhom string
	)
	cmd := &cobra.Command{
		Use:               "respond ID [JSON] | respond --session KEY --approve|--reject",
		ValidArgsFunction: completeAnswer,
		Short:             "Answer an inquiry, or every pending approval of a session (role: responder)",
		Long: `Answer an inquiry with a JSON value, or @file to read it from a file. A value that is
not JSON is sent as a JSON string, so 'hitl respond 7 Garden' answers "Garden". For
approvals, --approve or --reject (with --comment) build the answer; for an approval of a tool
call with decisions, --reject takes the reason as the argument after it, and --edit the
arguments to run the tool with instead (JSON, or @file). With no answer on a terminal, a form
built from the inquiry's options or schema asks for it (ACCESSIBLE=1: plain prompts, one per
line, which also read answers piped in): it shows what was asked first, as hitl show does; after
the choice of an approval or a selection it asks for a comment, with the choice in view, and
sends it beside the answer as --comment does; its last line says what was sent. Reject comes
first, so Enter alone never approves; Ctrl-C sends nothing. An answer to a quorum or a chain is a vote: the
inquiry may still wait for other people's votes, and the line after it says where it stands.

With --session KEY and --approve or --reject, every pending approval of that session that is
assigned to you or one of your groups gets that answer (at most 500), each on its own: one
line per inquiry says whether it was answered, and the exit status is 1 when any was refused.`,
		Example: `  hitl respond 7 --approve --comment "LGTM"
  hitl respond 8 '"Garden"'
  hitl respond 9 '{"amount": 120, "currency": "EUR"}'
  hitl respond 10 --edit '{"service": "api", "replicas": 2}'
  hitl respond 11 --reject "not during the freeze"
  hitl respond --session deploy-7781 --approve --comment "release train 42"`,
		Args: func(cmd *cobra.Command, args []string) error {
			decided := approve || reject || edit != ""
			switch {
			case approve && reject, edit != "" && (approve || reject):
				return usagef("--approve, --reject and --edit exclude each other")
			case session != "" && len(args) > 0:
				return usagef("--session answers the session's approvals: give no inquiry id or answer with it")
			case session != "" && (edit != "" || !approve && !reject):
				return usagef("--session needs --approve or --reject")
			case session != "":
				return nil
			case len(args) == 0 || len(args) > 2:
				return usagef("expected an inquiry id and an answer")
			case (approve || edit != "") && len(args) == 2:
				return usagef("give either a JSON answer or --approve/--reject/--edit")
			case !decided && len(args) == 1 && !isTerminal(cmd.InOrStdin()) && !accessible():
				return usagef("expected an answer: JSON, or --approve/--reject (on a terminal, a form asks for it)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if session != "" {
				return respondSession(cmd, session, approve, comment)
			}
			id, c, err := inquiryClient(args[0])
			if err != nil {
				return err
			}
			var (
				answer json.RawMessage
				sent   string // what the form sent, in words
			)
			switch {
			case len(args) == 1 && !approve && !reject && edit == "":
				inq, err := c.Inquiry(cmd.Context(), id)
				if err != nil {
					return err
				}
				if inq.Status.Final() {
					return fmt.Errorf("inquiry %d is already %s", id, wording.Status(inq.Status))
				}
				form, err := askForm(cmd.Context(), inq, cmd.InOrStdin(), cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				answer, comment, sent = form.response, cmp.Or(comment, form.comment), form.words
			case approve || reject || edit != "":
				inq, err := c.Inquiry(cmd.Context(), id)
				if err != nil {
					return err
				}
				reason := ""
				if len(args) == 2 {
					reason = args[1]
				}
				if answer, err = decidedAnswer(inq, approve, reason, edit, comment); err != nil {
					return err
				}
				if !inq.HasDecisions() && comment == "" {
					comment = reason // a plain approval's reason is its comment, on the answer and beside it
				}
			default:
				if answer, err = answerArg("the answer", args[1]); err != nil {
					return err
				}
			}
			inq, err := c.RespondFor(cmd.Context(), id, forWhom, answer, comment)
			if err != nil {
				return withFieldErrors(err)
			}
			if sent != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "Sent:", sent)
			}
			if inq.Status == hitl.StatusPending { // a vote, and others are still to vote
				me, err := c.Me(cmd.Context())
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.ErrOrStderr(), wording.VoteRecorded(inq, me.Name))
				return nil
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Inquiry %d answered.\n", inq.ID)
			return nil
		},
	}
	cmd.Flags().BoolVar(&approve, "approve", false, "answer an approval with approved: true (a tool call: run it as proposed)")
	cmd.Flags().BoolVar(&reject, "reject", false, "answer an approval with approved: false (a tool call: do not run it; the reason may follow)")
	cmd.Flags().StringVar(&edit, "edit", "", "a tool call: run it with these arguments instead (JSON, or @file)")
	cmd.Flags().StringVar(&comment, "comment", "", "a comment to go with the answer")
	cmd.Flags().StringVar(&session, "session", "", "answer every pending approval of this session assigned to you")
	cmd.Flags().StringVar(&forWhom, "for", "", "answer for this person, who is away and whose delegate you are (default: yourself, or the away assignee you stand in for)")
	return cmd
}

// decidedAnswer builds the answer of --approve, --reject [REASON] or --edit ARGS: a decision
// for an approval of a tool call with decisions, {"approved", "comment"} for a plain approval.
func decidedAnswer(inq *hitl.Inquiry, approve bool, reason, edit, comment string) (json.RawMessage, error) {
	if !inq.HasDecisions() {
		switch {
		case edit != "":
			return nil, usagef("inquiry %d is not an approval of a tool call with the edit decision; --edit does not apply", inq.ID)
		case reason != "" && comment != "":
			return nil, usagef("give the reason after --reject or with --comment, not both")
		}
		return hitl.ApprovalAnswer(approve, cmp.Or(comment, reason)), nil
	}
	a := hitl.DecisionAnswer{Decision: hitl.DecisionReject, Message: reason}
	switch {
	case approve:
		a.Decision = hitl.DecisionApprove
	case edit != "":
		args, err := answerArg("the arguments of --edit", edit)
		if err != nil {
			return nil, err
		}
		a.Decision, a.Args = hitl.DecisionEdit, args
	}
	if !inq.Allows(a.Decision) {
		return nil, usagef("inquiry %d allows the decisions %s, not %s", inq.ID, decisionWords(inq.AllowedDecisions), a.Decision)
	}
	return json.Marshal(a)
}

func decisionWords(ds []hitl.Decision) string {
	words := make([]string, len(ds))
	for i, d := range ds {
		words[i] = string(d)
	}
	return strings.Join(words, ", ")
}

// withFieldErrors adds the server's per-field problems to its one-line message.
func withFieldErrors(err error) error {
	var ce *client.Error
	if !errors.As(err, &ce) || len(ce.Errors) < 2 {
		return err
	}
	var b strings.Builder
	b.WriteString(ce.Detail)
	for _, fe := range ce.Errors {
		fmt.Fprintf(&b, "\n  %s: %s", dash(fe.Path), fe.Message)
	}
	return errors.New(b.String())
}

func cancelCmd() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:               "cancel ID",
		ValidArgsFunction: completeInquiryID,
		Short:             "Cancel a pending inquiry (the agent that asked it, or role: admin)",
		Args:              exactArgs(1, "an inquiry id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, c, err := inquiryClient(args[0])
			if err != nil {
				return err
			}
			if _, err := c.Cancel(cmd.Context(), id, reason); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Inquiry %d cancelled.\n", id)
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why, for the agent and the record")
	return cmd
}

func claimCmd() *cobra.Command {
	var (
		ttl     time.Duration
		release bool
	)
	cmd := &cobra.Command{
		Use:               "claim ID",
		ValidArgsFunction: completeInquiryID,
		Short:             "Take an inquiry to answer it, so nobody else answers meanwhile, or give it back with --release (role: responder)",
		Long: `Claim an inquiry you may answer: until the claim expires (--ttl, default 15m), you answer
or you release it, others who answer get "claimed by you until ...". Claiming again extends
the claim. --release gives it back; with the role admin, --release breaks anyone's claim.`,
		Args: exactArgs(1, "an inquiry id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, c, err := inquiryClient(args[0])
			if err != nil {
				return err
			}
			if release {
				if _, err := c.Release(cmd.Context(), id); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "Inquiry %d released.\n", id)
				return nil
			}
			if cmd.Flags().Changed("ttl") && ttl < time.Second {
				return usagef("--ttl %s: want at least 1s, like 30m", ttl)
			}
			inq, err := c.Claim(cmd.Context(), id, ttl)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Inquiry %d %s.\n", id, wording.Claim(inq, time.Now()))
			return nil
		},
	}
	durationVar(cmd.Flags(), &ttl, "ttl", 0, "how long the claim holds, like 30m (default 15m, at most 24h)")
	cmd.Flags().BoolVar(&release, "release", false, "give the claim back instead")
	return cmd
}

func keysCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "keys", Short: "Manage API keys (role: admin)"}
	var roles, groups []string
	create := &cobra.Command{
		Use:     "create NAME",
		Short:   "Create a key; its token is printed once",
		Example: "  hitl keys create alice --role responder --group sre\n  hitl keys create deploy-bot --role agent",
		Args:    exactArgs(1, "the principal's name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			k, err := c.CreateKey(cmd.Context(), &hitl.KeyRequest{Name: args[0], Roles: roles, Groups: groups})
			if err != nil {
				return withFieldErrors(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Created key %s for %s (%s). The token is shown only now:\n", k.ID, k.Name, strings.Join(k.Roles, ", "))
			_, err = fmt.Fprintln(cmd.OutOrStdout(), k.Token)
			return err
		},
	}
	create.Flags().StringArrayVar(&roles, "role", []string{hitl.RoleResponder}, "a role of the key: "+orList(hitl.Roles())+" (repeat)")
	create.RegisterFlagCompletionFunc("role", completeWords(hitl.Roles(), roleDoes))
	create.Flags().StringArrayVar(&groups, "group", nil, "a group the principal belongs to (repeat)")
	var asJSON bool
	ls := &cobra.Command{
		Use:   "ls",
		Short: "List keys",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			keys, err := c.Keys(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), keys)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tIDENTITY\tROLES\tGROUPS\tCREATED\tREVOKED")
			for _, k := range keys {
				revoked := "-"
				if k.RevokedAt != nil {
					revoked = k.RevokedAt.Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.IdentityID, strings.Join(k.Roles, ","), dash(strings.Join(k.Groups, ",")), k.CreatedAt.Format(time.RFC3339), revoked)
			}
			return tw.Flush()
		},
	}
	ls.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a key at once",
		Args:  exactArgs(1, "a key id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			if err := c.RevokeKey(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Key %s revoked.\n", args[0])
			return nil
		},
	}
	rotate := &cobra.Command{
		Use:   "rotate-signing",
		Short: "Make a new key for signing decision receipts; receipts of the key before the current one stop verifying",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			r, err := c.RotateSigningKey(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Receipts are signed with key %s from now on; the one before stays in the JWKS until the next rotation.\n", r.Kid)
			return nil
		},
	}
	cmd.AddCommand(create, ls, revoke, rotate)
	return cmd
}

func whoamiCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "whoami",
		Short: "Show the principal your token speaks for: its name, roles, groups and key",
		Long: `Show the principal your token speaks for, as a table (or JSON with --json): its name, its
integer identity, its roles, its groups and the key the token belongs to. Under the table, on
stderr, which server was asked and where the token came from.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			p, err := c.Me(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), p.AsCaller())
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tIDENTITY\tROLES\tGROUPS\tKEY")
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", p.Name, p.IdentityID, strings.Join(p.Roles, ","), dash(strings.Join(p.Groups, ",")), dash(p.KeyID))
			if err := tw.Flush(); err != nil {
				return err
			}
			if t, err := findTarget(); err == nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "Asked %s (the address is from %s) with the token from %s.\n", t.URL, t.From, t.TokenFrom)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// answerHint says how the inquiry is answered from another terminal, in the shape its
// question takes, since the one who asked is often the one who tries it out.
func answerHint(inq *hitl.Inquiry) string {
	switch {
	case inq.RequestType == hitl.RequestApproval:
		return fmt.Sprintf("hitl respond %d --approve|--reject", inq.ID)
	case len(inq.Options) > 0:
		return fmt.Sprintf("hitl respond %d %s", inq.ID, inq.Options[0].Value)
	default:
		return fmt.Sprintf("hitl respond %d JSON, or a form on a terminal", inq.ID)
	}
}
