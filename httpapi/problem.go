package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

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

// decode reads one JSON object from the body into v: unknown fields, trailing data, and
// values of the wrong type are errors that say where; an oversized body is ETooLarge.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return decodeError(err)
		}
		return hitl.Errorf(hitl.EInvalid, "the request body holds more than one JSON value")
	}
	return nil
}

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
		se  *json.SyntaxError
		te  *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &mbe):
		return hitl.Errorf(hitl.ETooLarge, "the request body is larger than %d bytes", mbe.Limit)
	case errors.Is(err, io.EOF):
		return errEmptyBody
	case errors.Is(err, io.ErrUnexpectedEOF):
		return hitl.Errorf(hitl.EInvalid, "malformed JSON: the body ends too early")
	case errors.As(err, &se):
		return hitl.Errorf(hitl.EInvalid, "malformed JSON at byte %d: %s", se.Offset, se.Error())
	case errors.As(err, &te):
		path := "/" + strings.ReplaceAll(te.Field, ".", "/")
		return &hitl.Error{Code: hitl.EInvalid, Message: fmt.Sprintf("%s: expected %s, got JSON %s", path, te.Type, te.Value),
			Fields: []hitl.FieldError{{Path: path, Message: fmt.Sprintf("expected %s, got %s", te.Type, te.Value)}}}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &hitl.Error{Code: hitl.EInvalid, Message: fmt.Sprintf("unknown field %q", field),
			Fields: []hitl.FieldError{{Path: "/" + field, Message: "unknown field"}}}
	default:
		return hitl.Errorf(hitl.EInvalid, "malformed request body: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
}
