package httpapi

import (
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// Web Push: the server's VAPID key, and the caller's devices (engine/webpush.go).

// vapidKey is the body of GET /v1/push/vapid-public-key.
type vapidKey struct {
	PublicKey string `json:"public_key"`
}

func (s *Server) vapidPublicKey(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	return httpwire.WriteJSON(w, http.StatusOK, vapidKey{PublicKey: s.engine.VAPIDPublicKey()})
}

func (s *Server) subscribePush(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	var req hitl.PushSubscriptionRequest
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	sub, created, err := s.engine.SubscribePush(r.Context(), p, &req)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return httpwire.WriteJSON(w, status, sub)
}

// unsubscribeRequest names the device to forget, in the body or as ?endpoint=.
type unsubscribeRequest struct {
	Endpoint string `json:"endpoint"`
}

func (s *Server) unsubscribePush(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	req := unsubscribeRequest{Endpoint: r.URL.Query().Get("endpoint")}
	if req.Endpoint == "" {
		if err := httpwire.DecodeOptional(r, &req); err != nil {
			return err
		}
	}
	if err := s.engine.UnsubscribePush(r.Context(), p, req.Endpoint); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
