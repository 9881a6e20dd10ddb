package httpwire

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
)

// HTTP-only codes: no domain operation fails this way.
const (
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeRequestTimeout       = "request_timeout"        // the body did not arrive in time
	CodeUnsupportedMediaType = "unsupported_media_type" // e.g. POST /mcp without application/json
	CodeUpgradeRequired      = "upgrade_required"       // GET /v1/ws without a WebSocket upgrade
)

// Status is the one HTTP status of an error code (the web inbox's pages use it too).
func Status(code string) int { return statusOf[code] }

// statusOf maps each error code to its one HTTP status.
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
	CodeMethodNotAllowed:     http.StatusMethodNotAllowed,
	CodeRequestTimeout:       http.StatusRequestTimeout,
	CodeUnsupportedMediaType: http.StatusUnsupportedMediaType,
	CodeUpgradeRequired:      http.StatusUpgradeRequired,
}

// CodeOf is the code of an HTTP error status (one a library chose): the code the table maps
// to it, else invalid for a client's error and internal for the server's.
func CodeOf(status int) string {
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
	// Message is the detail again, for the clients of protocols whose SDKs show message
	// (OpenIntent's): set under /api/ and /.well-known/ (WithMessage), absent under /v1.
	Message string `json:"message,omitempty"`
}

// WithMessage is p with its detail also as message when path is under /api/ or /.well-known/,
// where the protocols served (OpenIntent, Nova) have clients that read message.
func (p Problem) WithMessage(path string) Problem {
	if strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/.well-known/") {
		p.Message = p.Detail
	}
	return p
}

// WriteProblem writes err as problem+json, the answer to a request for path (WithMessage);
// an error that is no domain error shows only as "internal error" (the caller logs it in full).
func WriteProblem(w http.ResponseWriter, path string, err error) {
	p := ProblemOf(err).WithMessage(path)
	WriteProblemBody(w, p.Status, p)
}

// ProblemOf is the problem err is shown as, for a protocol that adds members of its own to
// it (WriteProblemBody).
func ProblemOf(err error) Problem {
	code := hitl.ErrorCode(err)
	status := statusOf[code]
	p := Problem{Type: "urn:hitl:problem:" + code, Title: http.StatusText(status), Status: status, Code: code, Detail: hitl.ErrorMessage(err)}
	var de *hitl.Error
	if errors.As(err, &de) {
		p.Errors, p.Inquiry = de.Fields, de.Inquiry
	}
	return p
}

// WriteProblemBody writes body, a Problem or one with members added, as problem+json.
func WriteProblemBody(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

// StartStream answers 200 with the headers of a stream of contentType (Server-Sent Events,
// NDJSON): never cached, nor buffered by proxies. Its first write must finish within timeout;
// the writer moves the deadline on with the controller it returns.
func StartStream(w http.ResponseWriter, contentType string, timeout time.Duration) *http.ResponseController {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // tell proxies not to buffer the stream
	rc.SetWriteDeadline(time.Now().Add(timeout))
	w.WriteHeader(http.StatusOK)
	return rc
}

// WriteJSON writes v as the JSON answer, never to be cached.
func WriteJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
}
