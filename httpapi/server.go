// Package httpapi serves hitl's REST API v1 over the standard library's router, and mounts the
// compatibility protocols (protocol/...) beside it. Around every route, its own and theirs, it
// authenticates, limits and reads the request; its handlers call the engine and write JSON or
// RFC 9457 problem details (internal/httpwire, which maps each domain error code to one status).
package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
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
	"github.com/hitl-dev/hitl/internal/httpwire"
	"github.com/hitl-dev/hitl/internal/metrics"
	"github.com/hitl-dev/hitl/internal/ratelimit"
	"github.com/hitl-dev/hitl/internal/tracing"
	"github.com/hitl-dev/hitl/protocol/a2a"
	"github.com/hitl-dev/hitl/protocol/agentquestions"
	"github.com/hitl-dev/hitl/protocol/attune"
	"github.com/hitl-dev/hitl/protocol/mcp"
	"github.com/hitl-dev/hitl/protocol/nova"
	"github.com/hitl-dev/hitl/protocol/openintent"
)

// SessionCookie is the web inbox's session cookie: it holds the id of an inbox session (see
// engine.SignIn), never an API token. Routes marked cookie accept it as well as a header.
const SessionCookie = "hitl_session"

// Config bounds what a request may send, and paces the streams.
type Config struct {
	MaxBodyBytes int64         // default httpwire.DefaultMaxBodyBytes
	Heartbeat    time.Duration // comment lines on idle event streams (default 15 s)
	MCPWaitBound time.Duration // how long an MCP tool call, or a blocking A2A message/send, waits for the human (default mcp.DefaultWaitBound)
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

// Server is the HTTP front of one engine: hitl's own API, and the compatibility protocols
// mounted beside it.
type Server struct {
	engine  *engine.Engine
	metrics *metrics.Metrics
	log     *slog.Logger
	tracer  trace.Tracer
	cfg     Config
	mux     *http.ServeMux
	// routes are all the routes mounted; the OpenAPI test checks the document against them.
	routes []httpwire.Route
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
)

// New builds the server and its routes: hitl's own, and those of each compatibility protocol.
func New(e *engine.Engine, m *metrics.Metrics, log *slog.Logger, cfg Config) *Server {
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = httpwire.DefaultMaxBodyBytes
	}
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = 15 * time.Second
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{engine: e, metrics: m, log: log, tracer: tracing.Tracer(cfg.Tracer), cfg: cfg, mux: http.NewServeMux()}
	for _, rt := range s.ownRoutes() {
		s.Handle(rt)
	}
	attune.New(e).Mount(s)
	openintent.New(e).Mount(s)
	nova.New(e).Mount(s)
	mcpHTTP := mcp.NewHTTP(e, cfg.MCPWaitBound)
	mcpHTTP.PublicURL = cfg.PublicURL
	mcpHTTP.Mount(s)
	agentquestions.New(e).Mount(s)
	a2a.New(e, cfg.PublicURL, cfg.MCPWaitBound).Mount(s)
	if m != nil {
		s.mux.Handle("GET /metrics", m.Handler())
	}
	return s
}

// Handle mounts one route, with everything wrap adds around it (Server is the protocols'
// httpwire.Router).
func (s *Server) Handle(rt httpwire.Route) {
	s.routes = append(s.routes, rt)
	s.mux.Handle(rt.Method+" "+rt.Path, s.wrap(rt))
}

// ownRoutes are hitl's own API; the compatibility protocols mount theirs beside them (New).
func (s *Server) ownRoutes() []httpwire.Route {
	return []httpwire.Route{
		{Method: "GET", Path: "/healthz", Public: true, Handle: s.healthz},
		{Method: "GET", Path: "/readyz", Public: true, Handle: s.readyz},
		{Method: "GET", Path: "/v1/openapi.json", Public: true, Handle: s.openapi},

		{Method: "POST", Path: "/v1/keys", Handle: s.createKey},
		{Method: "GET", Path: "/v1/keys", Query: noQuery, Handle: s.listKeys},
		{Method: "DELETE", Path: "/v1/keys/{id}", Handle: s.revokeKey},
		{Method: "GET", Path: "/v1/me", Handle: s.me},
		{Method: "POST", Path: "/v1/me/push-subscriptions", Query: noQuery, Handle: s.subscribePush},
		{Method: "DELETE", Path: "/v1/me/push-subscriptions", Query: []string{"endpoint"}, Handle: s.unsubscribePush},
		{Method: "GET", Path: "/v1/push/vapid-public-key", Query: noQuery, Handle: s.vapidPublicKey},

		{Method: "POST", Path: "/v1/inquiries", Handle: s.createInquiry},
		{Method: "GET", Path: "/v1/inquiries", Query: inquiryQuery, Handle: s.listInquiries},
		{Method: "GET", Path: "/v1/inquiries/{id}", Handle: s.getInquiry},
		{Method: "POST", Path: "/v1/inquiries/{id}/respond", Handle: s.respond},
		{Method: "POST", Path: "/v1/inquiries/{id}/cancel", Handle: s.cancel},
		{Method: "POST", Path: "/v1/inquiries/{id}/decline", Handle: s.decline},
		{Method: "POST", Path: "/v1/inquiries/respond", Handle: s.respondMany},
		{Method: "GET", Path: "/v1/inquiries/{id}/wait", Handle: s.wait},
		{Method: "POST", Path: "/v1/inquiries/wait", Handle: s.waitMany},
		{Method: "POST", Path: "/v1/inquiries/{id}/claim", Handle: s.claim},
		{Method: "DELETE", Path: "/v1/inquiries/{id}/claim", Handle: s.release},
		{Method: "POST", Path: "/v1/inquiries/{id}/links", Handle: s.createAnswerLink},
		{Method: "GET", Path: "/v1/inquiries/{id}/notifications", Query: noQuery, Handle: s.listNotifications},
		{Method: "GET", Path: "/v1/inquiries/{id}/precedents", Query: noQuery, Handle: s.precedents},

		{Method: "PUT", Path: "/v1/sessions/{key}", Handle: s.putSession},
		{Method: "GET", Path: "/v1/sessions", Query: sessionQuery, Handle: s.listSessions},
		{Method: "GET", Path: "/v1/sessions/{key}", Handle: s.getSession},
		{Method: "GET", Path: "/v1/sessions/{key}/inquiries", Query: noQuery, Handle: s.sessionInquiries},
		{Method: "POST", Path: "/v1/sessions/{key}/complete", Handle: s.completeSession},
		{Method: "POST", Path: "/v1/sessions/{key}/fail", Handle: s.failSession},
		{Method: "POST", Path: "/v1/sessions/{key}/cancel", Handle: s.cancelSession},

		{Method: "GET", Path: "/v1/events", Query: eventQuery, Handle: s.listEvents},
		{Method: "GET", Path: "/v1/events/stream", Cookie: true, Handle: s.stream},
		{Method: "GET", Path: "/v1/ws", Cookie: true, SubprotocolToken: true, Handle: s.ws},
		{Method: "POST", Path: "/v1/engagement/decide", Handle: s.decide},

		{Method: "POST", Path: "/v1/webhooks", Handle: s.createWebhook},
		{Method: "GET", Path: "/v1/webhooks", Query: noQuery, Handle: s.listWebhooks},
		{Method: "GET", Path: "/v1/webhooks/{id}", Handle: s.getWebhook},
		{Method: "DELETE", Path: "/v1/webhooks/{id}", Handle: s.deleteWebhook},
		{Method: "GET", Path: "/v1/webhooks/{id}/deliveries", Query: deliveryQuery, Handle: s.listDeliveries},
		{Method: "GET", Path: "/v1/deliveries", Query: deliveryQuery, Handle: s.listDeliveries},
		{Method: "POST", Path: "/v1/deliveries/{id}/retry", Handle: s.retryDelivery},
		{Method: "GET", Path: "/v1/callback-secret", Handle: s.callbackSecret},
		{Method: "GET", Path: "/v1/audit/head", Handle: s.auditHead},
		{Method: "GET", Path: "/v1/audit/key", Public: true, Handle: s.auditKey},
		{Method: "GET", Path: "/.well-known/jwks.json", Query: noQuery, Public: true, Handle: s.jwks},
		{Method: "POST", Path: "/v1/signing-keys/rotate", Query: noQuery, Handle: s.rotateSigningKey},
		{Method: "POST", Path: "/v1/receipts/{jti}/redeem", Query: noQuery, Handle: s.redeemReceipt},
		{Method: "POST", Path: "/v1/retention/purge", Handle: s.purge},
		{Method: "GET", Path: "/v1/stats", Query: []string{"since"}, Handle: s.stats},

		{Method: "PUT", Path: "/v1/people/{name}", Handle: s.putPerson},
		{Method: "GET", Path: "/v1/people", Query: noQuery, Handle: s.listPeople},
		{Method: "GET", Path: "/v1/people/{name}", Handle: s.getPerson},
		{Method: "DELETE", Path: "/v1/people/{name}", Handle: s.deletePerson},
		{Method: "PUT", Path: "/v1/people/{name}/absence", Handle: s.putAbsence},
		{Method: "GET", Path: "/v1/people/{name}/absence", Handle: s.getAbsence},
		{Method: "DELETE", Path: "/v1/people/{name}/absence", Handle: s.deleteAbsence},
		{Method: "POST", Path: "/v1/rules", Handle: s.createRule},
		{Method: "GET", Path: "/v1/rules", Query: noQuery, Handle: s.listRules},
		{Method: "DELETE", Path: "/v1/rules/{id}", Handle: s.revokeRule},
		{Method: "GET", Path: "/v1/rules/suggestions", Query: []string{"inquiry"}, Handle: s.ruleSuggestion},
		{Method: "PUT", Path: "/v1/groups/{name}", Handle: s.putGroup},
		{Method: "GET", Path: "/v1/groups", Query: noQuery, Handle: s.listGroups},
		{Method: "GET", Path: "/v1/groups/{name}", Handle: s.getGroup},
		{Method: "DELETE", Path: "/v1/groups/{name}", Handle: s.deleteGroup},
		{Method: "POST", Path: "/v1/chat-webhooks", Handle: s.createChatWebhook},
		{Method: "GET", Path: "/v1/chat-webhooks", Query: noQuery, Handle: s.listChatWebhooks},
		{Method: "DELETE", Path: "/v1/chat-webhooks/{id}", Handle: s.deleteChatWebhook},
		{Method: "GET", Path: "/v1/tools/{name}", Handle: s.tool},
		{Method: "PUT", Path: "/v1/templates/{name}", Handle: s.putTemplate},
		{Method: "GET", Path: "/v1/templates", Query: noQuery, Handle: s.listTemplates},
		{Method: "GET", Path: "/v1/templates/{name}", Handle: s.getTemplate},
		{Method: "DELETE", Path: "/v1/templates/{name}", Handle: s.deleteTemplate},
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
	s.problem(w, r, &hitl.Error{Code: httpwire.CodeMethodNotAllowed, Message: fmt.Sprintf("%s does not take %s; it takes %s", r.URL.Path, r.Method, strings.Join(allow, ", "))})
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
	return &hitl.Error{Code: httpwire.CodeOf(w.status), Message: msg}
}

// wrap adds, around every route: the request's trace, panic recovery, the limit on failed
// authentications, authentication, the body (read whole, and only once the caller is known)
// and metrics.
func (s *Server) wrap(rt httpwire.Route) http.Handler {
	label := rt.Method + " " + rt.Path
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w := &statusWriter{ResponseWriter: rw}
		// A traceparent that is not valid W3C Trace Context is ignored: the request starts a new trace.
		ctx, span := s.tracer.Start(tracing.Extract(r.Context(), r.Header), label, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(r.Method), semconv.HTTPRoute(rt.Path)))
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
		if !rt.Public {
			if wait := s.cfg.AuthLimiter.Wait(r.RemoteAddr); wait > 0 {
				w.Header().Set("Retry-After", authlimit.RetryAfter(wait))
				s.refuse(w, r, hitl.Errorf(hitl.ERateLimited, "too many failed authentications from your address; try again in %s s", authlimit.RetryAfter(wait)))
				return
			}
			var err error
			tok := token(r)
			if tok == "" && rt.SubprotocolToken {
				tok, _ = bearerSubprotocol(r)
			}
			if c, cerr := r.Cookie(SessionCookie); tok == "" && rt.Cookie && cerr == nil {
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
		if err := httpwire.ReadBody(rw, r, s.cfg.MaxBodyBytes); err != nil {
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
		if err := rt.Handle(w, r, p); err != nil {
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
func checkQuery(rt httpwire.Route, r *http.Request) error {
	if rt.Query == nil {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(r.URL.Query())) {
		known := slices.ContainsFunc(rt.Query, func(q string) bool {
			if strings.HasSuffix(q, ".") {
				return strings.HasPrefix(name, q) && len(name) > len(q)
			}
			return q == name
		})
		if known {
			continue
		}
		takes := "no query parameters"
		if len(rt.Query) > 0 {
			takes = strings.ReplaceAll(strings.Join(rt.Query, ", "), "metadata.", "metadata.KEY")
		}
		return hitl.Errorf(hitl.EInvalid, "unknown query parameter %q: %s %s takes %s", name, rt.Method, rt.Path, takes)
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
	return httpwire.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request, _ *hitl.Principal) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.engine.Ready(ctx); err != nil {
		return hitl.Errorf(hitl.EUnavailable, "the store does not answer")
	}
	return httpwire.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
