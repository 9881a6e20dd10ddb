package mcp

import (
	"bytes"
	"io"
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
)

// EngineBackend is the backend of /mcp, for the tests of the package's own wrappers.
func EngineBackend(e *engine.Engine, p *hitl.Principal) Backend {
	return engineBackend{engine: e, p: p}
}

// AnswerTaskRequest answers a task method's POST on streamable HTTP; the body stays readable
// for the transport when it does not.
func AnswerTaskRequest(w http.ResponseWriter, r *http.Request, b Backend) bool {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return answerTaskRequest(w, r, body, b)
}
