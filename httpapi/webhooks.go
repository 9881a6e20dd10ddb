package httpapi

import (
	"net/http"
	"strconv"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// ---- webhooks and deliveries (admin)

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req hitl.WebhookRequest
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	wh, err := s.engine.CreateWebhook(r.Context(), p, &req)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusCreated, wh)
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	whs, err := s.engine.Webhooks(r.Context(), p)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, newPage(whs, ""))
}

func (s *Server) getWebhook(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	wh, err := s.engine.Webhook(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, wh)
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	if err := s.engine.DeleteWebhook(r.Context(), p, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// listDeliveries serves both GET /v1/deliveries and GET /v1/webhooks/{id}/deliveries.
func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	q := r.URL.Query()
	pg, err := pageParams(q)
	if err != nil {
		return err
	}
	f := hitl.DeliveryFilter{WebhookID: q.Get("webhook_id"), Status: hitl.DeliveryStatus(q.Get("status")), Session: q.Get("session"), Page: pg}
	if id := r.PathValue("id"); id != "" {
		f.WebhookID = id
	}
	if id := q.Get("inquiry_id"); id != "" {
		if f.InquiryID, err = strconv.ParseInt(id, 10, 64); err != nil || f.InquiryID <= 0 {
			return hitl.Errorf(hitl.EInvalid, "inquiry_id must be an inquiry id")
		}
	}
	ds, next, err := s.engine.Deliveries(r.Context(), p, f)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, newPage(ds, next))
}

func (s *Server) retryDelivery(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	d, err := s.engine.RetryDelivery(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusAccepted, d)
}

func (s *Server) callbackSecret(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	secret, err := s.engine.CallbackSecret(p)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, map[string]string{"secret": secret})
}
