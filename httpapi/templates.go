package httpapi

import (
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// ---- templates: admins put and delete them, agents read the ones they may ask with

func (s *Server) putTemplate(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req hitl.TemplateRequest
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	t, created, err := s.engine.PutTemplate(r.Context(), p, r.PathValue("name"), &req)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return httpwire.WriteJSON(w, status, t)
}

func (s *Server) getTemplate(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	t, err := s.engine.Template(r.Context(), p, r.PathValue("name"))
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, t)
}

func (s *Server) listTemplates(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	ts, err := s.engine.Templates(r.Context(), p)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, newPage(ts, ""))
}

func (s *Server) deleteTemplate(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	if err := s.engine.DeleteTemplate(r.Context(), p, r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
