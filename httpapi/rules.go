package httpapi

import (
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// Standing approvals (see engine/rules.go and docs/rules.md): admins make them; admins list and
// revoke every rule, people those they authored.

func (s *Server) createRule(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req hitl.RuleRequest
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	rule, err := s.engine.CreateRule(r.Context(), p, &req)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusCreated, rule)
}

func (s *Server) listRules(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	rules, err := s.engine.Rules(r.Context(), p)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, map[string]any{"rules": rules})
}

func (s *Server) revokeRule(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	rule, err := s.engine.RevokeRule(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, rule)
}
