// Package oidcpeer is an OpenID Connect provider that runs on this machine, for the tests of
// the inbox's single sign-on and for trying it (its sandbox command): discovery, a JWKS, an
// authorization endpoint with a login form a person (or a test's browser) fills in, a token
// endpoint, userinfo and end_session. It checks what a provider checks: the client and its
// secret, registered redirect URIs, PKCE (S256 only, and required), codes that are single use
// and expire. It can also misbehave on purpose, as a broken or hostile provider would: tokens
// from another issuer or for another audience, signed with a key it does not publish, with a
// wrong nonce or without a claim.
package oidcpeer

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// User is someone who may sign in at the provider.
type User struct {
	Subject           string
	Email             string
	Name              string
	PreferredUsername string
	Groups            []string
}

// Client is the relying party registered with the provider.
type Client struct {
	ID, Secret   string
	RedirectURIs []string // where codes may go
	LogoutURIs   []string // where end_session may send the browser back
}

// Misbehaviour makes the provider's tokens wrong in the ways a broken or hostile provider's are.
type Misbehaviour struct {
	Issuer     string   // the iss of ID tokens ("" : the provider's own)
	Audience   string   // their aud ("" : the client's id)
	Nonce      string   // their nonce ("" : the one the authorization request sent)
	UnknownKey bool     // sign them with a key the JWKS does not hold
	Omit       []string // claims left out of ID tokens and userinfo
	Refuse     string   // an error code to send the browser back with instead of a code
	// UserinfoOnly are claims left out of ID tokens but given by userinfo, as some providers
	// keep profile claims for it.
	UserinfoOnly []string
	// UnverifiedEmail says email_verified false, as providers do for an address the person
	// typed in and never confirmed.
	UnverifiedEmail bool
}

// Provider is one running provider.
type Provider struct {
	// Issuer is its URL: discovery is at Issuer + /.well-known/openid-configuration.
	Issuer string

	srv      *http.Server
	listener net.Listener
	key      *rsa.PrivateKey
	stranger *rsa.PrivateKey // the unknown key
	keyID    string

	mu         sync.Mutex
	client     Client
	users      map[string]User // by the name typed at the login form (the subject)
	pending    map[string]authRequest
	codes      map[string]grant
	access     map[string]grant
	codeTTL    time.Duration
	misbe      Misbehaviour
	ended      []string // subjects whose session end_session ended
	redeemed   int      // codes exchanged for tokens
	lastReturn string
}

// authRequest is an authorization request waiting for its person at the login form.
type authRequest struct {
	redirectURI, state, nonce, challenge, scope string
}

// grant is what a code (or access token) stands for.
type grant struct {
	authRequest
	user    User
	expires time.Time
}

// defaultCodeLifetime is how long a code may be exchanged, unless SetCodeLifetime says otherwise.
const defaultCodeLifetime = time.Minute

// Start runs a provider on 127.0.0.1 at addr ("" : a free port) for users; Register tells it
// its client.
func Start(addr string, users ...User) (*Provider, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	stranger, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	p := &Provider{Issuer: "http://" + l.Addr().String(), listener: l, key: key, stranger: stranger, keyID: randomString(8),
		users: map[string]User{}, pending: map[string]authRequest{}, codes: map[string]grant{},
		access: map[string]grant{}, codeTTL: defaultCodeLifetime}
	for _, u := range users {
		p.users[u.Subject] = u
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /login", p.login)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("GET /userinfo", p.userinfo)
	mux.HandleFunc("GET /end_session", p.endSession)
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(l)
	return p, nil
}

// Register sets the client that may use the provider.
func (p *Provider) Register(c Client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.client = c
}

// SetUser adds a user, or changes the one with the same subject (their groups, say).
func (p *Provider) SetUser(u User) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.users[u.Subject] = u
}

// LastReturn is the URL the provider last sent a browser back to with a code.
func (p *Provider) LastReturn() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastReturn
}

// registered is the client as Register set it.
func (p *Provider) registered() Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.client
}

// Close stops the provider: from now on it cannot be reached.
func (p *Provider) Close() error { return p.srv.Close() }

// Addr is the provider's host:port, to start another one at the same place.
func (p *Provider) Addr() string { return p.listener.Addr().String() }

// Misbehave makes the tokens issued from now on wrong as m says (the zero value: right again).
func (p *Provider) Misbehave(m Misbehaviour) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.misbe = m
}

// SetCodeLifetime sets how long codes issued from now on may be exchanged (0: they expire at once).
func (p *Provider) SetCodeLifetime(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.codeTTL = d
}

// Ended lists the subjects whose sessions end_session ended, in order ("" for an end asked
// without an id_token_hint).
func (p *Provider) Ended() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.ended)
}

// Redeemed counts the codes exchanged for tokens.
func (p *Provider) Redeemed() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.redeemed
}

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// oauthError is an OAuth 2.0 error answer (RFC 6749 5.2).
func oauthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

func (p *Provider) discovery(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                p.Issuer,
		"authorization_endpoint":                p.Issuer + "/authorize",
		"token_endpoint":                        p.Issuer + "/token",
		"userinfo_endpoint":                     p.Issuer + "/userinfo",
		"jwks_uri":                              p.Issuer + "/jwks",
		"end_session_endpoint":                  p.Issuer + "/end_session",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"scopes_supported":                      []string{"openid", "email", "profile", "groups"},
		"claims_supported":                      []string{"sub", "email", "name", "preferred_username", "groups"},
	})
}

func (p *Provider) jwks(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &p.key.PublicKey, KeyID: p.keyID, Algorithm: string(jose.RS256), Use: "sig"}}})
}

// authorize checks an authorization request and shows the login form. Until the client and
// its redirect URI are known good, errors are shown here; after, they go back to the client.
func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	client := p.registered()
	redirect := q.Get("redirect_uri")
	if q.Get("client_id") != client.ID || !slices.Contains(client.RedirectURIs, redirect) {
		http.Error(w, "unknown client or redirect_uri not registered", http.StatusBadRequest)
		return
	}
	back := func(code, description string) {
		redirectBack(w, r, redirect, url.Values{"error": {code}, "error_description": {description}, "state": {q.Get("state")}})
	}
	switch {
	case q.Get("response_type") != "code":
		back("unsupported_response_type", "only the authorization code flow is served")
		return
	case !slices.Contains(strings.Fields(q.Get("scope")), "openid"):
		back("invalid_scope", "the openid scope is required")
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		back("invalid_request", "PKCE with code_challenge_method S256 is required")
		return
	}
	id := randomString(16)
	p.mu.Lock()
	p.pending[id] = authRequest{redirectURI: redirect, state: q.Get("state"), nonce: q.Get("nonce"),
		challenge: q.Get("code_challenge"), scope: q.Get("scope")}
	p.mu.Unlock()
	showLogin(w, http.StatusOK, id, "")
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in · local identity provider</title></head>
<body><h1>Local identity provider</h1>
{{with .Problem}}<p id="problem">{{.}}</p>{{end}}
<form method="post" action="/login">
<input type="hidden" name="request" value="{{.Request}}">
<label for="username">User</label> <input id="username" name="username" autofocus>
<button id="sign-in" type="submit">Sign in</button>
</form></body></html>`))

func showLogin(w http.ResponseWriter, status int, request, problem string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	loginPage.Execute(w, map[string]string{"Request": request, "Problem": problem})
}

// login completes an authorization request for the user typed in, with a code back to the client.
func (p *Provider) login(w http.ResponseWriter, r *http.Request) {
	id, name := r.PostFormValue("request"), strings.TrimSpace(r.PostFormValue("username"))
	p.mu.Lock()
	req, ok := p.pending[id]
	user, known := p.users[name]
	if ok && known {
		delete(p.pending, id)
	}
	p.mu.Unlock()
	switch {
	case !ok:
		http.Error(w, "this sign-in request is unknown or finished", http.StatusBadRequest)
		return
	case !known:
		showLogin(w, http.StatusUnauthorized, id, "There is no user "+name+".")
		return
	}
	p.mu.Lock()
	refuse := p.misbe.Refuse
	p.mu.Unlock()
	if refuse != "" {
		redirectBack(w, r, req.redirectURI, url.Values{"error": {refuse}, "error_description": {"the provider will not sign " + name + " in to this client"}, "state": {req.state}})
		return
	}
	code := randomString(24)
	p.mu.Lock()
	p.codes[code] = grant{authRequest: req, user: user, expires: time.Now().Add(p.codeTTL)}
	p.mu.Unlock()
	back := redirectBack(w, r, req.redirectURI, url.Values{"code": {code}, "state": {req.state}})
	p.mu.Lock()
	p.lastReturn = back
	p.mu.Unlock()
}

// redirectBack sends the browser to the client's redirect URI with params added; it returns
// the URL.
func redirectBack(w http.ResponseWriter, r *http.Request, redirectURI string, params url.Values) string {
	u, _ := url.Parse(redirectURI)
	v := u.Query()
	for k, vs := range params {
		v[k] = vs
	}
	u.RawQuery = v.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
	return u.String()
}

// token exchanges a code: the client authenticates, the code is used once (a second try finds
// nothing), before it expires, with the redirect URI it was issued for and the PKCE verifier
// whose S256 challenge the authorization request carried.
func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the form cannot be read")
		return
	}
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	client := p.registered()
	if id != client.ID || subtle.ConstantTimeCompare([]byte(secret), []byte(client.Secret)) != 1 {
		w.Header().Set("WWW-Authenticate", `Basic realm="token"`)
		oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	if r.PostForm.Get("grant_type") != "authorization_code" {
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "only authorization_code is served")
		return
	}
	code := r.PostForm.Get("code")
	p.mu.Lock()
	g, ok := p.codes[code]
	delete(p.codes, code) // single use, whatever happens next
	p.mu.Unlock()
	verifier := r.PostForm.Get("code_verifier")
	sum := sha256.Sum256([]byte(verifier))
	switch {
	case !ok:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the code is unknown or was already used")
		return
	case !time.Now().Before(g.expires):
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the code has expired")
		return
	case r.PostForm.Get("redirect_uri") != g.redirectURI:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri is not the one the code was issued for")
		return
	case verifier == "" || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the PKCE code_verifier does not match the code_challenge")
		return
	}
	idToken, err := p.idToken(g, client.ID)
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	access := randomString(24)
	p.mu.Lock()
	g.expires = time.Now().Add(time.Hour)
	p.access[access] = g
	p.redeemed++
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600, "id_token": idToken})
}

// claims are what the scopes of g let the client know of its user, less what is omitted.
func (p *Provider) claims(g grant) map[string]any {
	u, scopes := g.user, strings.Fields(g.scope)
	c := map[string]any{"sub": u.Subject}
	if slices.Contains(scopes, "email") && u.Email != "" {
		c["email"], c["email_verified"] = u.Email, true
	}
	if slices.Contains(scopes, "profile") {
		c["name"], c["preferred_username"] = u.Name, u.PreferredUsername
	}
	if slices.Contains(scopes, "groups") {
		c["groups"] = append([]string{}, u.Groups...)
	}
	p.mu.Lock()
	if _, has := c["email"]; has && p.misbe.UnverifiedEmail {
		c["email_verified"] = false
	}
	for _, k := range p.misbe.Omit {
		delete(c, k)
	}
	p.mu.Unlock()
	return c
}

func (p *Provider) idToken(g grant, clientID string) (string, error) {
	p.mu.Lock()
	m := p.misbe
	p.mu.Unlock()
	c := p.claims(g)
	for _, k := range m.UserinfoOnly {
		delete(c, k)
	}
	now := time.Now()
	c["iss"], c["aud"], c["iat"], c["exp"], c["auth_time"] = p.Issuer, clientID, now.Unix(), now.Add(5*time.Minute).Unix(), now.Unix()
	if g.nonce != "" {
		c["nonce"] = g.nonce
	}
	if m.Issuer != "" {
		c["iss"] = m.Issuer
	}
	if m.Audience != "" {
		c["aud"] = m.Audience
	}
	if m.Nonce != "" {
		c["nonce"] = m.Nonce
	}
	key, kid := p.key, p.keyID
	if m.UnknownKey {
		key, kid = p.stranger, "not-"+p.keyID
	}
	return p.sign(c, key, kid)
}

func (p *Provider) sign(claims map[string]any, key *rsa.PrivateKey, kid string) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return obj.CompactSerialize()
}

func (p *Provider) userinfo(w http.ResponseWriter, r *http.Request) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	g, known := p.access[token]
	p.mu.Unlock()
	if !ok || !known || !time.Now().Before(g.expires) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		oauthError(w, http.StatusUnauthorized, "invalid_token", "the access token is unknown or expired")
		return
	}
	writeJSON(w, http.StatusOK, p.claims(g))
}

// endSession ends the user's session (RP-initiated logout): the id_token_hint must be one this
// provider signed for the client, and the browser goes back only to a registered logout URI.
func (p *Provider) endSession(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	client := p.registered()
	back := q.Get("post_logout_redirect_uri")
	if back != "" && !slices.Contains(client.LogoutURIs, back) {
		http.Error(w, "post_logout_redirect_uri is not registered", http.StatusBadRequest)
		return
	}
	// Without a hint, the client names itself; the subject is then unknown ("").
	var subject string
	switch hint := q.Get("id_token_hint"); {
	case hint != "":
		var err error
		if subject, err = p.hintSubject(hint, client.ID); err != nil {
			http.Error(w, "id_token_hint: "+err.Error(), http.StatusBadRequest)
			return
		}
	case q.Get("client_id") != client.ID:
		http.Error(w, "end_session needs an id_token_hint or this provider's client_id", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.ended = append(p.ended, subject)
	p.mu.Unlock()
	if back == "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("You are signed out.\n"))
		return
	}
	http.Redirect(w, r, back, http.StatusFound)
}

func (p *Provider) hintSubject(hint, clientID string) (string, error) {
	obj, err := jose.ParseSigned(hint, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		return "", err
	}
	payload, err := obj.Verify(&p.key.PublicKey)
	if err != nil {
		return "", err
	}
	var c struct {
		Iss string `json:"iss"`
		Aud string `json:"aud"`
		Sub string `json:"sub"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return "", err
	}
	if c.Iss != p.Issuer || c.Aud != clientID {
		return "", errors.New("not a token of this provider for this client")
	}
	return c.Sub, nil
}
