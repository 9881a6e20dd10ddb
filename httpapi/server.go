// Package httpapi serves hitl's REST API v1 over the standard library's router. It is the only
// place that knows HTTP: it authenticates, bounds and decodes requests, calls the engine, and
// writes JSON or RFC 9457 problem details, mapping each domain error code to one status.
package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/authlimit"
	"github.com/hitl-dev/hitl/internal/metrics"
	"github.com/hitl-dev/hitl/internal/ratelimit"
	"github.com/hitl-dev/hitl/internal/tracing"
)

// SessionCookie is the web inbox's session cookie: it holds the id of an inbox session (see
// engine.SignIn), never an API token. Routes marked cookie accept it as well as a header.
const SessionCookie = "hitl_session"

// Config bounds what a request may send, and paces the streams.
type Config struct {
	MaxBodyBytes int64         // default 1 MiB
	Heartbeat    time.Duration // comment lines on idle event streams (default 15 s)
	MCPWaitBound time.Duration // how long an MCP tool call waits for the human (default 45 s)
	PublicURL    string        // how people reach this server, for answer links (default: the request's host)
	// AuthLimiter counts failed authentications per client address; an address over its
	// limit gets 429 without its credentials being checked (nil: no limit).
	AuthLimiter *authlimit.Limiter
	// RateLimiter keeps a token bucket per principal (nil: no limit).
	RateLimiter *ratelimit.Limiter
	// Tracer records a server span of each request, in the trace its traceparent header names
	// (nil: none; the header's trace is kept with the inquiries it creates all the same).
	Tracer trace.TracerProvider
}

// Server is the HTTP front of one engine.
type Server struct {
	engine  *engine.Engine
	metrics *metrics.Metrics
	log     *slog.Logger
	tracer  trace.Tracer
	cfg     Config
	mux     *http.ServeMux
	// mcpHandler serves POST /mcp.
	mcpHandler http.Handler
}

// handler serves one authenticated route; a returned error becomes a problem response.
type handler func(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error

// route is one entry of the API; the OpenAPI test checks the document against this table.
type route struct {
	method, path string
	public       bool
	// cookie: the web inbox's session cookie also authenticates (a browser's EventSource
	// cannot send a header). Only for reads: other sites' forms must never act with it. (The
	// WebSocket takes it too, from its own origin only: see wsOriginAllowed.)
	cookie bool
	// subprotocolToken: the token may also come as a WebSocket subprotocol, hitl.bearer.TOKEN
	// (a browser's WebSocket cannot send a header).
	subprotocolToken bool
	// query lists the query parameters of a list; any other is refused (a filter that is
	// misspelt must not list everything). A name ending in "." stands for every name it
	// begins (metadata.KEY). nil: the route does not check.
	query []string
	h     handler
}

// Query parameters of the lists.
var (
	noQuery      = []string{}
	pageQuery    = []string{"cursor", "limit"}
	inquiryQuery = append([]string{"status", "execution", "session", "origin", "request_type", "created_by", "assigned_to",
		"q", "order", "created_after", "created_before", "metadata."}, pageQuery...)
	sessionQuery  = append([]string{"status"}, pageQuery...)
	eventQuery    = append([]string{"session", "after", "type", "inquiry_id"}, pageQuery...)
	deliveryQuery = append([]string{"webhook_id", "status", "session", "inquiry_id"}, pageQuery...)
	attuneQuery   = []string{"status", "execution", "assigned_to", "page", "per_page"}
)

// New builds the server and its routes.
func New(e *engine.Engine, m *metrics.Metrics, log *slog.Logger, cfg Config) *Server {
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = 15 * time.Second
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{engine: e, metrics: m, log: log, tracer: tracing.Tracer(cfg.Tracer), cfg: cfg, mux: http.NewServeMux()}
	s.mcpHandler = s.newMCPHandler()
	for _, rt := range s.routes() {
		s.mux.Handle(rt.method+" "+rt.path, s.wrap(rt))
	}
	if m != nil {
		s.mux.Handle("GET /metrics", m.Handler())
	}
	return s
}

func (s *Server) routes() []route {
	return []route{
		{method: "GET", path: "/healthz", public: true, h: s.healthz},
		{method: "GET", path: "/readyz", public: true, h: s.readyz},
		{method: "GET", path: "/v1/openapi.json", public: true, h: s.openapi},

		{method: "POST", path: "/v1/keys", h: s.createKey},
		{method: "GET", path: "/v1/keys", query: noQuery, h: s.listKeys},
		{method: "DELETE", path: "/v1/keys/{id}", h: s.revokeKey},
		{method: "GET", path: "/v1/me", h: s.me},

		{method: "POST", path: "/v1/inquiries", h: s.createInquiry},
		{method: "GET", path: "/v1/inquiries", query: inquiryQuery, h: s.listInquiries},
		{method: "GET", path: "/v1/inquiries/{id}", h: s.getInquiry},
		{method: "POST", path: "/v1/inquiries/{id}/respond", h: s.respond},
		{method: "POST", path: "/v1/inquiries/{id}/cancel", h: s.cancel},
		{method: "POST", path: "/v1/inquiries/{id}/decline", h: s.decline},
		{method: "POST", path: "/v1/inquiries/respond", h: s.respondMany},
		{method: "GET", path: "/v1/inquiries/{id}/wait", h: s.wait},
		{method: "POST", path: "/v1/inquiries/wait", h: s.waitMany},
		{method: "POST", path: "/v1/inquiries/{id}/claim", h: s.claim},
		{method: "DELETE", path: "/v1/inquiries/{id}/claim", h: s.release},
		{method: "POST", path: "/v1/inquiries/{id}/links", h: s.createAnswerLink},
		{method: "GET", path: "/v1/inquiries/{id}/notifications", query: noQuery, h: s.listNotifications},

		{method: "PUT", path: "/v1/sessions/{key}", h: s.putSession},
		{method: "GET", path: "/v1/sessions", query: sessionQuery, h: s.listSessions},
		{method: "GET", path: "/v1/sessions/{key}", h: s.getSession},
		{method: "GET", path: "/v1/sessions/{key}/inquiries", query: noQuery, h: s.sessionInquiries},
		{method: "POST", path: "/v1/sessions/{key}/complete", h: s.completeSession},
		{method: "POST", path: "/v1/sessions/{key}/fail", h: s.failSession},
		{method: "POST", path: "/v1/sessions/{key}/cancel", h: s.cancelSession},

		{method: "GET", path: "/v1/events", query: eventQuery, h: s.listEvents},
		{method: "GET", path: "/v1/events/stream", cookie: true, h: s.stream},
		{method: "GET", path: "/v1/ws", cookie: true, subprotocolToken: true, h: s.ws},
		{method: "POST", path: "/v1/engagement/decide", h: s.decide},

		{method: "POST", path: "/v1/webhooks", h: s.createWebhook},
		{method: "GET", path: "/v1/webhooks", query: noQuery, h: s.listWebhooks},
		{method: "GET", path: "/v1/webhooks/{id}", h: s.getWebhook},
		{method: "DELETE", path: "/v1/webhooks/{id}", h: s.deleteWebhook},
		{method: "GET", path: "/v1/webhooks/{id}/deliveries", query: deliveryQuery, h: s.listDeliveries},
		{method: "GET", path: "/v1/deliveries", query: deliveryQuery, h: s.listDeliveries},
		{method: "POST", path: "/v1/deliveries/{id}/retry", h: s.retryDelivery},
		{method: "GET", path: "/v1/callback-secret", h: s.callbackSecret},
		{method: "GET", path: "/v1/audit/head", h: s.auditHead},
		{method: "GET", path: "/v1/audit/key", public: true, h: s.auditKey},
		{method: "POST", path: "/v1/retention/purge", h: s.purge},
		{method: "GET", path: "/v1/stats", query: []string{"since"}, h: s.stats},

		{method: "PUT", path: "/v1/people/{name}", h: s.putPerson},
		{method: "GET", path: "/v1/people", query: noQuery, h: s.listPeople},
		{method: "GET", path: "/v1/people/{name}", h: s.getPerson},
		{method: "DELETE", path: "/v1/people/{name}", h: s.deletePerson},
		{method: "PUT", path: "/v1/groups/{name}", h: s.putGroup},
		{method: "GET", path: "/v1/groups", query: noQuery, h: s.listGroups},
		{method: "GET", path: "/v1/groups/{name}", h: s.getGroup},
		{method: "DELETE", path: "/v1/groups/{name}", h: s.deleteGroup},
		{method: "POST", path: "/v1/chat-webhooks", h: s.createChatWebhook},
		{method: "GET", path: "/v1/chat-webhooks", query: noQuery, h: s.listChatWebhooks},
		{method: "DELETE", path: "/v1/chat-webhooks/{id}", h: s.deleteChatWebhook},
		{method: "GET", path: "/v1/tools/{name}", h: s.tool},
		{method: "PUT", path: "/v1/templates/{name}", h: s.putTemplate},
		{method: "GET", path: "/v1/templates", query: noQuery, h: s.listTemplates},
		{method: "GET", path: "/v1/templates/{name}", h: s.getTemplate},
		{method: "DELETE", path: "/v1/templates/{name}", h: s.deleteTemplate},

		// Attune's shape (httpapi/attune.go).
		{method: "POST", path: "/api/v1/executions/{execution_id}/result", h: s.attuneResult},
		{method: "GET", path: "/api/v1/inquiries", query: attuneQuery, h: s.attuneList},
		{method: "GET", path: "/api/v1/inquiries/{id}", h: s.attuneGet},
		{method: "POST", path: "/api/v1/inquiries/{id}/respond", h: s.attuneRespond},
		{method: "POST", path: "/api/v1/inquiries/{id}/cancel", h: s.attuneCancel},
		// OpenIntent's shape (httpapi/openintent.go).
		{method: "GET", path: "/api/v1/intents/{intent_id}", h: s.openIntentGet},
		{method: "POST", path: "/api/v1/intents/{intent_id}/suspend/respond", h: s.openIntentRespond},
		// Nova's shape (httpapi/nova.go).
		{method: "POST", path: "/api/interactions/{id}/answer", h: s.novaAnswer},
		{method: "POST", path: "/api/interactions/{id}/cancel", h: s.novaCancel},
		{method: "GET", path: "/api/interactions/pending", query: []string{"thread_id"}, h: s.novaPending},
		{method: "POST", path: "/mcp", h: s.mcp},

		// The async agent questions protocol's shape (httpapi/agentquestions.go).
		{method: "GET", path: "/agent/questions", query: []string{"status"}, h: s.agentQuestions},
		{method: "POST", path: "/agent/answer/{session_id}", h: s.agentAnswer},
		{method: "GET", path: "/agent/session/{session_id}", h: s.agentSessionStatus},
	}
}

// ServeHTTP makes Server an http.Handler. Requests that match no route get a problem
// response too: 405 with Allow when the path exists for other methods, else 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, pattern := s.mux.Handler(r); pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		s.problem(w, r, hitl.Errorf(hitl.ENotFound, "no such route: %s %s", r.Method, r.URL.Path))
		return
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	s.problem(w, r, &hitl.Error{Code: codeMethodNotAllowed, Message: fmt.Sprintf("%s does not take %s; it takes %s", r.URL.Path, r.Method, strings.Join(allow, ", "))})
}

// statusWriter remembers the status for the metrics and the log. It also holds back a
// plain-text error that a library writes (http.Error: the WebSocket upgrade's 426, the MCP
// handler's 415), so that wrap can send it as a problem like every other error of the API.
type statusWriter struct {
	http.ResponseWriter
	status int
	plain  *bytes.Buffer
}

// maxPlainError bounds the text kept of a library's plain-text error.
const maxPlainError = 1024

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status, w.plain = code, new(bytes.Buffer)
		return
	}
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.plain != nil {
		w.plain.Write(b[:min(len(b), max(maxPlainError-w.plain.Len(), 0))])
		return len(b), nil
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// plainError is the plain-text error held back, as a problem; nil when there is none.
func (w *statusWriter) plainError() error {
	if w.plain == nil {
		return nil
	}
	msg := strings.TrimSpace(w.plain.String())
	w.plain = nil
	if msg == "" {
		msg = http.StatusText(w.status)
	}
	w.Header().Del("Content-Length")
	return &hitl.Error{Code: codeOf(w.status), Message: msg}
}

// wrap adds, around every route: the request's trace, panic recovery, the limit on failed
// authentications, authentication, the body (read whole, and only once the caller is known)
// and metrics.
func (s *Server) wrap(rt route) http.Handler {
	label := rt.method + " " + rt.path
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w := &statusWriter{ResponseWriter: rw}
		// A traceparent that is not valid W3C Trace Context is ignored: the request starts a new trace.
		ctx, span := s.tracer.Start(tracing.Extract(r.Context(), r.Header), label, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(r.Method), semconv.HTTPRoute(rt.path)))
		r = r.WithContext(ctx)
		defer endServerSpan(span, w)
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("handler panicked", "route", label, "panic", v)
				if w.status == 0 || w.plain != nil {
					w.plain = nil
					s.problem(w, r, hitl.Errorf(hitl.EInternal, "internal error"))
				}
			}
			s.metrics.HTTPRequest(label, w.status, time.Since(start))
		}()
		var p *hitl.Principal
		if !rt.public {
			if wait := s.cfg.AuthLimiter.Wait(r.RemoteAddr); wait > 0 {
				w.Header().Set("Retry-After", authlimit.RetryAfter(wait))
				s.refuse(w, r, hitl.Errorf(hitl.ERateLimited, "too many failed authentications from your address; try again in %s s", authlimit.RetryAfter(wait)))
				return
			}
			var err error
			tok := token(r)
			if tok == "" && rt.subprotocolToken {
				tok, _ = bearerSubprotocol(r)
			}
			if c, cerr := r.Cookie(SessionCookie); tok == "" && rt.cookie && cerr == nil {
				// An inbox session that ended is no guess: its id is 256 random bits, and
				// the tabs still open after a sign-out knock with it. It does not count
				// toward the limit, or those tabs would lock their person out.
				p, err = s.engine.AuthenticateSession(r.Context(), c.Value)
			} else if p, err = s.engine.Authenticate(r.Context(), tok); hitl.ErrorCode(err) == hitl.EUnauthorized {
				s.cfg.AuthLimiter.Fail(r.RemoteAddr)
			}
			if err != nil {
				w.Header().Set("WWW-Authenticate", `Bearer realm="hitl"`)
				s.refuse(w, r, err)
				return
			}
			if refusal := s.cfg.RateLimiter.Allow(rateKey(p), p.Roles); refusal != nil {
				s.metrics.RateLimited(refusal.Role)
				w.Header().Set("Retry-After", strconv.Itoa(refusal.RetryAfter()))
				s.refuse(w, r, hitl.Errorf(hitl.ERateLimited, "too many requests from %s: %s; try again in %d s", rateName(p), refusal.Limit, refusal.RetryAfter()))
				return
			}
		}
		// Only a caller who is known hears about the size of what it sent.
		if r.ContentLength > s.cfg.MaxBodyBytes {
			s.refuse(w, r, hitl.Errorf(hitl.ETooLarge, "the request body is %d bytes; at most %d are accepted", r.ContentLength, s.cfg.MaxBodyBytes))
			return
		}
		if err := readBody(rw, r, s.cfg.MaxBodyBytes); err != nil {
			// A failed read has cancelled the request's context, but a client that sends too
			// much or too slowly is still there to read why.
			closeUnread(w, r)
			s.problem(w, r, err)
			return
		}
		if err := checkQuery(rt, r); err != nil {
			s.problem(w, r, err)
			return
		}
		if err := rt.h(w, r, p); err != nil {
			s.fail(w, r, err)
		}
		if err := w.plainError(); err != nil {
			s.problem(w, r, err)
		}
	})
}

// rateKey is the principal's bucket: its API key (an inbox session carries the key it signed
// in with, so one person's tabs share it), or its name when it has no key.
func rateKey(p *hitl.Principal) string {
	if p.KeyID != "" {
		return "key:" + p.KeyID
	}
	return "name:" + p.Name
}

// rateName names the bucket for people: "key bot" or "alice".
func rateName(p *hitl.Principal) string {
	if p.KeyID != "" {
		return "key " + p.Name
	}
	return p.Name
}

// endServerSpan ends a request's span with its status: failed when the server failed (5xx).
func endServerSpan(span trace.Span, w *statusWriter) {
	if w.status != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(w.status))
	}
	if w.status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(w.status))
	}
	span.End()
}

// checkQuery refuses a query parameter that the route's list does not take.
func checkQuery(rt route, r *http.Request) error {
	if rt.query == nil {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(r.URL.Query())) {
		known := slices.ContainsFunc(rt.query, func(q string) bool {
			if strings.HasSuffix(q, ".") {
				return strings.HasPrefix(name, q) && len(name) > len(q)
			}
			return q == name
		})
		if known {
			continue
		}
		takes := "no query parameters"
		if len(rt.query) > 0 {
			takes = strings.ReplaceAll(strings.Join(rt.query, ", "), "metadata.", "metadata.KEY")
		}
		return hitl.Errorf(hitl.EInvalid, "unknown query parameter %q: %s %s takes %s", name, rt.method, rt.path, takes)
	}
	return nil
}

// refuse answers a request whose body was not read (or not to its end), and closes the
// connection after the answer: otherwise the server would first read the rest of a body it
// has no use for, and wait for it.
func (s *Server) refuse(w *statusWriter, r *http.Request, err error) {
	closeUnread(w, r)
	s.fail(w, r, err)
}

// closeUnread makes the server close the connection after the answer without reading what
// is left of the request's body.
func closeUnread(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	w.Header().Set("Connection", "close")
	http.NewResponseController(w).SetReadDeadline(time.Now())
}

// readBody reads the whole request body, at most limit bytes, before the route's handler
// runs, so that every route answers a body that is too large (413) or too slow (408) the same
// way. The server's read timeout (http.Server.ReadTimeout, set by internal/server) bounds
// the read; net/http lifts it when the body has ended, so that a long poll, a stream or an
// MCP call that then waits for the human is not cut short.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return hitl.Errorf(hitl.ETooLarge, "the request body is larger than %d bytes", mbe.Limit)
		case errors.Is(err, os.ErrDeadlineExceeded):
			return &hitl.Error{Code: codeRequestTimeout, Message: "the request body did not arrive in time"}
		default:
			return hitl.Errorf(hitl.EInvalid, "the request body could not be read")
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return nil
}

// statusClientClosed is recorded (never sent) when the client hung up before the answer.
const statusClientClosed = 499

// fail answers a failed request with its problem, unless the client has gone: then there is
// nobody to answer, and a long poll the agent gave up on is no server error.
func (s *Server) fail(w *statusWriter, r *http.Request, err error) {
	if r.Context().Err() != nil && w.status == 0 {
		w.status = statusClientClosed
		s.log.Debug("client went away", "method", r.Method, "path", r.URL.Path)
		return
	}
	s.problem(w, r, err)
}

// token reads the caller's token from Authorization: Bearer or X-API-Key.
func token(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(h, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(tok)
		}
		return ""
	}
	return strings.TrimSpace(r.Header.Get("X-API-Key"))
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request, _ *hitl.Principal) error {
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request, _ *hitl.Principal) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.engine.Ready(ctx); err != nil {
		return hitl.Errorf(hitl.EUnavailable, "the store does not answer")
	}
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
