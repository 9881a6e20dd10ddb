// Package web is the operator inbox that `hitl serve` shows at /: server-rendered pages
// (html/template, embedded) where people see what agents ask and answer it, with a small
// script that adds live updates from the event stream. Every page works without the script;
// after a reload a page is rendered from the server's state, never from events.
//
// People sign in with an API token, which starts an inbox session on the server: the page keeps
// the session's random id (never the token) in an HttpOnly, SameSite=Strict cookie that GET
// /v1/events/stream also accepts. Every form that changes something carries a CSRF token
// derived from the session's id.
package web

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/httpapi"
	"github.com/hitl-dev/hitl/internal/authlimit"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Config tunes the inbox.
type Config struct {
	// PublicURL is how people reach the server; an https:// one marks cookies Secure even
	// behind a proxy that ends TLS.
	PublicURL string
	// MaxFormBytes bounds a posted form (default 1 MiB).
	MaxFormBytes int64
	Log          *slog.Logger
	// AuthLimiter counts failed sign-ins and answer links per client address, with the API's
	// failed authentications; an address over its limit gets 429 (nil: no limit).
	AuthLimiter *authlimit.Limiter
	// SSO signs people in with an OpenID Connect provider (docs/sso.md); no Issuer: off.
	SSO SSOConfig
	// NoTokenLogin turns off signing in with an API token (answer links still work); only
	// sensible with SSO.
	NoTokenLogin bool
}

// Handler serves the inbox.
type Handler struct {
	engine *engine.Engine
	cfg    Config
	log    *slog.Logger
	pages  map[string]*template.Template
	// masters are unexecuted copies of pages, zoned the pages in a viewer's zone (render.go).
	masters map[string]*template.Template
	zoned   sync.Map
	mux     *http.ServeMux
	sso     *sso // nil: no single sign-on
}

// New builds the inbox over an engine.
func New(e *engine.Engine, cfg Config) *Handler {
	if cfg.MaxFormBytes == 0 {
		cfg.MaxFormBytes = httpwire.DefaultMaxBodyBytes
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	pages := parsePages(claimFuncs(e))
	h := &Handler{engine: e, cfg: cfg, log: cfg.Log, pages: pages, masters: masterCopies(pages), mux: http.NewServeMux()}
	static, _ := fs.Sub(staticFiles, "static")
	h.mux.HandleFunc("GET /static/{file...}", h.static(static))
	h.mux.HandleFunc("GET /login", h.loginPage)
	h.mux.HandleFunc("POST /login", h.login)
	h.mux.HandleFunc("POST /logout", h.signedIn(h.logout))
	if cfg.SSO.Issuer != "" {
		h.sso = newSSO(cfg.SSO)
		h.mux.HandleFunc("GET /login/oidc", h.ssoStart)
		h.mux.HandleFunc("GET /login/oidc/callback", h.ssoCallback)
	}
	h.mux.HandleFunc("GET /{$}", h.signedIn(h.inbox))
	h.mux.HandleFunc("GET /inquiries/{id}", h.signedIn(h.inquiry))
	h.mux.HandleFunc("POST /inquiries/{id}", h.signedIn(h.answer))
	h.mux.HandleFunc("POST /inquiries/{id}/decline", h.signedIn(h.decline))
	h.mux.HandleFunc("POST /inquiries/{id}/claim", h.signedIn(h.claim))
	h.mux.HandleFunc("POST /inquiries/{id}/release", h.signedIn(h.release))
	h.mux.HandleFunc("POST /inquiries/approve", h.signedIn(h.approveSelected))
	h.mux.HandleFunc("GET /sessions/{key}", h.signedIn(h.session))
	h.mux.HandleFunc("GET /stats", h.signedIn(h.stats))
	h.mux.HandleFunc("GET /away", h.signedIn(h.away))
	h.mux.HandleFunc("POST /away", h.signedIn(h.setAway))
	h.mux.HandleFunc("POST /away/end", h.signedIn(h.endAway))
	h.mux.HandleFunc("GET /rules", h.signedIn(h.rules))
	h.mux.HandleFunc("POST /rules/{id}/revoke", h.signedIn(h.revokeRule))
	h.mux.HandleFunc("GET /a/{token}", h.linkPage)
	h.mux.HandleFunc("POST /a/{token}", h.linkAnswer)
	h.mountPhone()
	return h
}

// ServeHTTP adds to every page the security headers and the recovery from a panic.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; worker-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer") // answer links carry their token in the path
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			h.log.Error("page panicked", "path", r.URL.Path, "panic", v)
			h.errorPage(w, r, nil, http.StatusInternalServerError, "Something went wrong on our side. Try again in a moment.")
		}
	}()
	if _, pattern := h.mux.Handler(r); pattern == "" {
		h.notFound(w, r)
		return
	}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, h.cfg.MaxFormBytes)
	}
	h.mux.ServeHTTP(w, r)
}

// notFound answers a path nothing serves: a browser loading a page gets the inbox's page; any
// other request (another method, an Accept without text/html, a JSON body) comes from a
// program, most likely one that mistyped an API path (POST /MCP, /v2/...), and gets a
// problem+json it can read that names the path and where the API is.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	if loadsPage(r) {
		h.errorPage(w, r, nil, http.StatusNotFound, "There is no page here.")
		return
	}
	httpwire.WriteProblem(w, r.URL.Path, hitl.Errorf(hitl.ENotFound,
		"no such route: %s %s; the HTTP API is under /v1 (GET /v1/openapi.json describes it), MCP is at /mcp", r.Method, r.URL.Path))
}

// loadsPage tells whether r is a browser loading a page: a GET or HEAD that accepts HTML and
// sends no JSON.
func loadsPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" || strings.HasSuffix(mt, "+json") {
		return false
	}
	return strings.Contains(strings.Join(r.Header.Values("Accept"), ","), "text/html")
}

// static serves the files of the page's style and script; any other path under /static/ is
// the inbox's 404 page (a name that is not a valid path, such as %ff, included).
func (h *Handler) static(files fs.FS) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("file")
		if !utf8.ValidString(name) || !fs.ValidPath(name) {
			h.errorPage(w, r, nil, http.StatusNotFound, "There is no page here.")
			return
		}
		if st, err := fs.Stat(files, name); err != nil || st.IsDir() {
			h.errorPage(w, r, nil, http.StatusNotFound, "There is no page here.")
			return
		}
		http.ServeFileFS(w, r, files, name)
	}
}

// limited tells how long the client's address must wait, after too many failed sign-ins or
// answer links (or failed authentications on the API), before it may try again; 0: not
// limited. When it must wait, the answer says so in Retry-After.
func (h *Handler) limited(w http.ResponseWriter, r *http.Request) time.Duration {
	wait := h.cfg.AuthLimiter.Wait(r.RemoteAddr)
	if wait > 0 {
		w.Header().Set("Retry-After", authlimit.RetryAfter(wait))
		closeUnread(w, r)
	}
	return wait
}

// tooManyFailures is what a limited address reads.
func tooManyFailures(wait time.Duration) string {
	return "Too many failed attempts from your address. Try again in " + authlimit.RetryAfter(wait) + " seconds."
}

// closeUnread closes the connection after an answer given before the request's body was
// read: otherwise the server would first read (and wait for) a body it has no use for.
func closeUnread(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	w.Header().Set("Connection", "close")
	http.NewResponseController(w).SetReadDeadline(time.Now())
}

// page is a handler for a signed-in person.
type page func(w http.ResponseWriter, r *http.Request, v *viewer)

// viewer is who looks at a page: the principal, their inbox session's id and the token their
// forms carry, derived from it.
type viewer struct {
	*hitl.Principal
	CSRF    string
	session string
	// PushKey is the server's VAPID public key, which the page subscribes this device with.
	PushKey string
	// TimeZone is the zone the person set, where pages show times ("": UTC, and the browser's
	// own zone once the page's script runs).
	TimeZone string
}

// signedIn runs a page for the principal of the session cookie; without a valid one, a GET
// goes to the sign-in page (and comes back after), anything else gets 401.
func (h *Handler) signedIn(next page) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var p *hitl.Principal
		var session string
		if c, err := r.Cookie(httpapi.SessionCookie); err == nil && c.Value != "" {
			session = c.Value
			if p, err = h.engine.AuthenticateSession(r.Context(), session); err != nil && hitl.ErrorCode(err) != hitl.EUnauthorized {
				h.fail(w, r, nil, err)
				return
			}
		}
		if p == nil {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			closeUnread(w, r)
			h.errorPage(w, r, nil, http.StatusUnauthorized, "Your session has ended. Sign in again; what you entered was not saved.")
			return
		}
		v := &viewer{Principal: p, CSRF: csrfToken(session), session: session, PushKey: h.engine.VAPIDPublicKey()}
		zone, err := h.engine.TimeZone(r.Context(), p)
		if err != nil {
			h.fail(w, r, nil, err)
			return
		}
		v.TimeZone = zone
		if r.Method == http.MethodPost {
			if err := r.ParseForm(); err != nil {
				h.errorPage(w, r, v, formStatus(err), formProblem(err))
				return
			}
			if !validCSRF(r.PostForm.Get("csrf"), v.CSRF) {
				h.errorPage(w, r, v, http.StatusForbidden, "This form has expired or did not come from this site. Go back, reload the page and try again.")
				return
			}
		}
		next(w, r, v)
	}
}

// formStatus is the status for a form that could not be read: too large, too slow to
// arrive, or malformed.
func formStatus(err error) int {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout
	}
	return http.StatusBadRequest
}

func formProblem(err error) string {
	switch formStatus(err) {
	case http.StatusRequestEntityTooLarge:
		return "What you sent is too large. Shorten it and try again."
	case http.StatusRequestTimeout:
		return "What you sent took too long to arrive. Try again."
	}
	return "The form could not be read. Reload the page and try again."
}

// secure tells whether cookies must be Secure: on TLS, or behind a public https:// URL.
func (h *Handler) secure(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(h.cfg.PublicURL, "https://")
}

// fail shows an error from the engine as a page with the status it stands for; internal
// errors are logged and shown without their details.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, v *viewer, err error) {
	if r.Context().Err() != nil {
		return // the person left; nobody reads the page
	}
	code := hitl.ErrorCode(err)
	status, msg := httpwire.Status(code), hitl.ErrorMessage(err)
	switch code {
	case hitl.EInternal:
		msg = "Something went wrong on our side. Try again in a moment."
	case hitl.EUnavailable:
		msg = "The database does not answer. Try again in a moment."
	}
	if status == http.StatusInternalServerError {
		h.log.Error("page failed", "path", r.URL.Path, "err", err)
	}
	h.errorPage(w, r, v, status, msg)
}

func (h *Handler) errorPage(w http.ResponseWriter, r *http.Request, v *viewer, status int, msg string) {
	h.render(w, r, status, "error", &layout{Viewer: v, Title: http.StatusText(status)}, map[string]any{"Status": status, "Message": msg})
}

// layout is what every page's frame shows.
type layout struct {
	Viewer *viewer
	Title  string
	// Section is the navigation's link this page is ("inbox", "stats"; "" for none).
	Section string
	// Stream is the query of /v1/events/stream this page follows ("" for none), from Seq.
	Stream string
	Seq    string
	// Refresh is where the page takes the browser at once ("" : nowhere).
	Refresh string
}

// startSeq is where a page's live updates start: read before the page's state, so that no
// change between the two is missed (one seen twice only refreshes the page once more).
func (h *Handler) startSeq(ctx context.Context) string {
	seq, err := h.engine.LastEventSeq(ctx)
	if err != nil {
		return "now"
	}
	return strconv.FormatInt(seq, 10)
}
