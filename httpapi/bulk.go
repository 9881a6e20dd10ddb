package httpapi

import (
	"net/http"

	"github.com/hitl-dev/hitl"
)

// respondMany serves POST /v1/inquiries/respond: one answer to several inquiries, each
// answered or refused on its own; 200 with every inquiry's result, in the order of the ids.
func (s *Server) respondMany(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req hitl.BulkResponseRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	results, err := s.engine.RespondMany(r.Context(), p, &req)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, hitl.BulkResults{Results: results})
}

// decline serves POST /v1/inquiries/{id}/decline: a person who may answer refuses to, with
// an optional reason, where the agent allowed it (cancellable_by_responder). The inquiry is
// cancelled with the reason, and the agent's wait ends with it.
func (s *Server) decline(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	inq, err := s.declineInquiry(r, p)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, inq)
}

// declineInquiry declines the inquiry of the path, with the reason the body may give (also
// Nova's cancel).
func (s *Server) declineInquiry(r *http.Request, p *hitl.Principal) (*hitl.Inquiry, error) {
	return withReason(r, p, s.engine.Decline)
}
