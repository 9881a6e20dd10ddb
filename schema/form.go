package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// The form model: the inputs that ask a person for a value a JSON Schema describes, and the
// reading of what the person entered back into JSON. Forms only help the person; the answer
// is still validated against the schema by the engine. What a form cannot express (oneOf,
// $ref, arrays of objects, ...) becomes one JSON field.

// Kind is how a field is entered.
type Kind string

const (
	KindBoolean  Kind = "boolean"  // yes / no
	KindChoice   Kind = "choice"   // one of an enum of strings
	KindChoices  Kind = "choices"  // an array of an enum of strings: any of them
	KindInteger  Kind = "integer"  // a whole number
	KindNumber   Kind = "number"   // any number
	KindText     Kind = "text"     // one line of text (Format tells which kind of line)
	KindTextArea Kind = "textarea" // longer text
	KindObject   Kind = "object"   // a group of fields
	KindList     Kind = "list"     // an array of numbers or strings, one row each
	KindJSON     Kind = "json"     // any JSON value, typed as text
)

// RootName is the form name of the whole answer; a property's name adds its JSON pointer.
const RootName = "answer"

// maxFormDepth and maxFormFields keep forms from hostile schemas small: beyond them the rest
// is one JSON field.
const (
	maxFormDepth  = 6
	maxFormFields = 200
)

// Field is one input of a form, or a group of them.
type Field struct {
	Name        string // the form field name: RootName followed by Path
	Path        string // the JSON pointer of the value in the answer ("" is the whole answer)
	Key         string // the property name in the parent object
	Kind        Kind
	Title       string
	Description string
	Required    bool
	Choices     []string // KindChoice, KindChoices
	Min, Max    *float64
	// ExclusiveMin, ExclusiveMax: bounds the value may not reach (the input cannot say them).
	ExclusiveMin, ExclusiveMax *float64
	// Step is the input's step: "1" for integers, "any" for other numbers, or multipleOf.
	Step                 string
	MinLength, MaxLength *int
	Pattern              string
	// Format is email, uri, date or date-time for text that has one; password for a secret
	// (format password, or writeOnly), which the form masks.
	Format             string
	Fields             []*Field // KindObject: the properties, in the schema's order
	Item               *Field   // KindList: one row
	MinItems, MaxItems *int
	// Example is a value that fits, built from the schema, for a JSON field: what to type is
	// easier to see than to read out of a schema.
	Example string
}

// schemaNode is the part of a schema a form can express.
type schemaNode struct {
	Type       json.RawMessage   `json:"type"`
	Enum       []any             `json:"enum"`
	Properties orderedObject     `json:"properties"`
	Required   []string          `json:"required"`
	Items      *json.RawMessage  `json:"items"`
	Minimum    *float64          `json:"minimum"`
	Maximum    *float64          `json:"maximum"`
	ExclMin    *float64          `json:"exclusiveMinimum"`
	ExclMax    *float64          `json:"exclusiveMaximum"`
	MultipleOf *float64          `json:"multipleOf"`
	MinLength  *int              `json:"minLength"`
	MaxLength  *int              `json:"maxLength"`
	MinItems   *int              `json:"minItems"`
	MaxItems   *int              `json:"maxItems"`
	Pattern    string            `json:"pattern"`
	Format     string            `json:"format"`
	WriteOnly  bool              `json:"writeOnly"`
	Title      string            `json:"title"`
	Desc       string            `json:"description"`
	Default    json.RawMessage   `json:"default"`
	Examples   []json.RawMessage `json:"examples"`
	// Any of these makes a value the form cannot build field by field.
	OneOf json.RawMessage `json:"oneOf"`
	AnyOf json.RawMessage `json:"anyOf"`
	AllOf json.RawMessage `json:"allOf"`
	Ref   string          `json:"$ref"`
	Const json.RawMessage `json:"const"`
	Not   json.RawMessage `json:"not"`
	If    json.RawMessage `json:"if"`
}

// orderedObject keeps an object's members in the order the schema lists them: a form shows
// the properties as their author ordered them.
type orderedObject struct {
	keys   []string
	values []json.RawMessage
}

func (o *orderedObject) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("properties must be an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		o.keys = append(o.keys, t.(string))
		o.values = append(o.values, v)
	}
	return nil
}

func (n *schemaNode) typ() string {
	var t string
	json.Unmarshal(n.Type, &t)
	return t
}

func (n *schemaNode) combined() bool {
	return n.OneOf != nil || n.AnyOf != nil || n.AllOf != nil || n.Ref != "" || n.Const != nil || n.Not != nil || n.If != nil
}

// stringEnum is the enum when every value is a string.
func (n *schemaNode) stringEnum() ([]string, bool) {
	if len(n.Enum) == 0 {
		return nil, false
	}
	out := make([]string, len(n.Enum))
	for i, v := range n.Enum {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// FormFor builds the form of the answer a schema describes. A document that is not a schema
// object gives one JSON field.
func FormFor(doc json.RawMessage) *Field {
	b := formBuilder{}
	return b.field(doc, "", "", true, 0)
}

type formBuilder struct{ fields int }

func (b *formBuilder) field(doc json.RawMessage, path, key string, required bool, depth int) *Field {
	b.fields++
	f := &Field{Name: RootName + path, Path: path, Key: key, Required: required, Kind: KindJSON}
	var n schemaNode
	if json.Unmarshal(doc, &n) != nil {
		return f
	}
	f.Title, f.Description = n.Title, n.Desc
	defer func() {
		if f.Kind == KindJSON {
			f.Example = exampleFor(doc)
		}
	}()
	if n.combined() || depth > maxFormDepth || b.fields > maxFormFields {
		return f
	}
	if enum, ok := n.stringEnum(); ok {
		f.Kind, f.Choices = KindChoice, enum
		return f
	}
	switch n.typ() {
	case "boolean":
		f.Kind = KindBoolean
	case "integer", "number":
		f.Kind, f.Min, f.Max, f.Step = KindNumber, n.Minimum, n.Maximum, "any"
		f.ExclusiveMin, f.ExclusiveMax = n.ExclMin, n.ExclMax
		if n.typ() == "integer" {
			f.Kind, f.Step = KindInteger, "1"
		}
		if n.MultipleOf != nil && *n.MultipleOf > 0 {
			f.Step = strconv.FormatFloat(*n.MultipleOf, 'f', -1, 64)
		}
	case "string":
		f.MinLength, f.MaxLength, f.Pattern = n.MinLength, n.MaxLength, n.Pattern
		switch {
		case n.Format == "password" || n.WriteOnly: // a secret: typed unseen, one line
			f.Format = "password"
		case n.Format == "email", n.Format == "uri", n.Format == "date", n.Format == "date-time":
			f.Format = n.Format
		}
		f.Kind = KindTextArea
		if f.Format != "" || f.Pattern != "" || (n.MaxLength != nil && *n.MaxLength <= 200) {
			f.Kind = KindText
		}
	case "object":
		if len(n.Properties.keys) == 0 || b.fields+len(n.Properties.keys) > maxFormFields {
			return f
		}
		f.Kind = KindObject
		for i, k := range n.Properties.keys {
			req := slices.Contains(n.Required, k)
			f.Fields = append(f.Fields, b.field(n.Properties.values[i], path+"/"+escapePointer(k), k, req, depth+1))
		}
	case "array":
		if n.Items == nil {
			return f
		}
		item := b.field(*n.Items, path+"/-", "", true, depth+1)
		switch item.Kind {
		case KindChoice:
			f.Kind, f.Choices = KindChoices, item.Choices
		case KindText, KindTextArea, KindInteger, KindNumber:
			f.Kind, f.Item = KindList, item
			item.Name = f.Name // every row is sent under the list's name
			if item.Kind == KindTextArea {
				item.Kind = KindText // rows are lines
			}
		default:
			return f
		}
		f.MinItems, f.MaxItems = n.MinItems, n.MaxItems
	}
	return f
}

// escapePointer escapes a property name for a JSON pointer (RFC 6901).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// NeedsValue tells whether the field may not be left empty: a required field, but for a text
// the schema lets be empty (no minLength, no format) and a list or choices that may have no
// item, and a group, which its own fields fill. A form says "is required" for such a field
// left empty, in the page as the person leaves it and in what Read finds.
func (f *Field) NeedsValue() bool {
	if !f.Required {
		return false
	}
	switch f.Kind {
	case KindObject:
		return false
	case KindText, KindTextArea:
		return f.MinLength != nil && *f.MinLength > 0 || f.Format != ""
	case KindChoices, KindList:
		return f.MinItems != nil && *f.MinItems > 0
	}
	return true
}

// Read builds the answer from submitted form values (name → values, as a form posts them).
// Every problem a person can fix is returned with the path of its field; nothing is checked
// against the schema here. With the problems comes the answer made of the fields that could
// be read (nil when there is none), for the schema to find the problems of the rest at the
// same time: a person fixes everything after one submit.
func (f *Field) Read(form map[string][]string) (json.RawMessage, []hitl.FieldError) {
	var errs []hitl.FieldError
	v, present := f.read(form, &errs)
	if !present {
		if len(errs) == 0 {
			errs = []hitl.FieldError{{Path: f.Path, Message: "is required: fill in the answer"}}
		}
		return nil, errs
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, append(errs, hitl.FieldError{Path: f.Path, Message: err.Error()})
	}
	return b, errs
}

// read returns the field's value and whether one was given (an empty optional field is left
// out of its object).
func (f *Field) read(form map[string][]string, errs *[]hitl.FieldError) (any, bool) {
	fail := func(path, msg string) (any, bool) {
		*errs = append(*errs, hitl.FieldError{Path: path, Message: msg})
		return nil, false
	}
	first := ""
	if vs := form[f.Name]; len(vs) > 0 {
		first = strings.TrimSpace(vs[0])
	}
	switch f.Kind {
	case KindObject:
		obj := map[string]any{}
		for _, c := range f.Fields {
			if v, ok := c.read(form, errs); ok {
				obj[c.Key] = v
			}
		}
		return obj, len(obj) > 0 || f.Required
	case KindChoices:
		picked := []string{}
		for _, v := range form[f.Name] {
			if v != "" {
				picked = append(picked, v)
			}
		}
		if len(picked) == 0 && f.NeedsValue() {
			return fail(f.Path, missingWords)
		}
		return picked, len(picked) > 0 || f.Required
	case KindList:
		items := []any{}
		unread, rows := false, 0
		for _, raw := range form[f.Name] {
			if strings.TrimSpace(raw) == "" {
				continue
			}
			row := *f.Item
			row.Path = fmt.Sprintf("%s/%d", f.Path, rows) // the row's place among those filled in
			rows++
			v, ok := row.read(map[string][]string{row.Name: {raw}}, errs)
			if ok {
				items = append(items, v)
			}
			unread = unread || !ok
		}
		if unread { // the rows after one left out would be judged at the wrong index
			return nil, false
		}
		if len(items) == 0 && f.NeedsValue() {
			return fail(f.Path, missingWords)
		}
		return items, len(items) > 0 || f.Required
	}
	if first == "" {
		switch {
		case f.NeedsValue():
			return fail(f.Path, missingWords)
		case f.Required:
			return "", true // a text the schema lets be empty
		}
		return nil, false
	}
	switch f.Kind {
	case KindBoolean:
		switch first {
		case "true":
			return true, true
		case "false":
			return false, true
		}
		return fail(f.Path, "choose yes or no")
	case KindInteger:
		if _, err := strconv.ParseInt(first, 10, 64); err != nil {
			return fail(f.Path, "enter a whole number")
		}
		return json.Number(first), true
	case KindNumber:
		n, err := strconv.ParseFloat(first, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return fail(f.Path, "enter a number")
		}
		if !json.Valid([]byte(first)) { // "+1", ".5": numbers, but not as JSON writes them
			first = strconv.FormatFloat(n, 'g', -1, 64)
		}
		return json.Number(first), true
	case KindJSON:
		var v json.RawMessage
		if err := json.Unmarshal([]byte(first), &v); err != nil {
			return fail(f.Path, "is not valid JSON: "+err.Error())
		}
		return v, true
	case KindText:
		if f.Format == "date-time" {
			return dateTime(first), true
		}
		return first, true
	}
	return first, true // choice, textarea
}

// dateTime turns what a datetime-local input sends (no seconds, no zone) into RFC 3339; the
// form says such times are UTC. A full RFC 3339 time is kept as typed.
func dateTime(v string) string {
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return v
}

// Values is Read the other way round: the form values that show value in the form's fields,
// for a form that starts from a value (the arguments a model proposed, for a person to edit).
// What the form cannot show field by field is shown as JSON, as its JSON fields take it.
func (f *Field) Values(value json.RawMessage) map[string][]string {
	out := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(value))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) == nil {
		f.fill(v, out)
	}
	return out
}

func (f *Field) fill(v any, out map[string][]string) {
	if v == nil {
		return
	}
	switch f.Kind {
	case KindObject:
		if m, ok := v.(map[string]any); ok {
			for _, c := range f.Fields {
				c.fill(m[c.Key], out)
			}
		}
		return
	case KindChoices, KindList:
		if items, ok := v.([]any); ok {
			for _, item := range items {
				out[f.Name] = append(out[f.Name], formText(item))
			}
		}
		return
	case KindJSON:
		b, _ := json.Marshal(v)
		out[f.Name] = []string{string(b)}
		return
	}
	out[f.Name] = []string{formText(v)}
}

// formText is a scalar as a form field holds it: a string as it is, anything else as JSON.
func formText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
