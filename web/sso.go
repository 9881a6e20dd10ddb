package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// SSOConfig signs people in with an OpenID Connect provider (authorization code flow with
// PKCE and a nonce). The zero Issuer turns it off.
type SSOConfig struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	// Scopes asked for; openid is always among them.
	Scopes []string
	// NameClaim names the person (email, preferred_username); GroupsClaim lists their groups.
	NameClaim   string
	GroupsClaim string
	// AdminGroup is the group whose members are admins ("" : none by sign-in).
	AdminGroup string
	// ProviderName is what the sign-in button says: "Sign in with <ProviderName>".
	ProviderName string
	// HTTPClient reaches the provider (nil: one with a 10 s timeout).
	HTTPClient *http.Client
}

// ssoFlowCookie carries one sign-in from /login/oidc to the provider's return: its state, nonce,
// PKCE verifier and where to go after. It is HttpOnly and lives ten minutes; SameSite=Lax, as
// the provider's redirect back is a navigation from another site.
const ssoFlowCookie = "hitl_oidc_flow"

// ssoIDTokenCookie keeps the ID token of the inbox session for the provider's end-session
// endpoint (id_token_hint) at sign-out; it is read by /logout only.
const ssoIDTokenCookie = "hitl_oidc_id"

const ssoFlowTTL = 10 * time.Minute

// ssoFlow is the flow cookie's content. It needs no signature: it is secret (HttpOnly, random
// values), what it holds can only sign in the browser that holds it, and each value is checked
// against what the provider returns (state) or signs (nonce) or checks (verifier).
type ssoFlow struct {
	State    string    `json:"s"`
	Nonce    string    `json:"n"`
	Verifier string    `json:"v"`
	Next     string    `json:"x"`
	Expires  time.Time `json:"e"`
}

// sso is the identity provider as the inbox reaches it: discovered at the first sign-in (the
// server starts when the provider is down) and again after each failed discovery.
type sso struct {
	cfg SSOConfig

	mu       sync.Mutex
	provider *oidc.Provider
	endURL   string // end_session_endpoint, "" when the provider has none
}

func newSSO(cfg SSOConfig) *sso {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.NameClaim == "" {
		cfg.NameClaim = "email"
	}
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = "groups"
	}
	if cfg.ProviderName == "" {
		cfg.ProviderName = "single sign-on"
	}
	return &sso{cfg: cfg}
}

func (s *sso) context(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, s.cfg.HTTPClient)
}

// discover returns the provider, reading its discovery document until that succeeds once.
// The lock is not held while the provider is asked: with the provider down, sign-ins at the same
// moment each wait for their own try, not for each other's.
func (s *sso) discover(ctx context.Context) (*oidc.Provider, error) {
	s.mu.Lock()
	p := s.provider
	s.mu.Unlock()
	if p != nil {
		return p, nil
	}
	p, err := oidc.NewProvider(s.context(ctx), s.cfg.Issuer)
	if err != nil {
		return nil, err
	}
	var extra struct {
		EndSession string `json:"end_session_endpoint"`
	}
	if err := p.Claims(&extra); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provider == nil {
		s.provider, s.endURL = p, extra.EndSession
	}
	return s.provider, nil
}

func (s *sso) oauth(p *oidc.Provider, redirect string) *oauth2.Config {
	scopes := []string{oidc.ScopeOpenID}
	for _, sc := range s.cfg.Scopes {
		if sc != oidc.ScopeOpenID && sc != "" {
			scopes = append(scopes, sc)
		}
	}
	return &oauth2.Config{ClientID: s.cfg.ClientID, ClientSecret: s.cfg.ClientSecret, Endpoint: p.Endpoint(),
		RedirectURL: redirect, Scopes: scopes}
}

func randomValue() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// providerDown is what people read when the identity provider cannot be reached.
func (h *Handler) providerDown(w http.ResponseWriter, r *http.Request, err error) {
	h.log.Warn("the identity provider cannot be reached", "issuer", h.sso.cfg.Issuer, "err", err)
	msg := "The identity provider (" + h.sso.cfg.ProviderName + ") cannot be reached right now, so nobody can sign in with it. Try again in a moment."
	if !h.cfg.NoTokenLogin {
		msg += " You can sign in with an API token meanwhile."
	}
	h.ssoProblem(w, r, http.StatusBadGateway, msg)
}

// ssoProblem shows why a sign-in failed, with the way back to the sign-in page.
func (h *Handler) ssoProblem(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.render(w, r, status, "signin-failed", &layout{Title: "Sign-in failed"}, map[string]any{"Message": msg})
}

// ssoStart sends the browser to the provider, with a new state, nonce and PKCE challenge whose
// secrets stay in this browser's flow cookie.
func (h *Handler) ssoStart(w http.ResponseWriter, r *http.Request) {
	p, err := h.sso.discover(r.Context())
	if err != nil {
		h.providerDown(w, r, err)
		return
	}
	flow := ssoFlow{State: randomValue(), Nonce: randomValue(), Verifier: oauth2.GenerateVerifier(),
		Next: localPath(r.URL.Query().Get("next")), Expires: time.Now().Add(ssoFlowTTL)}
	b, _ := json.Marshal(flow)
	http.SetCookie(w, &http.Cookie{Name: ssoFlowCookie, Value: base64.RawURLEncoding.EncodeToString(b), Path: "/login/oidc",
		MaxAge: int(ssoFlowTTL.Seconds()), HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteLaxMode})
	cfg := h.sso.oauth(p, h.ssoRedirect(r))
	http.Redirect(w, r, cfg.AuthCodeURL(flow.State, oidc.Nonce(flow.Nonce), oauth2.S256ChallengeOption(flow.Verifier)), http.StatusSeeOther)
}

func (h *Handler) ssoRedirect(r *http.Request) string {
	return httpwire.BaseURL(r, h.cfg.PublicURL) + "/login/oidc/callback"
}

// readFlow takes the flow cookie (once: it is cleared whatever comes next).
func (h *Handler) readFlow(w http.ResponseWriter, r *http.Request) (ssoFlow, bool) {
	var flow ssoFlow
	c, err := r.Cookie(ssoFlowCookie)
	http.SetCookie(w, &http.Cookie{Name: ssoFlowCookie, Path: "/login/oidc", MaxAge: -1, HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteLaxMode})
	if err != nil {
		return flow, false
	}
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || json.Unmarshal(b, &flow) != nil || flow.State == "" || time.Now().After(flow.Expires) {
		return flow, false
	}
	return flow, true
}

// ssoCallback is where the provider sends the browser back: the code is exchanged (with the
// PKCE verifier), the ID token checked (issuer, audience, signature, expiry, nonce), the person
// read from its claims, and the engine signs them in. Any failure shows why and changes nothing.
func (h *Handler) ssoCallback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	flow, ok := h.readFlow(w, r)
	if !ok || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(flow.State)) != 1 {
		h.ssoProblem(w, r, http.StatusBadRequest, "This sign-in cannot be finished: it was already used, it expired, or it was started in another browser (its state does not match). Sign in again.")
		return
	}
	if e := q.Get("error"); e != "" {
		msg := "The identity provider refused the sign-in (" + e + ")"
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		h.ssoProblem(w, r, http.StatusUnauthorized, msg+".")
		return
	}
	code := q.Get("code")
	if code == "" {
		// Not worth the provider's time, nor a page that blames an expired code.
		h.ssoProblem(w, r, http.StatusBadRequest, "The identity provider's return carries no code, so this sign-in cannot be finished. Sign in again.")
		return
	}
	p, err := h.sso.discover(r.Context())
	if err != nil {
		h.providerDown(w, r, err)
		return
	}
	ctx := h.sso.context(r.Context())
	tok, err := h.sso.oauth(p, h.ssoRedirect(r)).Exchange(ctx, code, oauth2.VerifierOption(flow.Verifier))
	var refused *oauth2.RetrieveError
	switch {
	case errors.As(err, &refused) && refused.ErrorCode == "invalid_client":
		// hitl's own settings are wrong: no sign-in can work, whatever the person does.
		h.log.Error("the identity provider does not accept hitl's client id and secret", "client_id", h.sso.cfg.ClientID, "err", err)
		h.ssoProblem(w, r, http.StatusBadGateway, "The identity provider does not accept hitl's client id and secret (invalid_client), so nobody can sign in with it. An administrator checks --oidc-client-id and --oidc-client-secret against the provider's client for hitl.")
		return
	case errors.As(err, &refused):
		h.log.Info("the identity provider refused a sign-in code", "err", err)
		h.ssoProblem(w, r, http.StatusUnauthorized, "The identity provider did not accept this sign-in's code: it has expired or was already used ("+refused.ErrorCode+"). Sign in again.")
		return
	case err != nil:
		h.providerDown(w, r, err)
		return
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		h.ssoProblem(w, r, http.StatusBadGateway, "The identity provider answered without an ID token. Its client for hitl must allow the openid scope.")
		return
	}
	idToken, err := p.Verifier(&oidc.Config{ClientID: h.sso.cfg.ClientID}).Verify(ctx, raw)
	if err != nil {
		h.log.Warn("an ID token was refused", "err", err)
		h.ssoProblem(w, r, http.StatusUnauthorized, "The identity provider's answer cannot be trusted, so nobody was signed in: "+tokenProblem(err, h.sso.cfg)+".")
		return
	}
	if subtle.ConstantTimeCompare([]byte(idToken.Nonce), []byte(flow.Nonce)) != 1 {
		h.ssoProblem(w, r, http.StatusUnauthorized, "The identity provider's answer cannot be trusted, so nobody was signed in: its nonce is not the one this sign-in sent (the token was made for another sign-in).")
		return
	}
	claims := map[string]any{}
	if err := idToken.Claims(&claims); err != nil {
		h.ssoProblem(w, r, http.StatusBadGateway, "The identity provider's ID token cannot be read.")
		return
	}
	if _, ok := claims[h.sso.cfg.NameClaim]; !ok {
		// Some providers (Entra ID, Okta's org server) keep profile claims for the userinfo
		// endpoint; what it says about the same subject counts.
		if info, err := p.UserInfo(ctx, oauth2.StaticTokenSource(tok)); err == nil && info.Subject == idToken.Subject {
			more := map[string]any{}
			if info.Claims(&more) == nil {
				for k, v := range more {
					if _, has := claims[k]; !has {
						claims[k] = v
					}
				}
			}
		}
	}
	in, problem := h.sso.person(claims)
	if problem != "" {
		h.ssoProblem(w, r, http.StatusForbidden, problem)
		return
	}
	access, err := h.engine.SignInWithSSO(r.Context(), in)
	if err != nil {
		if code := hitl.ErrorCode(err); code == hitl.EConflict || code == hitl.EInvalid {
			h.ssoProblem(w, r, httpwire.Status(code), hitl.ErrorMessage(err))
			return
		}
		h.fail(w, r, nil, err)
		return
	}
	if len(access.Dismissed) > 0 {
		h.log.Warn("groups from the identity provider that are no hitl group names were left out", "name", in.Name, "groups", strings.Join(access.Dismissed, ","))
	}
	h.setSessionCookies(w, r, access.Session, access.Expires, raw)
	// The browser came here from the provider's site: a redirect would still be that site's
	// navigation, which does not carry the SameSite=Strict session cookie. A page of this site
	// that moves on is this site's navigation, which does.
	h.moveOn(w, r, "Signed in", "Signed in as "+in.Name+".", localPath(flow.Next))
}

// moveOn shows a short page that takes the browser to target at once.
func (h *Handler) moveOn(w http.ResponseWriter, r *http.Request, title, msg, target string) {
	h.render(w, r, http.StatusOK, "moving", &layout{Title: title, Refresh: target}, map[string]any{"Message": msg, "Target": target})
}

// tokenProblem says in words why go-oidc refused an ID token.
func tokenProblem(err error, cfg SSOConfig) string {
	var expired *oidc.TokenExpiredError
	msg := err.Error()
	switch {
	case errors.As(err, &expired):
		return "the ID token has expired"
	case strings.Contains(msg, "issued by a different provider"):
		return "the ID token was issued by another provider than " + cfg.Issuer
	case strings.Contains(msg, "expected audience"):
		return "the ID token was made for another client than " + cfg.ClientID + " (its audience)"
	case strings.Contains(msg, "signature"):
		return "the ID token is not signed with any of the provider's published keys"
	}
	return "the ID token is not valid"
}

// person reads the person from the claims, or says in words which claim is missing or wrong.
func (s *sso) person(claims map[string]any) (engine.SSOSignIn, string) {
	var in engine.SSOSignIn
	raw, present := claims[s.cfg.NameClaim]
	name, ok := raw.(string)
	if !ok || strings.TrimSpace(name) == "" {
		what := "has no %q claim"
		if present {
			what = "has a %q claim that is no name (not text, or empty)"
		}
		return in, fmt.Sprintf("The identity provider did not say who you are: its answer "+what+", which names people in hitl. An administrator adds that claim to hitl's client at the provider, or chooses another with --oidc-name-claim.", s.cfg.NameClaim)
	}
	// An address the provider has not verified is one the person typed in: anyone could type
	// another's. It names nobody (it would take over that person's inquiries and sign-in key)
	// and receives no notifications. A provider that never says (Entra ID) is taken at its word.
	email, _ := claims["email"].(string)
	if v := claims["email_verified"]; v == false || v == "false" {
		if s.cfg.NameClaim == "email" {
			return in, fmt.Sprintf("The identity provider has not verified your email address %s, which names you in hitl, so hitl cannot sign you in with it. Confirm the address at the provider (it sends a link), then sign in again.", email)
		}
		email = ""
	}
	in.Name = name
	in.Email = email
	in.DisplayName, _ = claims["name"].(string)
	switch g := claims[s.cfg.GroupsClaim].(type) {
	case string:
		in.Groups = []string{g}
	case []any:
		for _, v := range g {
			if str, ok := v.(string); ok {
				in.Groups = append(in.Groups, str)
			}
		}
	}
	in.AdminGroup = s.cfg.AdminGroup
	return in, ""
}

// ssoSignOut is where sign-out goes after the inbox session of v ended: the provider's
// end-session endpoint, when v signed in through it and its discovery names one, back to the
// sign-in page after; "" : the sign-in page. The ID token goes with it as id_token_hint when
// the browser kept it (one too large for a cookie was not), client_id always.
func (h *Handler) ssoSignOut(r *http.Request, v *viewer) string {
	if h.sso == nil || !engine.IsSignInKey(v.KeyID) {
		return ""
	}
	if _, err := h.sso.discover(r.Context()); err != nil {
		h.log.Warn("signing out of the identity provider too is not possible now", "err", err)
		return ""
	}
	h.sso.mu.Lock()
	end := h.sso.endURL
	h.sso.mu.Unlock()
	u, err := url.Parse(end)
	if end == "" || err != nil {
		return ""
	}
	q := u.Query()
	if c, err := r.Cookie(ssoIDTokenCookie); err == nil && c.Value != "" {
		q.Set("id_token_hint", c.Value)
	}
	q.Set("client_id", h.sso.cfg.ClientID)
	q.Set("post_logout_redirect_uri", httpwire.BaseURL(r, h.cfg.PublicURL)+"/login")
	u.RawQuery = q.Encode()
	return u.String()
}
