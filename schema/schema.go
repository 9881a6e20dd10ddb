// Package schema compiles the JSON Schemas (draft 2020-12) that inquiries give for their
// answers and validates answers against them, reporting every error with its JSON path.
//
// Schemas come from agents and are untrusted: no $ref is ever loaded from a file or the
// network, only the standard meta-schemas built into the library resolve; a schema whose
// validation would cost too much is refused when compiled, and an answer too large for its
// schema's cost is refused without being validated (see MaxWork). The caller bounds the size
// and nesting of schemas and values, and the size of their numbers, before they get here:
// the validator computes with numbers exactly, so 1e999999 costs it seconds.
//
// format is asserted: "not-an-email" does not pass {"format":"email"}. The formats known are
// those of draft 2020-12 (email, date-time, date, time, duration, uri, uri-reference, iri,
// uuid, hostname, ipv4, ipv6, json-pointer, regex, ...); an unknown format passes.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/hitl-dev/hitl"
)

// Schema is a compiled JSON Schema.
type Schema struct {
	compiled *jsonschema.Schema
	cost     cost // what validating costs (cost.go)
}

// refusingLoader refuses every external document: agents' schemas must not make the server
// read files or fetch URLs.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("loading external schemas is not allowed (%s)", url)
}

const resourceURL = "inquiry.json"

var printer = message.NewPrinter(language.English)

// Compile compiles a schema document. The error says what is wrong, in one line.
func Compile(doc json.RawMessage) (s *Schema, err error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %v", err)
	}
	defer func() {
		if r := recover(); r != nil { // the library has panicked on numbers it cannot hold
			s, err = nil, fmt.Errorf("invalid schema: the validator cannot use it (%v)", r)
		}
	}()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refusingLoader{})
	c.AssertFormat()
	if err := c.AddResource(resourceURL, v); err != nil {
		return nil, fmt.Errorf("invalid schema: %v", err)
	}
	compiled, err := c.Compile(resourceURL)
	if err != nil {
		return nil, fmt.Errorf("invalid schema: %s", oneLine(err))
	}
	cost, err := costOf(compiled)
	if err != nil {
		return nil, fmt.Errorf("invalid schema: %v", err)
	}
	return &Schema{compiled: compiled, cost: cost}, nil
}

// oneLine flattens the library's multi-line error text.
func oneLine(err error) string {
	var se *jsonschema.SchemaValidationError
	if errors.As(err, &se) && se.Err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(se.Err, &ve) {
			var parts []string
			for _, l := range leaves(ve) {
				parts = append(parts, l.Path+": "+l.Message)
			}
			return strings.Join(parts, "; ")
		}
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}

// Validate checks a JSON value against the schema and returns every failure, each with the
// JSON pointer of the failing place in the value; nil means valid.
func (s *Schema) Validate(value json.RawMessage) []hitl.FieldError {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return []hitl.FieldError{{Path: "", Message: "not valid JSON"}}
	}
	return s.ValidateValue(v)
}

// ValidateValue is Validate for a value already decoded as encoding/json decodes into an
// interface with UseNumber. An answer whose validation would cost more than MaxWork is refused
// without being validated.
func (s *Schema) ValidateValue(v any) (fields []hitl.FieldError) {
	if work := answerCost(v, s.cost, MaxWork); work > MaxWork {
		return []hitl.FieldError{{Path: "", Message: "is too large to check against this schema: make it smaller, or the schema simpler"}}
	}
	defer func() {
		if r := recover(); r != nil { // the library has panicked on numbers it cannot hold
			fields = []hitl.FieldError{{Path: "", Message: fmt.Sprintf("cannot be checked against this schema (%v)", r)}}
		}
	}()
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []hitl.FieldError{{Path: "", Message: err.Error()}}
	}
	return leaves(ve)
}

const (
	maxFieldErrors = 50
	maxMessage     = 300 // characters
)

// leaves turns the library's error tree into its leaf errors, the ones that say what is wrong.
func leaves(ve *jsonschema.ValidationError) []hitl.FieldError {
	var out []hitl.FieldError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		_, names := e.ErrorKind.(*kind.PropertyNames) // its causes say what is wrong with the name, not where
		if len(e.Causes) == 0 || names {
			out = append(out, leafErrors(e)...)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	out = slices.CompactFunc(out, func(a, b hitl.FieldError) bool { return a == b })
	// An answer can fail in many places, and a message can list a long enum: the problem
	// document stays small whatever the answer and the schema.
	if len(out) > maxFieldErrors {
		out = out[:maxFieldErrors]
	}
	for i, fe := range out {
		if r := []rune(fe.Message); len(r) > maxMessage {
			out[i].Message = string(r[:maxMessage]) + "…"
		}
	}
	return out
}

// leafErrors says what one failed keyword wants, in words. A missing property is reported at
// its own path, as "is required", and a missing property each: a form shows it beside the
// field left empty.
func leafErrors(e *jsonschema.ValidationError) []hitl.FieldError {
	var missing []string
	because := ""
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		missing = k.Missing
	case *kind.DependentRequired:
		missing, because = k.Missing, fmt.Sprintf(" when %q is given", k.Prop)
	case *kind.Dependency:
		missing, because = k.Missing, fmt.Sprintf(" when %q is given", k.Prop)
	}
	if missing != nil {
		out := make([]hitl.FieldError, len(missing))
		for i, name := range missing {
			out[i] = hitl.FieldError{Path: pointer(append(slices.Clip(e.InstanceLocation), name)), Message: missingWords + because}
		}
		return out
	}
	msg, ok := problemWords(e.ErrorKind)
	if !ok {
		msg = e.ErrorKind.LocalizedString(printer)
	}
	return []hitl.FieldError{{Path: pointer(e.InstanceLocation), Message: msg}}
}

// pointer renders a location as an RFC 6901 JSON pointer ("" is the whole value).
func pointer(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		tok = strings.ReplaceAll(tok, "~", "~0")
		b.WriteString(strings.ReplaceAll(tok, "/", "~1"))
	}
	return b.String()
}

// Cache keeps compiled schemas by their text, so answering does not recompile the same
// schema for every inquiry. It holds at most max entries and maxBytes of schema text; when
// full it forgets entries at random (Go's map order), not all at once: a burst of new schemas
// costs the schemas in use a recompilation each, not the whole cache's.
type Cache struct {
	mu       sync.Mutex
	max      int
	maxBytes int
	bytes    int
	m        map[string]*Schema
}

// NewCache returns a cache of at most max schemas and maxBytes of their text.
func NewCache(max, maxBytes int) *Cache {
	return &Cache{max: max, maxBytes: maxBytes, m: make(map[string]*Schema)}
}

// Compile returns the compiled schema for doc, compiling it on first use. Two callers that
// miss at once both compile; the schema is the same.
func (c *Cache) Compile(doc json.RawMessage) (*Schema, error) {
	c.mu.Lock()
	s, ok := c.m[string(doc)]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := Compile(doc)
	if err != nil {
		return nil, err
	}
	key := string(doc)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; ok || len(key) > c.maxBytes {
		return s, nil
	}
	for k := range c.m {
		if len(c.m) < c.max && c.bytes+len(key) <= c.maxBytes {
			break
		}
		delete(c.m, k)
		c.bytes -= len(k)
	}
	c.m[key] = s
	c.bytes += len(key)
	return s, nil
}

// Len reports how many schemas the cache holds and their text's size.
func (c *Cache) Len() (n, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m), c.bytes
}
