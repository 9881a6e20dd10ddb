package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/httpapi"
)

// loginCookie holds the CSRF secret of the sign-in form (there is no session yet to bind it to).
const loginCookie = "hitl_login"

// csrfToken binds forms to a secret the attacker does not have: the inbox session's id (or the
// sign-in cookie's value), never sent in a form itself.
func csrfToken(secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("hitl csrf v1"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func validCSRF(got, want string) bool {
	return got != "" && hmac.Equal([]byte(got), []byte(want))
}

func (h *Handler) loginPage(w http.ResponseWriter, r *http.Request) {
	h.showLogin(w, r, http.StatusOK, "")
}

// showLogin renders the sign-in form with a fresh CSRF secret in its own cookie.
func (h *Handler) showLogin(w http.ResponseWriter, r *http.Request, status int, problem string) {
	b := make([]byte, 24)
	rand.Read(b)
	secret := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Value: secret, Path: "/login", MaxAge: 3600,
		HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode})
	next := localPath(r.FormValue("next"))
	data := map[string]any{"CSRF": csrfToken(secret), "Next": next, "Problem": problem, "Tokens": !h.cfg.NoTokenLogin}
	if h.sso != nil {
		data["SSO"] = h.sso.cfg.ProviderName
		data["SSOLink"] = "/login/oidc?" + url.Values{"next": {next}}.Encode()
	}
	h.render(w, r, status, "login", &layout{Title: "Sign in"}, data)
}

// login checks the token and starts an inbox session: its random id, never the token, goes
// into an HttpOnly cookie that scripts cannot read and other sites' requests do not carry.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	if wait := h.limited(w, r); wait > 0 {
		h.showLogin(w, r, http.StatusTooManyRequests, tooManyFailures(wait))
		return
	}
	if err := r.ParseForm(); err != nil {
		h.showLogin(w, r, formStatus(err), formProblem(err))
		return
	}
	if h.cfg.NoTokenLogin {
		h.showLogin(w, r, http.StatusForbidden, "Signing in with an API token is turned off on this server.")
		return
	}
	c, err := r.Cookie(loginCookie)
	if err != nil || !validCSRF(r.PostForm.Get("csrf"), csrfToken(c.Value)) {
		h.showLogin(w, r, http.StatusForbidden, "The sign-in form expired. Try again.")
		return
	}
	token := strings.TrimSpace(r.PostForm.Get("token"))
	if token == "" {
		h.showLogin(w, r, http.StatusUnprocessableEntity, "Enter your API token.")
		return
	}
	session, expires, err := h.engine.SignIn(r.Context(), token)
	if err != nil {
		if hitl.ErrorCode(err) == hitl.EUnauthorized {
			h.cfg.AuthLimiter.Fail(r.RemoteAddr)
			h.showLogin(w, r, http.StatusUnauthorized, "That token is not valid, or its key was revoked.")
			return
		}
		h.fail(w, r, nil, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: loginCookie, Path: "/login", MaxAge: -1, HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode})
	h.setSessionCookies(w, r, session, expires, "")
	http.Redirect(w, r, localPath(r.PostForm.Get("next")), http.StatusSeeOther)
}

// setSessionCookies gives the browser a new inbox session, and the ID token it signed in with
// for /logout ("" : a token sign-in; an ID token left from a single sign-on in this browser is
// not this session's, so it is cleared).
func (h *Handler) setSessionCookies(w http.ResponseWriter, r *http.Request, session string, expires time.Time, idToken string) {
	idCookie := &http.Cookie{Name: ssoIDTokenCookie, Value: idToken, Path: "/logout", MaxAge: -1, HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode}
	if idToken != "" {
		idCookie.MaxAge = int(engine.InboxSessionTTL.Seconds())
	}
	http.SetCookie(w, idCookie)
	http.SetCookie(w, &http.Cookie{Name: httpapi.SessionCookie, Value: session, Path: "/", MaxAge: int(engine.InboxSessionTTL.Seconds()),
		Expires: expires, HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode})
}

// logout ends the inbox session on the server, so its cookie is dead wherever it is.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request, v *viewer) {
	// The page names this device's push subscription, if it has one: a shared phone must not
	// keep showing the person who left their notifications, nor answer with their buttons.
	if endpoint := r.PostForm.Get("push_endpoint"); endpoint != "" {
		if err := h.engine.UnsubscribePush(r.Context(), v.Principal, endpoint); err != nil && hitl.ErrorCode(err) != hitl.ENotFound {
			h.log.Warn("turning off a signed-out device's notifications failed", "person", v.Principal.Name, "err", err)
		}
	}
	if err := h.engine.SignOut(r.Context(), v.session); err != nil {
		h.fail(w, r, v, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: httpapi.SessionCookie, Path: "/", MaxAge: -1, HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode})
	http.SetCookie(w, &http.Cookie{Name: ssoIDTokenCookie, Path: "/logout", MaxAge: -1, HttpOnly: true, Secure: h.secure(r), SameSite: http.SameSiteStrictMode})
	if end := h.ssoSignOut(r, v); end != "" {
		// A page, not a redirect: the sign-out form may only lead to this site (CSP form-action).
		h.moveOn(w, r, "Signed out", "You are signed out of the inbox; now signing you out of "+h.sso.cfg.ProviderName+".", end)
		return
	}
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// localPath keeps a redirect target on this site: a URL with no scheme and no host that
// starts with a single /, with no control, space or invisible character and no backslash
// (browsers drop tabs and newlines and read \ as /, so "/\t/evil" and "/\evil" go to the
// host evil); anything else is /.
func localPath(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || !utf8.ValidString(next) ||
		strings.ContainsFunc(next, func(c rune) bool { return c == '\\' || unicode.IsSpace(c) || !unicode.IsGraphic(c) }) {
		return "/"
	}
	return next
}
