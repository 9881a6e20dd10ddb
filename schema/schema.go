// Package schema compiles the JSON Schemas (draft 2020-12) that inquiries give for their
// answers and validates answers against them, reporting every error with its JSON path.
//
// Schemas come from agents and are untrusted: no $ref is ever loaded from a file or the
// network, only the standard meta-schemas built into the library resolve.
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
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/hitl-dev/hitl"
)

// Schema is a compiled JSON Schema.
type Schema struct {
	compiled *jsonschema.Schema
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
func Compile(doc json.RawMessage) (*Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refusingLoader{})
	if err := c.AddResource(resourceURL, v); err != nil {
		return nil, fmt.Errorf("invalid schema: %v", err)
	}
	s, err := c.Compile(resourceURL)
	if err != nil {
		return nil, fmt.Errorf("invalid schema: %s", oneLine(err))
	}
	return &Schema{compiled: s}, nil
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
	err = s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []hitl.FieldError{{Path: "", Message: err.Error()}}
	}
	return leaves(ve)
}

// leaves turns the library's error tree into its leaf errors, the ones that say what is wrong.
func leaves(ve *jsonschema.ValidationError) []hitl.FieldError {
	var out []hitl.FieldError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, hitl.FieldError{Path: pointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(printer)})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return slices.CompactFunc(out, func(a, b hitl.FieldError) bool { return a == b })
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
// schema for every inquiry. It holds at most max entries and starts over when full.
type Cache struct {
	mu  sync.Mutex
	max int
	m   map[string]*Schema
}

// NewCache returns a cache of at most max schemas.
func NewCache(max int) *Cache { return &Cache{max: max, m: make(map[string]*Schema)} }

// Compile returns the compiled schema for doc, compiling it on first use.
func (c *Cache) Compile(doc json.RawMessage) (*Schema, error) {
	key := string(doc)
	c.mu.Lock()
	s, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := Compile(doc)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[key] = s
	c.mu.Unlock()
	return s, nil
}
