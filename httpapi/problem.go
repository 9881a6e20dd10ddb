package httpapi

import (
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// problem writes err as problem+json (httpwire.WriteProblem). Errors that are not domain errors
// are logged in full and shown only as "internal error".
func (s *Server) problem(w http.ResponseWriter, r *http.Request, err error) {
	if hitl.ErrorCode(err) == hitl.EInternal {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	httpwire.WriteProblem(w, r.URL.Path, err)
}
