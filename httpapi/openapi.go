package httpapi

import (
	_ "embed"
	"net/http"

	"github.com/hitl-dev/hitl"
)

// openapiDoc is the API reference, served as is; a test keeps it in step with the routes
// mounted (ownRoutes and the protocols').
//
//go:embed openapi.json
var openapiDoc []byte

func (s *Server) openapi(w http.ResponseWriter, r *http.Request, _ *hitl.Principal) error {
	w.Header().Set("Content-Type", "application/json")
	_, err := w.Write(openapiDoc)
	return err
}
