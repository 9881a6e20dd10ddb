package mcp

import (
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
)

// EngineBackend is the backend of /mcp, for the tests of the package's own wrappers.
func EngineBackend(e *engine.Engine, p *hitl.Principal) Backend {
	return engineBackend{engine: e, p: p}
}

// AnswerTaskRequest answers a task method's POST on streamable HTTP.
func AnswerTaskRequest(w http.ResponseWriter, r *http.Request, b Backend) bool {
	return answerTaskRequest(w, r, b)
}
