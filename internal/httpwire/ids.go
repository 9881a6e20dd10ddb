package httpwire

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/hitl-dev/hitl"
)

// InquiryID reads the inquiry id of the path ({id}); one that is no id is not found.
func InquiryID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, hitl.Errorf(hitl.ENotFound, "inquiry %q not found", r.PathValue("id"))
	}
	return id, nil
}

// IDInJSON reads an inquiry's id sent in a body as a JSON number or as a string of one (the
// seeds' clients keep ids as strings): the text as sent, and the id, 0 when it is not one.
func IDInJSON(raw json.RawMessage) (text string, id int64) {
	text = string(bytes.TrimSpace(raw))
	var s string
	if json.Unmarshal(raw, &s) == nil {
		text = s
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil && n > 0 {
		id = n
	}
	return text, id
}

// The engine's calls on one inquiry, which the routes of hitl's API and of the protocols that
// share its shapes make on the inquiry of the path.
type (
	InquiryFunc func(ctx context.Context, p *hitl.Principal, id int64) (*hitl.Inquiry, error)
	RespondFunc func(ctx context.Context, p *hitl.Principal, id int64, req *hitl.ResponseRequest) (*hitl.Inquiry, error)
	EndFunc     func(ctx context.Context, p *hitl.Principal, id int64, reason string) (*hitl.Inquiry, error)
	// RespondManyFunc is the engine's RespondMany.
	RespondManyFunc func(ctx context.Context, p *hitl.Principal, req *hitl.BulkResponseRequest) ([]hitl.BulkResult, error)
)

// PathInquiry reads the inquiry of the path, if the principal may see it (get: the engine's
// Inquiry).
func PathInquiry(r *http.Request, p *hitl.Principal, get InquiryFunc) (*hitl.Inquiry, error) {
	id, err := InquiryID(r)
	if err != nil {
		return nil, err
	}
	return get(r.Context(), p, id)
}

// Answer reads an answer to the inquiry of the path ({"response", "comment"}) and records it
// (respond: the engine's Respond).
func Answer(r *http.Request, p *hitl.Principal, respond RespondFunc) (*hitl.Inquiry, error) {
	id, err := InquiryID(r)
	if err != nil {
		return nil, err
	}
	var req hitl.ResponseRequest
	if err := Decode(r, &req); err != nil {
		return nil, err
	}
	return respond(r.Context(), p, id, &req)
}

// AnswerMany reads one answer to several inquiries (hitl.BulkResponseRequest) and records
// it on each (respondMany: the engine's RespondMany).
func AnswerMany(r *http.Request, p *hitl.Principal, respondMany RespondManyFunc) ([]hitl.BulkResult, error) {
	var req hitl.BulkResponseRequest
	if err := Decode(r, &req); err != nil {
		return nil, err
	}
	return respondMany(r.Context(), p, &req)
}

// WithReason calls end (the engine's Cancel or Decline) on the inquiry of the path with the
// reason the body may give ({"reason": "..."}; the body is optional).
func WithReason(r *http.Request, p *hitl.Principal, end EndFunc) (*hitl.Inquiry, error) {
	id, err := InquiryID(r)
	if err != nil {
		return nil, err
	}
	var req struct {
		Reason string `json:"reason"`
	}
	if err := DecodeOptional(r, &req); err != nil {
		return nil, err
	}
	return end(r.Context(), p, id, req.Reason)
}
