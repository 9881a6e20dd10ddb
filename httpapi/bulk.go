package httpapi

import (
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// respondMany serves POST /v1/inquiries/respond: one answer to several inquiries, each
// answered or refused on its own; 200 with every inquiry's result, in the order of the ids.
func (s *Server) respondMany(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	results, err := httpwire.AnswerMany(r, p, s.engine.RespondMany)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, hitl.BulkResults{Results: results})
}

// decline serves POST /v1/inquiries/{id}/decline: a person who may answer refuses to, with
// an optional reason, unless the agent forbade it (cancellable_by_responder false). The
// inquiry is cancelled with the reason, and the agent's wait ends with it.
func (s *Server) decline(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	inq, err := httpwire.WithReason(r, p, s.engine.Decline)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, inq)
}
