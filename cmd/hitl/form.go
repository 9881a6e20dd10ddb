package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/huh/v2"

	"github.com/hitl-dev/hitl"
)

// accessible is huh's convention: ACCESSIBLE set means plain prompts, one per line, instead
// of a redrawn form — for screen readers, and for answers piped in.
func accessible() bool { return os.Getenv("ACCESSIBLE") != "" }

// oneByteReader hands out one byte per read. huh's plain prompts each read their line with a
// scanner of their own; on a pipe, the first would otherwise buffer the lines meant for the
// next ones.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

// schemaDoc is the part of a JSON Schema a form can express.
type schemaDoc struct {
	Type       any                   `json:"type"`
	Enum       []any                 `json:"enum"`
	Properties map[string]*schemaDoc `json:"properties"`
	Required   []string              `json:"required"`
	Minimum    *float64              `json:"minimum"`
	Maximum    *float64              `json:"maximum"`
	MinLength  *int                  `json:"minLength"`
	MaxLength  *int                  `json:"maxLength"`
	Pattern    string                `json:"pattern"`
	Items      *schemaDoc            `json:"items"`
	Title      string                `json:"title"`
	Desc       string                `json:"description"`
}

func (s *schemaDoc) typ() string {
	t, _ := s.Type.(string)
	return t
}

// stringEnum returns the schema's enum when every value is a string.
func (s *schemaDoc) stringEnum() ([]string, bool) {
	if len(s.Enum) == 0 {
		return nil, false
	}
	out := make([]string, len(s.Enum))
	for i, v := range s.Enum {
		str, ok := v.(string)
		if !ok {
			return nil, false
		}
		out[i] = str
	}
	return out, true
}

// answerForm builds the form that asks for an inquiry's answer from its options or schema,
// and the function that reads the answer once the form ran. Anything a form cannot express
// gets one JSON field, which the server validates.
func answerForm(inq *hitl.Inquiry) ([]huh.Field, func() (json.RawMessage, error)) {
	if len(inq.Options) > 0 {
		return optionsField(inq)
	}
	var doc schemaDoc
	if json.Unmarshal(inq.ResponseSchema, &doc) == nil {
		if f, get, ok := scalarField(inq.Prompt, &doc, true); ok {
			return []huh.Field{f}, get
		}
		if fields, get, ok := objectFields(&doc); ok {
			return fields, get
		}
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

// scalarField is one field for a boolean, a number, a string or an enum of strings. A field
// that is not required may be left empty; its value is then nil (left out of an object).
func scalarField(title string, s *schemaDoc, required bool) (huh.Field, func() (json.RawMessage, error), bool) {
	if enum, ok := s.stringEnum(); ok {
		opts := huh.NewOptions(enum...)
		var picked string
		f := huh.NewSelect[string]().Title(title).Description(s.Desc).Options(opts...).Value(&picked)
		return f, func() (json.RawMessage, error) { return json.Marshal(picked) }, true
	}
	switch s.typ() {
	case "boolean":
		var b bool
		f := huh.NewConfirm().Title(title).Description(s.Desc).Affirmative("Yes").Negative("No").Value(&b)
		return f, func() (json.RawMessage, error) { return json.Marshal(b) }, true
	case "number", "integer":
		var text string
		integer := s.typ() == "integer"
		parse := func(v string) (float64, error) {
			if integer {
				n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				return float64(n), err
			}
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
		f := huh.NewInput().Title(title).Description(bounds(s)).Value(&text).Validate(func(v string) error {
			if strings.TrimSpace(v) == "" && !required {
				return nil
			}
			n, err := parse(v)
			switch {
			case err != nil && integer:
				return errors.New("enter a whole number")
			case err != nil:
				return errors.New("enter a number")
			case s.Minimum != nil && n < *s.Minimum:
				return fmt.Errorf("at least %g", *s.Minimum)
			case s.Maximum != nil && n > *s.Maximum:
				return fmt.Errorf("at most %g", *s.Maximum)
			}
			return nil
		})
		return f, func() (json.RawMessage, error) {
			if strings.TrimSpace(text) == "" {
				return nil, nil
			}
			return json.RawMessage(strings.TrimSpace(text)), nil
		}, true
	case "string":
		var text string
		var re *regexp.Regexp
		if s.Pattern != "" {
			re, _ = regexp.Compile(s.Pattern) // JSON Schema patterns are ECMA 262; most compile in Go too
		}
		validate := func(v string) error {
			n := utf8.RuneCountInString(v)
			switch {
			case v == "" && !required:
				return nil
			case v == "" && (s.MinLength == nil || *s.MinLength > 0):
				return errors.New("required")
			case s.MinLength != nil && n < *s.MinLength:
				return fmt.Errorf("at least %d characters", *s.MinLength)
			case s.MaxLength != nil && n > *s.MaxLength:
				return fmt.Errorf("at most %d characters", *s.MaxLength)
			case re != nil && !re.MatchString(v):
				return fmt.Errorf("must match %s", s.Pattern)
			}
			return nil
		}
		get := func() (json.RawMessage, error) {
			if text == "" && !required {
				return nil, nil
			}
			return json.Marshal(text)
		}
		if s.MaxLength == nil || *s.MaxLength > 200 {
			return huh.NewText().Title(title).Description(s.Desc).Value(&text).Validate(validate), get, true
		}
		return huh.NewInput().Title(title).Description(s.Desc).Value(&text).Validate(validate), get, true
	}
	return nil, nil, false
}

func bounds(s *schemaDoc) string {
	var parts []string
	if s.Minimum != nil {
		parts = append(parts, fmt.Sprintf("at least %g", *s.Minimum))
	}
	if s.Maximum != nil {
		parts = append(parts, fmt.Sprintf("at most %g", *s.Maximum))
	}
	return strings.Join(parts, ", ")
}

// objectFields asks a flat object one field per property, required ones first marked *.
func objectFields(s *schemaDoc) ([]huh.Field, func() (json.RawMessage, error), bool) {
	if s.typ() != "object" || len(s.Properties) == 0 {
		return nil, nil, false
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		ra, rb := slices.Contains(s.Required, a), slices.Contains(s.Required, b)
		if ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	var fields []huh.Field
	getters := map[string]func() (json.RawMessage, error){}
	for _, name := range names {
		title := name
		if p := s.Properties[name]; p.Title != "" {
			title = p.Title
		}
		required := slices.Contains(s.Required, name)
		if required {
			title += " *"
		}
		f, get, ok := scalarField(title, s.Properties[name], required)
		if !ok {
			return nil, nil, false
		}
		fields = append(fields, f)
		getters[name] = get
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
	f := huh.NewText().Title(inq.Prompt).Description("Answer as JSON that fits: " + string(inq.ResponseSchema)).Value(&text).
		Validate(func(v string) error {
			if !json.Valid([]byte(v)) {
				return errors.New("not valid JSON")
			}
			return nil
		})
	return []huh.Field{f}, func() (json.RawMessage, error) { return json.RawMessage(text), nil }
}

// askForm runs the answer form for inq on in and out.
func askForm(inq *hitl.Inquiry, in io.Reader, out io.Writer) (json.RawMessage, error) {
	fields, get := answerForm(inq)
	if err := huh.NewForm(huh.NewGroup(fields...)).WithAccessible(accessible()).
		WithInput(oneByteReader{in}).WithOutput(out).Run(); err != nil {
		return nil, err
	}
	return get()
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
