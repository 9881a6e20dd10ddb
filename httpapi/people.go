package httpapi

import (
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// ---- people, groups and chat webhooks (admin); an inquiry's notifications

func (s *Server) putPerson(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req hitl.PersonRequest
	if err := httpwire.DecodeOptional(r, &req); err != nil {
		return err
	}
	person, err := s.engine.PutPerson(r.Context(), p, r.PathValue("name"), &req)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, person)
}

func (s *Server) getPerson(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	person, err := s.engine.Person(r.Context(), p, r.PathValue("name"))
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, person)
}

func (s *Server) listPeople(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	people, err := s.engine.People(r.Context(), p)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, newPage(people, ""))
}

func (s *Server) deletePerson(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	if err := s.engine.DeletePerson(r.Context(), p, r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// An absence: the person themself or an admin (see engine/absences.go).

func (s *Server) putAbsence(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req hitl.AbsenceRequest
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	a, err := s.engine.SetAbsence(r.Context(), p, r.PathValue("name"), &req)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, a)
}

func (s *Server) getAbsence(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	a, err := s.engine.Absence(r.Context(), p, r.PathValue("name"))
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, a)
}

func (s *Server) deleteAbsence(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	if err := s.engine.EndAbsence(r.Context(), p, r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) putGroup(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req hitl.GroupRequest
	if err := httpwire.DecodeOptional(r, &req); err != nil {
		return err
	}
	g, err := s.engine.PutGroup(r.Context(), p, r.PathValue("name"), &req)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, g)
}

func (s *Server) getGroup(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	g, err := s.engine.Group(r.Context(), p, r.PathValue("name"))
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, g)
}

func (s *Server) listGroups(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	gs, err := s.engine.Groups(r.Context(), p)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, newPage(gs, ""))
}

func (s *Server) deleteGroup(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	if err := s.engine.DeleteGroup(r.Context(), p, r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) createChatWebhook(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req hitl.ChatWebhookRequest
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	cw, err := s.engine.CreateChatWebhook(r.Context(), p, &req)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusCreated, cw)
}

func (s *Server) listChatWebhooks(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	cws, err := s.engine.ChatWebhooks(r.Context(), p)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, newPage(cws, ""))
}

func (s *Server) deleteChatWebhook(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	if err := s.engine.DeleteChatWebhook(r.Context(), p, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) listNotifications(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	id, err := httpwire.InquiryID(r)
	if err != nil {
		return err
	}
	ns, err := s.engine.Notifications(r.Context(), p, id)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, newPage(ns, ""))
}
