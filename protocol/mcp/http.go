package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
)

// HTTP serves MCP over streamable HTTP at /mcp, on the engine. Every request carries its bearer
// token and is authenticated like any other. An initialize request starts a session
// (Mcp-Session-Id), which the server needs to send requests to the client (elicitation): the
// session is bound to the key that started it, and any other key that names it is told it does
// not exist. A request with no session id that is not an initialize is served statelessly, as
// before sessions: a server for that request alone, which cannot ask the client anything.
type HTTP struct {
	engine    *engine.Engine
	waitBound time.Duration
	stateless http.Handler
	sessions  *sessionTable
	// PublicURL is how people reach this server, for the answer links of URL elicitations
	// (--public-url); "" takes the scheme and host of the request that started the session.
	PublicURL string
}

// principalKey carries the request's principal to the server the go-sdk asks for.
type principalKey struct{}

// Bounds of the session table (docs/mcp.md says them).
const (
	// SessionIdle ends a session nobody used for this long (no request, no open stream).
	SessionIdle = 30 * time.Minute
	// SessionsPerKey is how many sessions one key may hold; its least recently used idle
	// session ends when it starts one more.
	SessionsPerKey = 16
	// SessionsTotal is how many sessions the server holds; beyond it a new one is refused
	// (503) until others end, so that no key can end another's sessions.
	SessionsTotal = 1000
)

// NewHTTP returns the /mcp front end on e; waitBound is Options.WaitBound. Its sessions end
// when the engine drains for shutdown.
func NewHTTP(e *engine.Engine, waitBound time.Duration) *HTTP {
	h := &HTTP{engine: e, waitBound: waitBound}
	h.stateless = sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		p, _ := r.Context().Value(principalKey{}).(*hitl.Principal)
		return h.server(p, h.backend(p, ""), false)
	}, &sdk.StreamableHTTPOptions{Stateless: true})
	h.sessions = newSessionTable(SessionIdle, SessionsPerKey, SessionsTotal, time.Now)
	if e != nil { // nil: a server built only to list its routes
		go h.sessions.run(e.Draining())
	}
	return h
}

// server is the MCP server whose tools act as p, through b; stateful tells it serves a
// session (whose transport noticeCancels wraps).
func (h *HTTP) server(p *hitl.Principal, b Backend, stateful bool) *sdk.Server {
	return NewServer(b, Options{Responder: engine.CanAnswer(p), WaitBound: h.waitBound, noticesCancels: stateful})
}

// backend is the engine as p; base is where its answer links point.
func (h *HTTP) backend(p *hitl.Principal, base string) engineBackend {
	return engineBackend{engine: h.engine, p: p, base: base}
}

// Mount adds POST, GET and DELETE /mcp to r.
func (h *HTTP) Mount(r httpwire.Router) {
	r.Handle(httpwire.Route{Method: "POST", Path: "/mcp", Handle: h.post})
	r.Handle(httpwire.Route{Method: "GET", Path: "/mcp", Handle: h.get})
	r.Handle(httpwire.Route{Method: "DELETE", Path: "/mcp", Handle: h.delete})
}

const sessionHeader = "Mcp-Session-Id"

func (h *HTTP) post(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	body, err := io.ReadAll(r.Body) // from memory: the router read it within --max-body-bytes
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" { // else a 415 below
		if refused := checkMessage(body, r.Header.Get(protocolVersionHeader)); refused != nil {
			refused.write(w)
			return nil
		}
	}
	if id := r.Header.Get(sessionHeader); id != "" {
		s, ok := h.sessions.use(id, p)
		if !ok {
			return noSession(w, h.sessions.whyGone(id, p), initializes(body))
		}
		defer h.sessions.done(s)
		if !acceptable(w, r) || answerTaskRequest(w, r, body, s.backend) {
			return nil
		}
		s.transport.ServeHTTP(w, r)
		return nil
	}
	if answerTaskRequest(w, r, body, h.backend(p, "")) {
		return nil
	}
	if !initializes(body) {
		h.stateless.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
		return nil
	}
	if !acceptable(w, r) {
		return nil
	}
	s, err := h.start(r.Context(), p, httpwire.BaseURL(r, h.PublicURL))
	if err != nil {
		transportError(w, http.StatusServiceUnavailable, err.Error())
		return nil
	}
	defer h.sessions.done(s)
	s.transport.ServeHTTP(w, r)
	if s.session.InitializeParams() == nil { // the initialize failed: nothing to keep
		h.sessions.end(s, "")
	}
	return nil
}

// start opens a session for p, in use by the request that asked for it.
func (h *HTTP) start(ctx context.Context, p *hitl.Principal, base string) (*session, error) {
	t := &sdk.StreamableServerTransport{SessionID: rand.Text()}
	b := h.backend(p, base)
	s := &session{id: t.SessionID, key: keyOf(p), transport: t, backend: b}
	if err := h.sessions.add(s); err != nil {
		return nil, err
	}
	ss, err := h.server(p, b, true).Connect(context.WithoutCancel(ctx), WithTasks(noticeCancels(t), b), nil)
	if err != nil {
		h.sessions.end(s, "")
		return nil, err
	}
	h.sessions.connected(s, ss)
	return s, nil
}

// get is the session's standalone stream of server messages (SSE).
func (h *HTTP) get(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	s := h.named(w, r, p, http.StatusMethodNotAllowed, "GET /mcp is the stream of a session: send the Mcp-Session-Id that initialize returned")
	if s != nil {
		defer h.sessions.done(s)
		s.transport.ServeHTTP(w, r)
	}
	return nil
}

// delete ends a session.
func (h *HTTP) delete(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	if s := h.named(w, r, p, http.StatusBadRequest, "DELETE /mcp ends a session: send its Mcp-Session-Id"); s != nil {
		h.sessions.done(s)
		h.sessions.end(s, "it was ended with DELETE /mcp")
		w.WriteHeader(http.StatusNoContent)
	}
	return nil
}

// named is the session of p's key that the request names, in use; nil when it names none (the
// refusal is written: status and missing without a session id, 404 for an unknown one).
func (h *HTTP) named(w http.ResponseWriter, r *http.Request, p *hitl.Principal, status int, missing string) *session {
	id := r.Header.Get(sessionHeader)
	if id == "" {
		transportError(w, status, missing)
		return nil
	}
	s, ok := h.sessions.use(id, p)
	if !ok {
		noSession(w, h.sessions.whyGone(id, p), false)
	}
	return s
}

// noSession answers a session id that does not exist, has ended, or is another key's: the
// same 404 for all three, so that a key learns nothing of the sessions of others; why is how
// the key's own session ended when the table remembers it (whyGone). An initialize that names
// a session is told to leave the header out: with it, it can never start one.
func noSession(w http.ResponseWriter, why string, initialize bool) error {
	if why == "" {
		why = "it ended, or it is not this key's"
	}
	next := "start a new one with initialize, sent without the Mcp-Session-Id header"
	if initialize {
		next = "to start a new session, send initialize without the Mcp-Session-Id header"
	}
	transportError(w, http.StatusNotFound, "session not found: "+why+"; "+next)
	return nil
}

// codeTransportRefusal is the code of the transport's refusals (a session gone, too many):
// the first code of JSON-RPC's range for a server's own errors.
const codeTransportRefusal = -32000

// transportError answers with a JSON-RPC error object, as MCP clients read refusals of the transport.
func transportError(w http.ResponseWriter, status int, msg string) {
	writeRPCError(w, status, nil, codeTransportRefusal, msg)
}

// acceptable checks a POST's media types as the streamable HTTP transport asks.
func acceptable(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost {
		return true
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		transportError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
		return false
	}
	accept := strings.Join(r.Header.Values("Accept"), ",")
	if !(strings.Contains(accept, "*/*") || strings.Contains(accept, "application/json") && strings.Contains(accept, "text/event-stream")) {
		transportError(w, http.StatusBadRequest, "Accept must list both application/json and text/event-stream")
		return false
	}
	return true
}

// initializes tells whether a POST's body is (or, in a batch, holds) an initialize request.
func initializes(body []byte) bool {
	var one struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &one) == nil {
		return one.Method == "initialize"
	}
	var batch []struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &batch) != nil {
		return false
	}
	for _, m := range batch {
		if m.Method == "initialize" {
			return true
		}
	}
	return false
}

// keyOf is what a session is bound to: the key the caller authenticated with.
func keyOf(p *hitl.Principal) string {
	if p.KeyID != "" {
		return "key:" + p.KeyID
	}
	return "name:" + p.Name
}

// session is one MCP session at /mcp.
type session struct {
	id        string
	key       string
	transport *sdk.StreamableServerTransport
	backend   Backend // the tools' backend, the key's principal on the engine
	session   *sdk.ServerSession
	// Guarded by the table's lock:
	inUse    int       // requests and streams being served
	lastUsed time.Time // when the last of them ended
	ended    bool
}

// sessionTable holds the sessions, bounded in number per key and in all, and ends those idle
// longer than idle.
type sessionTable struct {
	idle          time.Duration
	perKey, total int
	now           func() time.Time

	mu   sync.Mutex
	byID map[string]*session
	// gone is why the sessions that ended lately ended, for their key's next request that
	// names one (whyGone); goneOrder bounds it, oldest first, to as many as the table holds.
	gone      map[string]goneSession
	goneOrder []string
}

// goneSession is an ended session the table remembers.
type goneSession struct {
	key, why string
}

func newSessionTable(idle time.Duration, perKey, total int, now func() time.Time) *sessionTable {
	return &sessionTable{idle: idle, perKey: perKey, total: total, now: now, byID: map[string]*session{}, gone: map[string]goneSession{}}
}

// run ends idle sessions now and then, and every session when stop closes.
func (t *sessionTable) run(stop <-chan struct{}) {
	tick := time.NewTicker(t.idle / 4)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			t.sweep()
		case <-stop:
			t.closeAll()
			return
		}
	}
}

// add puts a new session in the table, in use; when its key holds as many as it may, the key's
// least recently used idle session ends.
func (t *sessionTable) add(s *session) error {
	t.mu.Lock()
	var oldest *session
	n := 0
	for _, o := range t.byID {
		if o.key != s.key {
			continue
		}
		n++
		if o.inUse == 0 && (oldest == nil || o.lastUsed.Before(oldest.lastUsed)) {
			oldest = o
		}
	}
	switch {
	case n >= t.perKey && oldest == nil:
		t.mu.Unlock()
		return fmt.Errorf("this key holds %d MCP sessions, all in use: end one with DELETE /mcp first", n)
	case n < t.perKey && len(t.byID) >= t.total:
		t.mu.Unlock()
		return fmt.Errorf("the server holds %d MCP sessions, its most: try again later", len(t.byID))
	}
	if n < t.perKey {
		oldest = nil
	}
	s.inUse = 1
	t.byID[s.id] = s
	t.mu.Unlock()
	if oldest != nil {
		t.end(oldest, fmt.Sprintf("it was ended to make room for a newer one: this key held %d sessions, the most one key may (end those you are done with, DELETE /mcp)", t.perKey))
	}
	return nil
}

// connected records the server's side of a session that add put in the table.
func (t *sessionTable) connected(s *session, ss *sdk.ServerSession) {
	t.mu.Lock()
	s.session = ss
	t.mu.Unlock()
}

// use finds the session id names for p's key and marks it in use; false when there is none.
func (t *sessionTable) use(id string, p *hitl.Principal) (*session, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.byID[id]
	if s == nil || s.ended || s.session == nil || s.key != keyOf(p) {
		return nil, false
	}
	s.inUse++
	return s, true
}

// done ends a use of s.
func (t *sessionTable) done(s *session) {
	t.mu.Lock()
	s.inUse--
	s.lastUsed = t.now()
	t.mu.Unlock()
}

// whyGone is why the session id named ended, when it was p's key's and the table remembers
// it; "" otherwise, so that a key learns nothing of the sessions of others.
func (t *sessionTable) whyGone(id string, p *hitl.Principal) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if g, ok := t.gone[id]; ok && g.key == keyOf(p) {
		return g.why
	}
	return ""
}

// end closes s and takes it out of the table; why, when not "", is remembered for whyGone.
func (t *sessionTable) end(s *session, why string) {
	t.mu.Lock()
	if s.ended {
		t.mu.Unlock()
		return
	}
	s.ended = true
	delete(t.byID, s.id)
	if why != "" {
		t.gone[s.id] = goneSession{key: s.key, why: why}
		t.goneOrder = append(t.goneOrder, s.id)
		if len(t.goneOrder) > t.total {
			delete(t.gone, t.goneOrder[0])
			t.goneOrder = t.goneOrder[1:]
		}
	}
	ss := s.session
	t.mu.Unlock()
	if ss != nil {
		ss.Close()
	}
}

// sweep ends the sessions idle longer than the table's idle time.
func (t *sessionTable) sweep() {
	t.mu.Lock()
	var idle []*session
	for _, s := range t.byID {
		if s.inUse == 0 && t.now().Sub(s.lastUsed) > t.idle {
			idle = append(idle, s)
		}
	}
	t.mu.Unlock()
	for _, s := range idle {
		t.end(s, fmt.Sprintf("it ended after %s without use", t.idle))
	}
}

// closeAll ends every session (shutdown).
func (t *sessionTable) closeAll() {
	t.mu.Lock()
	all := make([]*session, 0, len(t.byID))
	for _, s := range t.byID {
		all = append(all, s)
	}
	t.mu.Unlock()
	for _, s := range all {
		t.end(s, "")
	}
}

// count is how many sessions the table holds.
func (t *sessionTable) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

// engineBackend is the tools' backend at /mcp: the engine, as the request's principal; its
// answer links point at base.
type engineBackend struct {
	engine *engine.Engine
	p      *hitl.Principal
	base   string
}

func (b engineBackend) CreateInquiry(ctx context.Context, req *hitl.InquiryRequest, idempotencyKey string) (*hitl.Inquiry, error) {
	inq, _, err := b.engine.CreateInquiry(ctx, b.p, req, idempotencyKey)
	return inq, err
}

func (b engineBackend) Wait(ctx context.Context, id int64, timeout time.Duration) (*hitl.Inquiry, error) {
	return b.engine.Wait(ctx, b.p, id, timeout)
}

func (b engineBackend) Pending(ctx context.Context, limit int) ([]*hitl.Inquiry, error) {
	inqs, _, err := b.engine.Inquiries(ctx, b.p, hitl.InquiryFilter{Status: hitl.StatusPending, Page: hitl.Page{Limit: limit}})
	return inqs, err
}

func (b engineBackend) Respond(ctx context.Context, id int64, response json.RawMessage, comment string) (*hitl.Inquiry, error) {
	return b.engine.Respond(ctx, b.p, id, &hitl.ResponseRequest{Response: response, Comment: comment})
}

func (b engineBackend) Decline(ctx context.Context, id int64, reason string) (*hitl.Inquiry, error) {
	return b.engine.Decline(ctx, b.p, id, reason)
}

func (b engineBackend) Cancel(ctx context.Context, id int64, reason string) (*hitl.Inquiry, error) {
	return b.engine.Cancel(ctx, b.p, id, reason)
}

func (b engineBackend) Name() string { return b.p.Name }

func (b engineBackend) Asked(ctx context.Context, match map[string]string, page hitl.Page) ([]*hitl.Inquiry, string, error) {
	return b.engine.Inquiries(ctx, b.p, hitl.InquiryFilter{CreatedBy: b.p.Name, Metadata: match, Page: page})
}

func (b engineBackend) MayAnswerInClient(inq *hitl.Inquiry) error {
	return engine.MayAnswerInClient(b.p, inq)
}

func (b engineBackend) AnswerLink(ctx context.Context, id int64) (string, error) {
	link, err := b.engine.CreateAnswerLink(ctx, b.p, id, OwnLink(b.p))
	if err != nil {
		return "", err
	}
	return b.base + "/a/" + link.Token, nil
}
