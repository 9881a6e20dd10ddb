package httpapi

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"net/http"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// auditHead serves the newest event's seq and hash, verified and signed (any principal).
func (s *Server) auditHead(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	head, err := s.engine.AuditHead(r.Context(), p)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, head)
}

// auditKey serves the public key that verifies the signed heads, public like any public key:
// whoever keeps a head elsewhere checks it with this.
func (s *Server) auditKey(w http.ResponseWriter, _ *http.Request, _ *hitl.Principal) error {
	pub := s.engine.AuditPublicKey()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, map[string]any{
		"algorithm":  "Ed25519",
		"public_key": base64.StdEncoding.EncodeToString(pub),
		"pem":        string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})),
		"jwk":        map[string]string{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(pub)},
	})
}

// purge removes what ended before the body's time (POST /v1/retention/purge; admins only).
func (s *Server) purge(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	if err := engine.MayPurge(p); err != nil { // a refusal says so whatever the body
		return err
	}
	var req hitl.PurgeRequest
	if err := httpwire.Decode(r, &req); err != nil {
		return err
	}
	if req.Before == nil {
		return hitl.Errorf(hitl.EInvalid, `before is required: the body is {"before": "2026-01-01T00:00:00Z"}, and what ended before that time is removed`)
	}
	res, err := s.engine.Purge(r.Context(), p, *req.Before)
	if err != nil {
		return err
	}
	return httpwire.WriteJSON(w, http.StatusOK, res)
}
