package httpapi

import (
	"net/http"
	"strconv"

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

// ruleSuggestion is the standing approval the caller may make while answering the inquiry
// (engine/suggestions.go): {"suggestion": null} when there is none.
func (s *Server) ruleSuggestion(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	id, err := strconv.ParseInt(r.URL.Query().Get("inquiry"), 10, 64)
	if err != nil || id <= 0 {
		return hitl.Errorf(hitl.EInvalid, "inquiry must be the id of the inquiry being answered, like ?inquiry=42")
	}
	sug, err := s.engine.RuleSuggestion(r.Context(), p, id)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, map[string]any{"suggestion": sug})
}
