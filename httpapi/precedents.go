package httpapi

import (
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// precedents serves answer memory: how the question of the path was answered before (at most
// five, newest first, only those the caller may see); 404 for an inquiry it may not see.
func (s *Server) precedents(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	id, err := httpwire.InquiryID(r)
	if err != nil {
		return err
	}
	out, err := s.engine.Precedents(r.Context(), p, id)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, out)
}
