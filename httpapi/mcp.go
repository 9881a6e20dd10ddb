package httpapi

import (
	"context"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/mcp"
)

type principalKey struct{}

// newMCPHandler serves MCP over streamable HTTP, stateless: every request carries its bearer
// token, is authenticated like any other, and gets a server whose tools act as its principal
// (a session id could not be trusted to stand for a token).
func (s *Server) newMCPHandler() http.Handler {
	return sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		p, _ := r.Context().Value(principalKey{}).(*hitl.Principal)
		return mcp.NewServer(mcp.EngineBackend{Engine: s.engine, Principal: p}, mcp.Options{Responder: mcp.Answers(p), WaitBound: s.cfg.MCPWaitBound})
	}, &sdk.StreamableHTTPOptions{Stateless: true})
}

func (s *Server) mcp(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	s.mcpHandler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	return nil
}
