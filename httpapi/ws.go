package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/strictjson"
	"github.com/hitl-dev/hitl/protocol/nova"
)

// The WebSocket protocol of GET /v1/ws (the Attune seed's shape).
//
// Client → server:
//
//	{"type": "subscribe", "id": "optional name", "filters": {"entity_type": "inquiry",
//	  "user_id": "alice", "session": "...", "inquiry_id": 42, "after": 0}}
//	  (user_id: a principal's name, or its integer identity as Attune sends it: 5)
//	{"type": "unsubscribe", "id": "the name"}   (no id: every subscription)
//
// Server → client: one message per event,
//
//	{"id": SEQ, "subscription": "name", "entity_type": "inquiry", "entity": "42",
//	 "activity": "created", "content": {...the inquiry...}}
//
// and {"type": "subscribed"|"unsubscribed"|"reset"|"error", "subscription": ..., ...}.
type wsRequest struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	// Protocol "nova" makes the subscription send Nova's messages (user_prompt,
	// interaction_update, task_error: see nova.Messages) instead of events.
	Protocol string `json:"protocol"`
	Filters  struct {
		EntityType string          `json:"entity_type"`
		UserID     json.RawMessage `json:"user_id"`
		Session    string          `json:"session"`
		InquiryID  int64           `json:"inquiry_id"`
		After      *int64          `json:"after"`
	} `json:"filters"`
}

type wsEvent struct {
	ID           int64           `json:"id"`
	Subscription string          `json:"subscription"`
	EntityType   string          `json:"entity_type"`
	Entity       string          `json:"entity"`
	Activity     string          `json:"activity"`
	Content      json.RawMessage `json:"content"`
}

type wsNotice struct {
	Type         string `json:"type"`
	Subscription string `json:"subscription,omitempty"`
	ResumeAfter  *int64 `json:"resume_after,omitempty"`
	// Reason is "unknown_position" on the reset of a subscription whose after the log does
	// not know (engine.UnknownPosition); a reset without one fell behind.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// wsPing is how often the server pings; a client that does not answer is disconnected.
const wsPing = 20 * time.Second

// wsMaxMessage bounds what a client may send in one message.
const wsMaxMessage = 64 << 10

// entityTypes maps the seed's entity types to event type prefixes.
var entityTypes = map[string]string{"inquiry": "inquiry.", "session": "session.", "key": "key.", "webhook": "webhook."}

// wsSubprotocol is the subprotocol a browser may offer beside its hitl.bearer.TOKEN, so that
// the server's answer names it rather than echoing the token.
const wsSubprotocol = "hitl"

// bearerPrefix marks the subprotocol that carries a token.
const bearerPrefix = "hitl.bearer."

// bearerSubprotocol returns the token a client offers as the subprotocol hitl.bearer.TOKEN,
// and that subprotocol as offered.
func bearerSubprotocol(r *http.Request) (tok, offered string) {
	for _, line := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, sp := range strings.Split(line, ",") {
			sp = strings.TrimSpace(sp)
			if len(sp) > len(bearerPrefix) && strings.EqualFold(sp[:len(bearerPrefix)], bearerPrefix) {
				return sp[len(bearerPrefix):], sp
			}
		}
	}
	return "", ""
}

// wsOriginAllowed: the request comes from a page of this server, by its Origin: the host the
// request was sent to, or the public URL's.
func (s *Server) wsOriginAllowed(r *http.Request) bool {
	origin, err := url.Parse(r.Header.Get("Origin"))
	if err != nil || origin.Host == "" {
		return false
	}
	if strings.EqualFold(origin.Host, r.Host) {
		return true
	}
	public, err := url.Parse(s.cfg.PublicURL)
	return err == nil && public.Host != "" && strings.EqualFold(origin.Host, public.Host) && origin.Scheme == public.Scheme
}

// ws serves GET /v1/ws: several event subscriptions over one WebSocket, each with the
// replay-then-live behaviour of the SSE stream.
func (s *Server) ws(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	opts := &websocket.AcceptOptions{Subprotocols: []string{wsSubprotocol}}
	switch {
	case p.InboxSession != "":
		// A cookie goes with every request the browser makes, whichever site asks for it:
		// only the inbox's own pages may use it.
		if !s.wsOriginAllowed(r) {
			return hitl.Errorf(hitl.EForbidden, "the inbox's sign-in opens a WebSocket only from this server's own pages (Origin %q); other sites send a token", r.Header.Get("Origin"))
		}
		opts.InsecureSkipVerify = true // checked just above, the public URL included
	default:
		// A token is no ambient credential: a page on any site that holds one may use it.
		opts.InsecureSkipVerify = true
		if _, offered := bearerSubprotocol(r); offered != "" {
			opts.Subprotocols = append(opts.Subprotocols, offered)
		}
	}
	c, err := websocket.Accept(w, r, opts)
	if err != nil {
		return nil // Accept has answered the request
	}
	defer c.CloseNow()
	c.SetReadLimit(wsMaxMessage)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sess := &wsSession{ctx: ctx, cancel: cancel, engine: s.engine, p: p, out: make(chan any, 64), subs: map[string]*wsSub{}}
	go sess.write(c)
	defer sess.closeAll()
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return nil // the client went away, or the session ended
		}
		sess.handle(data)
	}
}

// wsSession is one socket's subscriptions.
type wsSession struct {
	ctx    context.Context
	cancel context.CancelFunc
	engine *engine.Engine
	p      *hitl.Principal
	out    chan any
	mu     sync.Mutex
	subs   map[string]*wsSub
	named  int
}

type wsSub struct {
	sub     *engine.Subscription
	leaving bool // ended by the client's unsubscribe
	nova    bool // sends Nova's messages
}

func (ws *wsSession) send(m any) {
	select {
	case ws.out <- m:
	case <-ws.ctx.Done():
	}
}

func (ws *wsSession) fail(format string, args ...any) {
	ws.send(wsNotice{Type: "error", Message: fmt.Sprintf(format, args...)})
}

// write sends queued messages, pings the client, and ends the socket with the session.
func (ws *wsSession) write(c *websocket.Conn) {
	ping := time.NewTicker(wsPing)
	defer ping.Stop()
	for {
		select {
		case m := <-ws.out:
			data, err := wsEncode(m)
			if err == nil {
				wctx, cancel := context.WithTimeout(ws.ctx, 10*time.Second)
				err = c.Write(wctx, websocket.MessageText, data)
				cancel()
			}
			if err != nil {
				ws.cancel()
				return
			}
		case <-ping.C:
			pctx, cancel := context.WithTimeout(ws.ctx, 10*time.Second)
			err := c.Ping(pctx)
			cancel()
			if err != nil {
				ws.cancel()
				return
			}
		case <-ws.engine.Draining():
			c.Close(websocket.StatusGoingAway, "the server is shutting down")
			ws.cancel()
			return
		case <-ws.ctx.Done():
			return
		}
	}
}

// wsFrame is a message encoded already.
type wsFrame []byte

func wsEncode(m any) ([]byte, error) {
	if f, ok := m.(wsFrame); ok {
		return f, nil
	}
	return json.Marshal(m)
}

// eventFrame is the message of an event: its content is the data the hub encoded once for
// every subscriber, the rest (which names the subscription) is encoded here. The bytes are
// those json.Marshal writes for the wsEvent.
func eventFrame(id string, ev *engine.StreamEvent) (wsFrame, error) {
	data, err := ev.DataJSON()
	if err != nil {
		return nil, err
	}
	head, err := json.Marshal(wsEvent{ID: ev.Seq, Subscription: id, EntityType: entityOf(ev.Event), Entity: entityID(ev.Event), Activity: activityOf(ev.Event)})
	if err != nil {
		return nil, err
	}
	// Content is the last field: head ends in "null}", where the content goes.
	head = head[:len(head)-len("null}")]
	return append(append(append(make(wsFrame, 0, len(head)+len(data)+1), head...), data...), '}'), nil
}

func (ws *wsSession) handle(data []byte) {
	var req wsRequest
	if err := strictjson.Unmarshal(data, &req); err != nil {
		ws.fail("malformed message: %v", err)
		return
	}
	switch req.Type {
	case "subscribe":
		ws.subscribe(req)
	case "unsubscribe":
		ws.unsubscribe(req.ID)
	default:
		ws.fail("unknown message type %q: send subscribe or unsubscribe", req.Type)
	}
}

// userEntry reads a subscription's user_id, a name or an integer identity, as the assignee
// entry the filter matches ("" when there is none). An identity nobody holds is kept as its
// entry, which no assignee is, as a name nobody holds matches nobody's inquiries.
func (ws *wsSession) userEntry(raw json.RawMessage) (string, error) {
	if hitl.IsNull(raw) {
		return "", nil
	}
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		return name, nil
	}
	var id int64
	if err := json.Unmarshal(raw, &id); err != nil {
		return "", hitl.Errorf(hitl.EInvalid, "user_id must be a principal's name or its integer identity")
	}
	name, err := ws.engine.IdentityName(ws.ctx, id)
	if hitl.ErrorCode(err) == hitl.ENotFound {
		return hitl.IdentityEntry(id), nil
	}
	return name, err
}

func (ws *wsSession) subscribe(req wsRequest) {
	f := engine.StreamFilter{Session: req.Filters.Session, InquiryID: req.Filters.InquiryID}
	asNova := req.Protocol == "nova"
	if req.Protocol != "" && !asNova {
		ws.fail("protocol must be nova, or left out for hitl's events")
		return
	}
	if asNova {
		f.Types = nova.EventTypes
	} else if et := req.Filters.EntityType; et != "" {
		prefix, ok := entityTypes[et]
		if !ok {
			ws.fail("entity_type must be inquiry, session, key or webhook")
			return
		}
		for _, t := range allEventTypes {
			if strings.HasPrefix(t, prefix) {
				f.Types = append(f.Types, t)
			}
		}
	}
	u, err := ws.userEntry(req.Filters.UserID)
	if err != nil {
		ws.fail("%s", hitl.ErrorMessage(err))
		return
	}
	if u != "" {
		f.AnswerableBy = []string{u}
		if u == ws.p.Name {
			f.AnswerableBy = ws.p.Entries()
		}
	}
	after := int64(engine.FromNow)
	if req.Filters.After != nil {
		after = *req.Filters.After
	}
	ws.mu.Lock()
	id := req.ID
	if id == "" {
		ws.named++
		id = strconv.Itoa(ws.named)
	}
	_, taken := ws.subs[id]
	ws.mu.Unlock()
	if taken {
		ws.fail("subscription %q exists already", id)
		return
	}
	sub, err := ws.engine.Subscribe(ws.ctx, ws.p, f, after)
	var unknown *engine.UnknownPosition
	if errors.As(err, &unknown) {
		ws.send(wsNotice{Type: "reset", Subscription: id, ResumeAfter: &unknown.ResumeAfter, Reason: "unknown_position"})
		return
	}
	if err != nil {
		ws.fail("%s", hitl.ErrorMessage(err))
		return
	}
	s := &wsSub{sub: sub, nova: asNova}
	ws.mu.Lock()
	ws.subs[id] = s
	ws.mu.Unlock()
	resume := sub.After
	ws.send(wsNotice{Type: "subscribed", Subscription: id, ResumeAfter: &resume})
	go ws.forward(id, s)
}

// forward sends a subscription's events until it ends: by the client's unsubscribe, by
// falling behind (reset), or because its token was revoked (the socket then closes).
func (ws *wsSession) forward(id string, s *wsSub) {
	for ev := range s.sub.Events {
		if s.nova {
			for _, m := range nova.Messages(ev.Event) {
				ws.send(m)
			}
			continue
		}
		f, err := eventFrame(id, ev)
		if err != nil {
			ws.cancel() // as when any message cannot be encoded: the socket ends
			break
		}
		ws.send(f)
	}
	ws.mu.Lock()
	leaving := s.leaving
	delete(ws.subs, id)
	ws.mu.Unlock()
	if resume, reset := s.sub.Reset(); reset {
		ws.send(wsNotice{Type: "reset", Subscription: id, ResumeAfter: &resume})
		return
	}
	if !leaving && ws.ctx.Err() == nil {
		ws.cancel() // ended by the server (a revoked token): the socket goes too
	}
}

func (ws *wsSession) unsubscribe(id string) {
	ws.mu.Lock()
	var ended []string
	for name, s := range ws.subs {
		if id == "" || name == id {
			s.leaving = true
			s.sub.Close()
			ended = append(ended, name)
		}
	}
	ws.mu.Unlock()
	if len(ended) == 0 {
		ws.fail("no subscription %q", id)
		return
	}
	for _, name := range ended {
		ws.send(wsNotice{Type: "unsubscribed", Subscription: name})
	}
}

func (ws *wsSession) closeAll() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, s := range ws.subs {
		s.leaving = true
		s.sub.Close()
	}
}

var allEventTypes = []string{hitl.EventInquiryCreated, hitl.EventInquiryResponded, hitl.EventInquiryTimeout, hitl.EventInquiryCancelled,
	hitl.EventInquiryReminded, hitl.EventInquiryEscalated, hitl.EventInquiryResumed,
	hitl.EventInquiryVoted, hitl.EventInquiryStepCompleted, hitl.EventInquiryClaimed, hitl.EventInquiryReleased, hitl.EventInquiryAssigned,
	hitl.EventInquiryPromoted, hitl.EventInquiryRejoined,
	hitl.EventSessionUpdated, hitl.EventSessionCompleted, hitl.EventSessionFailed, hitl.EventSessionCancelled, hitl.EventSessionLogged,
	hitl.EventKeyCreated, hitl.EventKeyUpdated, hitl.EventKeyRevoked}

func entityOf(ev *hitl.Event) string {
	kind, _, _ := strings.Cut(ev.Type, ".")
	return kind
}

func activityOf(ev *hitl.Event) string {
	_, act, _ := strings.Cut(ev.Type, ".")
	return act
}

func entityID(ev *hitl.Event) string {
	switch {
	case ev.InquiryID != nil:
		return strconv.FormatInt(*ev.InquiryID, 10)
	case ev.Session != "":
		return ev.Session
	}
	var k struct {
		ID string `json:"id"`
	}
	json.Unmarshal(ev.Data, &k)
	return k.ID
}
