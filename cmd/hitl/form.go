package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
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

// answerForm builds the form that asks for an inquiry's answer from its options or schema,
// one page per group, and the function that reads the answer once the form ran. Anything a
// form cannot express gets one JSON field, which the server validates.
func answerForm(inq *hitl.Inquiry) ([]*huh.Group, func() (json.RawMessage, error)) {
	if inq.IsPlainApproval() {
		return approvalForm(inq)
	}
	fields, get := answerFields(inq)
	return []*huh.Group{huh.NewGroup(fields...)}, get
}

func answerFields(inq *hitl.Inquiry) ([]huh.Field, func() (json.RawMessage, error)) {
	if len(inq.Options) > 0 {
		return optionsField(inq)
	}
	root := schema.FormFor(inq.ResponseSchema)
	if f, get, ok := scalarField(inq.Prompt, root, true); ok {
		return []huh.Field{f}, get
	}
	if fields, get, ok := objectFields(root); ok {
		return fields, get
	}
	return jsonField(inq)
}

func optionsField(inq *hitl.Inquiry) ([]huh.Field, func() (json.RawMessage, error)) {
	opts := make([]huh.Option[string], len(inq.Options))
	for i, o := range inq.Options {
		key := o.Value
		if o.Label != "" {
			key = o.Label
		}
		if o.Description != "" {
			key += " — " + o.Description
		}
		opts[i] = huh.NewOption(key, o.Value)
	}
	if inq.Multiple {
		var picked []string
		f := huh.NewMultiSelect[string]().Title(inq.Prompt).Options(opts...).Value(&picked).
			Validate(func(v []string) error {
				if len(v) == 0 {
					return errors.New("choose at least one")
				}
				return nil
			})
		return []huh.Field{f}, func() (json.RawMessage, error) { return json.Marshal(picked) }
	}
	var picked string
	f := huh.NewSelect[string]().Title(inq.Prompt).Options(opts...).Value(&picked)
	return []huh.Field{f}, func() (json.RawMessage, error) { return json.Marshal(picked) }
}

// approvalForm asks Approve / Reject under the prompt, then, on a page of its own, for a
// comment. Reject is highlighted first: Enter alone never approves.
func approvalForm(inq *hitl.Inquiry) ([]*huh.Group, func() (json.RawMessage, error)) {
	var (
		approved bool
		comment  string
	)
	commentRequired := false
	for _, f := range schema.FormFor(inq.ResponseSchema).Fields {
		commentRequired = commentRequired || f.Key == "comment" && f.Required
	}
	commentTitle := "Comment (optional)"
	if commentRequired {
		commentTitle = "Comment *"
	}
	groups := []*huh.Group{
		huh.NewGroup(huh.NewConfirm().Title(inq.Prompt).Affirmative("Approve").Negative("Reject").Value(&approved)),
		huh.NewGroup(huh.NewInput().Title(commentTitle).Value(&comment).Validate(func(v string) error {
			if commentRequired && strings.TrimSpace(v) == "" {
				return errors.New("a comment is required")
			}
			return nil
		})),
	}
	return groups, func() (json.RawMessage, error) {
		answer := map[string]any{"approved": approved}
		if comment != "" {
			answer["comment"] = comment
		}
		return json.Marshal(answer)
	}
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

// askForm runs the answer form for inq on in and out. On a terminal the form gets the
// terminal itself, so that it can put it in raw mode (arrow keys, Enter); plain prompts
// (ACCESSIBLE) read one byte at a time, so that piped answers reach the prompt they are meant
// for. Ctrl-C, and SIGINT, SIGTERM or SIGHUP while the form is open, abort it: nothing is sent.
func askForm(ctx context.Context, inq *hitl.Inquiry, in io.Reader, out io.Writer) (json.RawMessage, error) {
	groups, get := answerForm(inq)
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
	err := runForm(ctx, form)
	close(stop)
	<-watched
	if piped.ranDry {
		return nil, errInputEnded
	}
	const unsent = "the form was closed and nothing was sent"
	select {
	case s := <-caught:
		return nil, signalError{sig: s, what: unsent}
	default:
	}
	if errors.Is(err, huh.ErrUserAborted) {
		return nil, signalError{sig: syscall.SIGINT, what: unsent}
	}
	if err != nil {
		return nil, err
	}
	return get()
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
