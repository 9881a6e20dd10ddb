package httpapi

import (
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// tool serves a tool definition for LLM function calling.
func (s *Server) tool(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	if name := r.PathValue("name"); name != hitl.ToolRequestUserInput {
		return hitl.UnknownTool(name)
	}
	return httpwire.WriteJSON(w, http.StatusOK, hitl.RequestUserInputDefinitions())
}
