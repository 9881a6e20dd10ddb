package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/strictjson"
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

// decode reads the body, already read whole by wrap (which answered a body too large or too
// slow), into v strictly (see strictjson).
func decode(r *http.Request, v any) error {
	body, err := io.ReadAll(r.Body) // from memory
	if err != nil {
		return hitl.Errorf(hitl.EInvalid, "the request body could not be read: %v", err)
	}
	return strictjson.Unmarshal(body, v)
}

// decodeOptional is decode for bodies that may be empty.
func decodeOptional(r *http.Request, v any) error {
	if r.ContentLength == 0 {
		return nil
	}
	err := decode(r, v)
	if r.ContentLength < 0 && errors.Is(err, strictjson.ErrEmpty) {
		return nil
	}
	return err
}
