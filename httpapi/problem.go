package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hitl-dev/hitl"
)

// HTTP-only codes: no domain operation fails this way.
const (
	codeMethodNotAllowed     = "method_not_allowed"
	codeRequestTimeout       = "request_timeout"        // the body did not arrive in time
	codeUnsupportedMediaType = "unsupported_media_type" // e.g. POST /mcp without application/json
	codeUpgradeRequired      = "upgrade_required"       // GET /v1/ws without a WebSocket upgrade
)

// Status is the one HTTP status of a domain error code (the web inbox's pages use it too).
func Status(code string) int { return statusOf[code] }

// statusOf maps each domain error code to its one HTTP status.
var statusOf = map[string]int{
	hitl.EInvalid:            http.StatusBadRequest,
	hitl.EUnauthorized:       http.StatusUnauthorized,
	hitl.EForbidden:          http.StatusForbidden,
	hitl.ENotFound:           http.StatusNotFound,
	hitl.EConflict:           http.StatusConflict,
	hitl.ETooLarge:           http.StatusRequestEntityTooLarge,
	hitl.EInvalidResponse:    http.StatusUnprocessableEntity,
	hitl.ERateLimited:        http.StatusTooManyRequests,
	hitl.EInternal:           http.StatusInternalServerError,
	hitl.EUnavailable:        http.StatusServiceUnavailable,
	codeMethodNotAllowed:     http.StatusMethodNotAllowed,
	codeRequestTimeout:       http.StatusRequestTimeout,
	codeUnsupportedMediaType: http.StatusUnsupportedMediaType,
	codeUpgradeRequired:      http.StatusUpgradeRequired,
}

// codeOf is the code of an HTTP error status (one a library chose): the code the table maps
// to it, else invalid for a client's error and internal for the server's.
func codeOf(status int) string {
	for code, st := range statusOf {
		if st == status {
			return code
		}
	}
	if status >= 500 {
		return hitl.EInternal
	}
	return hitl.EInvalid
}

// Problem is an RFC 9457 problem details body with hitl's stable code.
type Problem struct {
	Type    string            `json:"type"`
	Title   string            `json:"title"`
	Status  int               `json:"status"`
	Detail  string            `json:"detail"`
	Code    string            `json:"code"`
	Errors  []hitl.FieldError `json:"errors,omitempty"`
	Inquiry *hitl.Inquiry     `json:"inquiry,omitempty"`
}

// problem writes err as problem+json. Errors that are not domain errors are logged in full
// and shown only as "internal error".
func (s *Server) problem(w http.ResponseWriter, r *http.Request, err error) {
	code := hitl.ErrorCode(err)
	status := statusOf[code]
	p := Problem{Type: "urn:hitl:problem:" + code, Title: http.StatusText(status), Status: status, Code: code, Detail: hitl.ErrorMessage(err)}
	var de *hitl.Error
	if errors.As(err, &de) {
		p.Errors, p.Inquiry = de.Fields, de.Inquiry
	}
	if code == hitl.EInternal {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(p)
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
}

// decode reads one JSON value from the body into v strictly, so that what the engine checks and
// stores is what the client meant: member names match exactly (a name in another case is an
// unknown member, as the OpenAPI document's additionalProperties: false says), a name given
// twice anywhere in the body is refused (parsers disagree on which one counts), and so are
// unknown members, invalid UTF-8, trailing data and values of the wrong type, each with where.
// An oversized body is ETooLarge.
//
// encoding/json matches names without regard to case and keeps the last of two; the
// reference implementation of encoding/json/v2 does neither by default and reads the domain
// types' json tags, json.RawMessage and time.Time as encoding/json does (and Go 1.26's own
// encoding/json/v2 still needs GOEXPERIMENT).
func decode(r *http.Request, v any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return decodeError(err)
	}
	return unmarshal(body, v)
}

// strict is jsonv2's defaults (exact names, no duplicate names, valid UTF-8) and no unknown
// members.
var strict = jsonv2.RejectUnknownMembers(true)

// unmarshal is decode for a body already read (and a WebSocket message).
func unmarshal(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errEmptyBody
	}
	dec := decoders.Get().(*jsontext.Decoder)
	defer func() {
		dec.Reset(noBody)
		decoders.Put(dec)
	}()
	dec.Reset(bytes.NewBuffer(data)) // read in place
	if err := jsonv2.UnmarshalDecode(dec, v, strict); err != nil {
		return decodeError(err)
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

// decodeOptional is decode for bodies that may be empty.
func decodeOptional(r *http.Request, v any) error {
	if r.ContentLength == 0 {
		return nil
	}
	err := decode(r, v)
	if r.ContentLength < 0 && errors.Is(err, errEmptyBody) {
		return nil
	}
	return err
}

var errEmptyBody = &hitl.Error{Code: hitl.EInvalid, Message: "the request body is empty; send a JSON object"}

func decodeError(err error) error {
	var (
		mbe *http.MaxBytesError
		syn *jsontext.SyntacticError
		sem *jsonv2.SemanticError
	)
	switch {
	case errors.As(err, &mbe):
		return hitl.Errorf(hitl.ETooLarge, "the request body is larger than %d bytes", mbe.Limit)
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
	msg := "expected " + describe(sem.GoType)
	switch {
	case sem.Err != nil && sem.GoType != nil && sem.GoType != timeType && reflect.PointerTo(sem.GoType).Implements(unmarshalerType):
		msg = sem.Err.Error() // a type of hitl's that reads itself says what it wants
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

func describe(t reflect.Type) string {
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
