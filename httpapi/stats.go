package httpapi

import (
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// stats serves the numbers of a window (?since=7d): every inquiry's for admins, its own for a
// responder, 403 for anyone else; a since that is not a duration, or is 0, negative or more
// than 366 days, is 400 with what it must be.
func (s *Server) stats(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	since := r.URL.Query()["since"]
	if len(since) > 1 {
		return hitl.Errorf(hitl.EInvalid, "since is given %d times; give it once, like since=7d", len(since))
	}
	st, err := s.engine.Stats(r.Context(), p, r.URL.Query().Get("since"))
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, st)
}
