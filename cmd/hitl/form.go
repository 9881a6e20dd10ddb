package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"charm.land/huh/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/schema"
)

// accessible is huh's convention: ACCESSIBLE set means plain prompts, one per line, instead
// of a redrawn form — for screen readers, and for answers piped in.
func accessible() bool { return os.Getenv("ACCESSIBLE") != "" }

// oneByteReader hands out one byte per read. huh's plain prompts each read their line with a
// scanner of their own; on a pipe, the first would otherwise buffer the lines meant for the
// next ones. It also notices when a prompt found the input ended with nothing on its line:
// the prompt then takes its default, an answer nobody gave.
type oneByteReader struct {
	r            io.Reader
	sinceNewline int  // bytes read since the last newline
	ranDry       bool // the input ended where a prompt expected a line
}

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	n, err := o.r.Read(p)
	if n > 0 {
		o.sinceNewline++
		if p[0] == '\n' {
			o.sinceNewline = 0
		}
	}
	if err == io.EOF && o.sinceNewline == 0 {
		o.ranDry = true
	}
	return n, err
}

// errInputEnded: piped answers ran out before the form was complete; nothing is sent.
var errInputEnded = usagef("expected an answer: the input ended before the form was complete, so nothing was sent")

// formAnswer is what the form asked for: the answer, the comment that goes beside it (the
// respond request's top-level comment, as hitl respond --comment sends it), and what was
// chosen in words, which the command says once the server took it ("Sent: Venue B").
type formAnswer struct {
	response json.RawMessage
	comment  string
	words    string
}

// choice is the first page of an approval or a selection: its field, and what it chose in
// words, as the pages after it show it ("Approve", "Venue B") and as the sent line says it
// ("approved", "Venue B").
type choice struct {
	field  huh.Field
	picked any // what the field sets: the later pages follow its changes
	label  func() string
	words  func() string
	answer func(comment string) (json.RawMessage, error)
	// commentRequired: the approval's schema requires a comment.
	commentRequired bool
}

// optionsChoice asks for one of the options, or any of them.
func optionsChoice(inq *hitl.Inquiry) choice {
	opts := make([]huh.Option[string], len(inq.Options))
	labels := map[string]string{}
	for i, o := range inq.Options {
		labels[o.Value] = cmp.Or(o.Label, o.Value)
		key := labels[o.Value]
		if o.Description != "" {
			key += " — " + o.Description
		}
		opts[i] = huh.NewOption(key, o.Value)
	}
	var c choice
	if inq.Multiple {
		var picked []string
		c.field = huh.NewMultiSelect[string]().Title(inq.Prompt).Options(opts...).Value(&picked).
			Validate(func(v []string) error {
				if len(v) == 0 {
					return errors.New("choose at least one")
				}
				return nil
			})
		c.picked = &picked
		c.label = func() string {
			var chosen []string
			for _, v := range picked {
				chosen = append(chosen, labels[v])
			}
			return strings.Join(chosen, ", ")
		}
		c.answer = func(string) (json.RawMessage, error) { return json.Marshal(picked) }
	} else {
		var picked string
		c.field = huh.NewSelect[string]().Title(inq.Prompt).Options(opts...).Value(&picked)
		c.picked = &picked
		c.label = func() string { return labels[picked] }
		c.answer = func(string) (json.RawMessage, error) { return json.Marshal(picked) }
	}
	c.words = c.label
	return c
}

// approvalChoice asks Approve / Reject under the prompt. Reject is highlighted first: Enter
// alone never approves. The comment is in the answer too, as the approval's schema has it.
func approvalChoice(inq *hitl.Inquiry) choice {
	var approved bool
	c := choice{
		field:  huh.NewConfirm().Title(inq.Prompt).Affirmative("Approve").Negative("Reject").Value(&approved),
		picked: &approved,
		label:  func() string { return map[bool]string{true: "Approve", false: "Reject"}[approved] },
		words:  func() string { return map[bool]string{true: "approved", false: "rejected"}[approved] },
		answer: func(comment string) (json.RawMessage, error) { return hitl.ApprovalAnswer(approved, comment), nil },
	}
	for _, f := range schema.FormFor(inq.ResponseSchema).Fields {
		c.commentRequired = c.commentRequired || f.Key == "comment" && f.Required
	}
	return c
}

// askChoice asks an approval or a selection, then, on a page of its own that keeps the choice
// in view, for a comment.
func askChoice(ctx context.Context, c choice, in io.Reader, out io.Writer) (formAnswer, error) {
	var comment string
	title := "Comment (optional)"
	if c.commentRequired {
		title = "Comment *"
	}
	commenting := func() []page {
		field := huh.NewInput().Value(&comment).Validate(func(v string) error {
			if c.commentRequired && strings.TrimSpace(v) == "" {
				return errors.New("a comment is required")
			}
			return nil
		})
		return []page{{fields: []huh.Field{showChoice(field, func() string { return title }, c.label, c.picked)}}}
	}
	if err := runPages(ctx, c.field, commenting, in, out); err != nil {
		return formAnswer{}, err
	}
	response, err := c.answer(comment)
	words := c.words()
	if comment != "" {
		words += fmt.Sprintf(", with the comment %q", comment)
	}
	return formAnswer{response: response, comment: comment, words: words}, err
}

func answerFields(inq *hitl.Inquiry) ([]huh.Field, func() (json.RawMessage, error)) {
	root := schema.FormFor(inq.ResponseSchema)
	if f, get, ok := scalarField(inq.Prompt, root, true); ok {
		return []huh.Field{f}, get
	}
	if fields, get, ok := objectFields(root); ok {
		return fields, get
	}
	return jsonField(inq)
}

// page is a page of a form after its first: its fields, and when it is not shown (nil: it
// always is).
type page struct {
	fields []huh.Field
	hidden func() bool
}

// runPages runs a form whose later pages follow from its first field. On a terminal it is
// one form, so that Shift-Tab goes back to the choice, and its later pages follow the choice
// as it changes (whether they are shown, their titles and descriptions). Plain prompts ask
// every field of a form, hidden or not, and evaluate nothing that changes: they get the first
// field on its own, then the pages it leads to, built once it is answered.
func runPages(ctx context.Context, first huh.Field, later func() []page, in io.Reader, out io.Writer) error {
	if !accessible() {
		groups := []*huh.Group{huh.NewGroup(first)}
		for _, p := range later() {
			g := huh.NewGroup(p.fields...)
			if p.hidden != nil {
				g = g.WithHideFunc(p.hidden)
			}
			groups = append(groups, g)
		}
		return runGroups(ctx, groups, in, out)
	}
	if err := runGroups(ctx, []*huh.Group{huh.NewGroup(first)}, in, out); err != nil {
		return err
	}
	for _, p := range later() {
		if p.hidden == nil || !p.hidden() {
			if err := runGroups(ctx, []*huh.Group{huh.NewGroup(p.fields...)}, in, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// choiceShower is a field that can say what was chosen on the page before it.
type choiceShower[F any] interface {
	Title(string) F
	TitleFunc(func() string, any) F
	DescriptionFunc(func() string, any) F
}

// showChoice titles a field on a page after a choice and keeps the choice in view on it:
// "You chose: Venue B". On a terminal its title and description follow the choice (picked)
// as it changes. Plain prompts show a title alone and evaluate nothing that changes, but
// build the later pages once the choice is made (runPages): there the title says it.
func showChoice[F choiceShower[F]](f F, title, chosen func() string, picked any) F {
	if accessible() {
		return f.Title("You chose: " + chosen() + ". " + title())
	}
	return f.TitleFunc(title, picked).DescriptionFunc(func() string { return "You chose: " + chosen() }, picked)
}

// answerWords is an answer as the sent line says it: a text as the text, anything else as
// its JSON.
func answerWords(answer json.RawMessage) string {
	var text string
	if json.Unmarshal(answer, &text) == nil {
		return text
	}
	return string(answer)
}

// scalarField is one field for a boolean, a number, a string or an enum of strings. A field
// that is not required may be left empty; its value is then nil (left out of an object).
func scalarField(title string, f *schema.Field, required bool) (huh.Field, func() (json.RawMessage, error), bool) {
	switch f.Kind {
	case schema.KindChoice:
		var picked string
		field := huh.NewSelect[string]().Title(title).Description(f.Description).Options(huh.NewOptions(f.Choices...)...).Value(&picked)
		return field, func() (json.RawMessage, error) { return json.Marshal(picked) }, true
	case schema.KindBoolean:
		var b bool
		field := huh.NewConfirm().Title(title).Description(f.Description).Affirmative("Yes").Negative("No").Value(&b)
		return field, func() (json.RawMessage, error) { return json.Marshal(b) }, true
	case schema.KindInteger, schema.KindNumber:
		var text string
		integer := f.Kind == schema.KindInteger
		parse := func(v string) (float64, error) {
			if integer {
				n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				return float64(n), err
			}
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
		field := huh.NewInput().Title(title).Description(described(f)).Value(&text).Validate(func(v string) error {
			if strings.TrimSpace(v) == "" && !required {
				return nil
			}
			n, err := parse(v)
			switch {
			case err != nil && integer:
				return errors.New("enter a whole number")
			case err != nil:
				return errors.New("enter a number")
			case f.Min != nil && n < *f.Min:
				return fmt.Errorf("at least %g", *f.Min)
			case f.Max != nil && n > *f.Max:
				return fmt.Errorf("at most %g", *f.Max)
			}
			return nil
		})
		return field, func() (json.RawMessage, error) {
			if strings.TrimSpace(text) == "" {
				return nil, nil
			}
			return json.RawMessage(strings.TrimSpace(text)), nil
		}, true
	case schema.KindText, schema.KindTextArea:
		var text string
		var re *regexp.Regexp
		if f.Pattern != "" {
			re, _ = regexp.Compile(f.Pattern) // JSON Schema patterns are ECMA 262; most compile in Go too
		}
		validate := func(v string) error {
			n := utf8.RuneCountInString(v)
			switch {
			case v == "" && !required:
				return nil
			case v == "" && (f.MinLength == nil || *f.MinLength > 0):
				return errors.New("required")
			case f.MinLength != nil && n < *f.MinLength:
				return fmt.Errorf("at least %d characters", *f.MinLength)
			case f.MaxLength != nil && n > *f.MaxLength:
				return fmt.Errorf("at most %d characters", *f.MaxLength)
			case re != nil && !re.MatchString(v):
				return fmt.Errorf("must match %s", f.Pattern)
			}
			return nil
		}
		get := func() (json.RawMessage, error) {
			if text == "" && !required {
				return nil, nil
			}
			return json.Marshal(text)
		}
		if f.Kind == schema.KindTextArea {
			return huh.NewText().Title(title).Description(described(f)).Value(&text).Validate(validate), get, true
		}
		return huh.NewInput().Title(title).Description(described(f)).Value(&text).Validate(validate), get, true
	}
	return nil, nil, false
}

// described is a field's description and what it takes ("between 1 and 20"), for the line
// under its title.
func described(f *schema.Field) string {
	return strings.Join(slices.DeleteFunc([]string{f.Description, f.Expects()}, func(s string) bool { return s == "" }), " — ")
}

// objectFields asks a flat object one field per property, in the schema's order, required
// ones marked *.
func objectFields(root *schema.Field) ([]huh.Field, func() (json.RawMessage, error), bool) {
	if root.Kind != schema.KindObject {
		return nil, nil, false
	}
	var fields []huh.Field
	getters := map[string]func() (json.RawMessage, error){}
	for _, p := range root.Fields {
		title := cmp.Or(p.Title, p.Key)
		if p.Required {
			title += " *"
		}
		f, get, ok := scalarField(title, p, p.Required)
		if !ok {
			return nil, nil, false
		}
		fields = append(fields, f)
		getters[p.Key] = get
	}
	return fields, func() (json.RawMessage, error) {
		obj := map[string]json.RawMessage{}
		for name, get := range getters {
			v, err := get()
			if err != nil {
				return nil, err
			}
			if v != nil {
				obj[name] = v
			}
		}
		return json.Marshal(obj)
	}, true
}

// jsonField is the fallback: the answer typed as JSON, shown the schema it must fit.
func jsonField(inq *hitl.Inquiry) ([]huh.Field, func() (json.RawMessage, error)) {
	var text string
	description := "Answer as JSON that fits the schema (hitl show " + strconv.FormatInt(inq.ID, 10) + " prints it)"
	if example := schema.FormFor(inq.ResponseSchema).Example; example != "" {
		description += ", for example " + example
	}
	f := huh.NewText().Title(inq.Prompt).Description(description).Value(&text).
		Validate(func(v string) error {
			if !json.Valid([]byte(v)) {
				return errors.New("not valid JSON")
			}
			return nil
		})
	return []huh.Field{f}, func() (json.RawMessage, error) { return json.RawMessage(text), nil }
}

// askForm shows what was asked, as hitl show prints it, then runs the answer form for inq on
// in and out. On a terminal the form gets the terminal itself, so that it can put it in raw
// mode (arrow keys, Enter); plain prompts (ACCESSIBLE) read one byte at a time, so that piped
// answers reach the prompt they are meant for. Ctrl-C, and SIGINT, SIGTERM or SIGHUP while
// the form is open, abort it: nothing is sent.
func askForm(ctx context.Context, inq *hitl.Inquiry, in io.Reader, out io.Writer) (formAnswer, error) {
	if err := describeAsked(out, inq); err != nil {
		return formAnswer{}, err
	}
	fmt.Fprintln(out)
	switch {
	case inq.HasDecisions():
		return askDecision(ctx, inq, in, out)
	case inq.IsPlainApproval():
		return askChoice(ctx, approvalChoice(inq), in, out)
	case len(inq.Options) > 0:
		return askChoice(ctx, optionsChoice(inq), in, out)
	}
	fields, get := answerFields(inq)
	if err := runGroups(ctx, []*huh.Group{huh.NewGroup(fields...)}, in, out); err != nil {
		return formAnswer{}, err
	}
	response, err := get()
	return formAnswer{response: response, words: answerWords(response)}, err
}

// askDecision asks what to do about the tool call, then what the decision needs: the edited
// arguments, or the message.
func askDecision(ctx context.Context, inq *hitl.Inquiry, in io.Reader, out io.Writer) (formAnswer, error) {
	tc := inq.ToolCall
	var picked hitl.Decision
	choose := huh.NewSelect[hitl.Decision]().Title(inq.Prompt).
		Description(fmt.Sprintf("The call of %s, with %s", tc.Name, cmp.Or(string(tc.Arguments), "no arguments"))).Value(&picked)
	var opts []huh.Option[hitl.Decision]
	// Reject first: Enter alone never runs the tool.
	for _, d := range []hitl.Decision{hitl.DecisionReject, hitl.DecisionApprove, hitl.DecisionEdit, hitl.DecisionRespond} {
		if inq.Allows(d) {
			opts = append(opts, huh.NewOption(decisionLabel(d, tc.Name), d))
		}
	}
	proposed := cmp.Or(string(tc.Arguments), "{}") // one line: plain prompts read one
	edited, message := proposed, ""
	later := func() []page {
		editArgs := huh.NewText().Title("Arguments of " + tc.Name + " *").
			Description("JSON that fits the tool's parameters (hitl show " + strconv.FormatInt(inq.ID, 10) + " prints them), starting from those proposed; plain prompts keep them on an empty line").
			Value(&edited).Validate(func(v string) error {
			var args map[string]json.RawMessage
			if strings.TrimSpace(v) != "" && json.Unmarshal([]byte(v), &args) != nil { // empty: the plain prompt keeps those proposed
				return errors.New("enter the arguments as a JSON object")
			}
			return nil
		})
		messageTitle := func() string {
			if picked == hitl.DecisionRespond {
				return "Your answer to the model *"
			}
			return "Why not (optional)"
		}
		writeMessage := huh.NewText().Value(&message).Validate(func(v string) error {
			if picked == hitl.DecisionRespond && strings.TrimSpace(v) == "" {
				return errors.New("an answer is required")
			}
			return nil
		})
		return []page{
			{fields: []huh.Field{editArgs}, hidden: func() bool { return picked != hitl.DecisionEdit }},
			{fields: []huh.Field{showChoice(writeMessage, messageTitle, func() string { return decisionLabel(picked, tc.Name) }, &picked)},
				hidden: func() bool { return picked != hitl.DecisionReject && picked != hitl.DecisionRespond }},
		}
	}
	if err := runPages(ctx, choose.Options(opts...), later, in, out); err != nil {
		return formAnswer{}, err
	}
	a := hitl.DecisionAnswer{Decision: picked, Message: message}
	words := decisionLabel(picked, tc.Name)
	if picked == hitl.DecisionEdit {
		a.Args = json.RawMessage(edited)
		for _, c := range hitl.ArgumentChanges(json.RawMessage(proposed), a.Args) {
			fmt.Fprintf(out, "  %s: %s → %s\n", c.Path, cmp.Or(string(c.Before), "(none)"), cmp.Or(string(c.After), "(removed)"))
		}
		words = "Edit: run " + tc.Name + " with " + strings.Join(strings.Fields(edited), " ")
	}
	if message != "" {
		words += fmt.Sprintf(", with the message %q", message)
	}
	response, err := json.Marshal(a)
	return formAnswer{response: response, words: words}, err
}

// decisionLabel says what a decision does, as a form offers it.
func decisionLabel(d hitl.Decision, tool string) string {
	switch d {
	case hitl.DecisionApprove:
		return "Approve: run " + tool + " as proposed"
	case hitl.DecisionEdit:
		return "Edit: run " + tool + " with arguments you change"
	case hitl.DecisionReject:
		return "Reject: do not run " + tool
	}
	return "Respond: do not run " + tool + "; answer the model instead"
}

// runGroups runs a form of groups on in and out (see askForm).
func runGroups(ctx context.Context, groups []*huh.Group, in io.Reader, out io.Writer) error {
	// The signals are this function's to handle (below), not the form library's: it would
	// take SIGTERM for a submit.
	// Plain prompts write styled text as it is: colorprofile drops the colour codes that a
	// writer which is not a terminal cannot show (and honours NO_COLOR). The full-screen form
	// picks its colours from the terminal itself.
	if accessible() {
		out = colorprofile.NewWriter(out, os.Environ())
	}
	form := huh.NewForm(groups...).WithAccessible(accessible()).WithOutput(out).
		WithProgramOptions(tea.WithoutSignalHandler())
	piped := &oneByteReader{r: in}
	if f, ok := in.(*os.File); ok && isTerminal(f) && !accessible() {
		form = form.WithInput(f)
	} else {
		form = form.WithInput(piped)
	}

	sig, err := untilSignal(ctx, func(ctx context.Context) error { return runForm(ctx, form) })
	if piped.ranDry {
		return errInputEnded
	}
	const unsent = "the form was closed and nothing was sent"
	if sig != 0 {
		return signalError{sig: sig, what: unsent}
	}
	if errors.Is(err, huh.ErrUserAborted) {
		return signalError{sig: syscall.SIGINT, what: unsent}
	}
	return err
}

// runForm runs the form, and turns a panic of the form library into an error: its plain
// prompts index out of range when the input ends after a refused line.
func runForm(ctx context.Context, form *huh.Form) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the answer form failed (%v); nothing was sent", r)
		}
	}()
	return form.RunWithContext(ctx)
}

// spinner shows, on a terminal, that `hitl ask` is waiting: elapsed and remaining time,
// redrawn in place. stop clears the line.
func spinner(w io.Writer, id int64, deadline *time.Time) (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(stopped)
		frames := []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			line := fmt.Sprintf("%c waiting for an answer to inquiry %d — %s", frames[i%len(frames)], id, time.Since(start).Round(time.Second))
			if deadline != nil {
				line += fmt.Sprintf(", %s left", max(time.Until(*deadline), 0).Round(time.Second))
			}
			fmt.Fprintf(w, "\r\033[K%s", line)
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-stopped }
}
