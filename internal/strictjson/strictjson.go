// Package strictjson reads untrusted JSON into the domain's request types strictly, so that
// what the engine checks and stores is what the sender meant: the API's bodies, its WebSocket
// commands and the MCP tools' arguments all go through it.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hitl-dev/hitl"
)

// strict is jsonv2's defaults (exact names, no duplicate names, valid UTF-8) and no unknown
// members.
var strict = jsonv2.RejectUnknownMembers(true)

// Unmarshal reads one JSON value from data into v strictly: member names match exactly (a
// name in another case is an unknown member), a name given twice anywhere is refused (parsers
// disagree on which one counts), and so are unknown members, invalid UTF-8, trailing data and
// values of the wrong type. The error is an EInvalid *hitl.Error that says where, for people.
//
// encoding/json matches names without regard to case and keeps the last of two; the
// reference implementation of encoding/json/v2 does neither by default and reads the domain
// types' json tags, json.RawMessage and time.Time as encoding/json does (and Go 1.26's own
// encoding/json/v2 still needs GOEXPERIMENT).
func Unmarshal(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return ErrEmpty
	}
	dec := decoders.Get().(*jsontext.Decoder)
	defer func() {
		dec.Reset(noBody)
		decoders.Put(dec)
	}()
	dec.Reset(bytes.NewBuffer(data)) // read in place
	if err := jsonv2.UnmarshalDecode(dec, v, strict); err != nil {
		return readError(err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return hitl.Errorf(hitl.EInvalid, "the request body holds more than one JSON value")
	}
	return nil
}

// Decoders keep their state's buffers from one body to the next.
var (
	noBody   = bytes.NewReader(nil)
	decoders = sync.Pool{New: func() any { return jsontext.NewDecoder(noBody) }}
)

// ErrEmpty is the error for a body with no JSON value at all.
var ErrEmpty = &hitl.Error{Code: hitl.EInvalid, Message: "the request body is empty; send a JSON object"}

func readError(err error) error {
	var (
		syn *jsontext.SyntacticError
		sem *jsonv2.SemanticError
	)
	switch {
	case errors.As(err, &syn) && errors.Is(syn.Err, jsontext.ErrDuplicateName):
		name := syn.JSONPointer.LastToken()
		return &hitl.Error{Code: hitl.EInvalid, Message: fmt.Sprintf("%s: duplicate key %q", syn.JSONPointer, name),
			Fields: []hitl.FieldError{{Path: string(syn.JSONPointer), Message: fmt.Sprintf("duplicate key %q", name)}}}
	case errors.As(err, &syn) && errors.Is(syn.Err, io.ErrUnexpectedEOF):
		return hitl.Errorf(hitl.EInvalid, "malformed JSON: the body ends too early")
	case errors.As(err, &syn):
		return hitl.Errorf(hitl.EInvalid, "malformed JSON at byte %d: %v", syn.ByteOffset, syn.Err)
	case errors.As(err, &sem) && errors.Is(sem.Err, jsonv2.ErrUnknownName):
		name := sem.JSONPointer.LastToken()
		return &hitl.Error{Code: hitl.EInvalid, Message: fmt.Sprintf("unknown field %q", name),
			Fields: []hitl.FieldError{{Path: string(sem.JSONPointer), Message: "unknown field"}}}
	case errors.As(err, &sem):
		return typeError(sem)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return hitl.Errorf(hitl.EInvalid, "malformed JSON: the body ends too early")
	default:
		return hitl.Errorf(hitl.EInvalid, "malformed request body: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
}

// typeError says what a member should have been, for people: "/prompt: expected a string, got
// JSON number".
func typeError(sem *jsonv2.SemanticError) error {
	path := string(sem.JSONPointer)
	msg := "expected " + Describe(sem.GoType)
	switch {
	case sem.Err != nil && sem.GoType != nil && sem.GoType != timeType && reflect.PointerTo(sem.GoType).Implements(unmarshalerType):
		msg = sem.Err.Error() // a type of hitl's that reads itself says what it wants
	case errors.As(sem.Err, new(*time.ParseError)):
		// Go's parse error names its layout ("2006-01-02T15:04:05Z07:00"), which reads as a
		// date to people; an example of the format says what is wanted.
		var bad *time.ParseError
		errors.As(sem.Err, &bad)
		msg += fmt.Sprintf(" with a date, T, a time and a zone, like 2026-12-22T09:00:00Z or 2026-12-22T09:00:00+01:00; got %q", bad.Value)
		if bad.Message != "" { // the format is right, a part out of range: "month out of range"
			msg += bad.Message
		}
	case sem.Err != nil && sem.JSONKind == '0':
		msg += fmt.Sprintf(", got JSON number %s: %v", sem.JSONValue, sem.Err)
	case sem.Err != nil:
		msg += ": " + strings.TrimPrefix(sem.Err.Error(), "json: ")
	case sem.JSONKind != 0:
		msg += ", got JSON " + kindName[sem.JSONKind]
	}
	if path == "" {
		return hitl.Errorf(hitl.EInvalid, "the request body: %s", msg)
	}
	return &hitl.Error{Code: hitl.EInvalid, Message: path + ": " + msg, Fields: []hitl.FieldError{{Path: path, Message: msg}}}
}

var kindName = map[jsontext.Kind]string{'n': "null", 'f': "false", 't': "true", '"': "string", '0': "number", '{': "object", '[': "array"}

var (
	timeType        = reflect.TypeFor[time.Time]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// Describe says what a value of Go type t is in JSON, for people: "a string", "an object".
func Describe(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == nil:
		return "another value"
	case t == timeType:
		return "an RFC 3339 time"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}
