package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
	"github.com/hitl-dev/hitl/receipt"
)

// jwks serves the public keys decision receipts are verified with (GET
// /.well-known/jwks.json, no authentication): executors cache it for five minutes.
func (s *Server) jwks(w http.ResponseWriter, _ *http.Request, _ *hitl.Principal) error {
	b, err := json.Marshal(s.engine.JWKS())
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300") // the keys change only by a rotation
	_, err = w.Write(append(b, '\n'))
	return err
}

// rotateSigningKey makes a new receipt signing key (POST /v1/signing-keys/rotate; admins).
func (s *Server) rotateSigningKey(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	kid, err := s.engine.RotateSigningKey(r.Context(), p)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, struct {
		Kid  string        `json:"kid"`
		Keys []receipt.JWK `json:"keys"`
	}{kid, s.engine.JWKS().Keys})
}

// redeemReceipt records a receipt's single use (POST /v1/receipts/{jti}/redeem).
func (s *Server) redeemReceipt(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	red, err := s.engine.RedeemReceipt(r.Context(), p, r.PathValue("jti"))
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, red)
}
