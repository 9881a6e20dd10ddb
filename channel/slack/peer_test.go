package slack_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/slack"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// The protocol peers of these tests: a local Slack Web API that records what hitl calls and
// answers as Slack does (form-encoded chat.* calls, JSON views.open), with failures scripted
// per method; and Slack's side of interactivity, which posts signed, form-encoded payloads.

const (
	botToken      = "xoxb-test-token"
	signingSecret = "8f742231b10e8888abcd99yyyzzz85a5"
)

// apiCall is one Web API call the peer received.
type apiCall struct {
	Method string
	Form   url.Values     // chat.* calls
	JSON   map[string]any // views.open
}

// Blocks are the call's blocks, decoded.
func (c apiCall) Blocks(t *testing.T) []map[string]any {
	t.Helper()
	var blocks []map[string]any
	if raw := c.Form.Get("blocks"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &blocks); err != nil {
			t.Fatalf("%s sent blocks that are not JSON: %v", c.Method, err)
		}
	}
	return blocks
}

// failure is a scripted answer: an HTTP status (with Retry-After for 429), or Slack's
// {"ok":false,"error":code}.
type failure struct {
	status     int
	retryAfter string
	code       string
}

type slackPeer struct {
	t   *testing.T
	srv *httptest.Server

	mu    sync.Mutex
	calls []apiCall
	fail  map[string][]failure
	ts    int
}

func newSlackPeer(t *testing.T) *slackPeer {
	p := &slackPeer{t: t, fail: map[string][]failure{}}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

// APIURL is the peer's Web API base URL.
func (p *slackPeer) APIURL() string { return p.srv.URL + "/api/" }

// failNext makes the next call of the method fail so.
func (p *slackPeer) failNext(method string, f failure) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fail[method] = append(p.fail[method], f)
}

// Calls are the calls of the method received so far.
func (p *slackPeer) Calls(method string) []apiCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []apiCall
	for _, c := range p.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

func (p *slackPeer) serve(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	call := apiCall{Method: method}
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &call.JSON); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
	} else {
		r.ParseForm()
		call.Form = r.PostForm
		if tok := r.PostForm.Get("token"); tok != "" {
			token = tok
		}
	}
	p.mu.Lock()
	p.calls = append(p.calls, call)
	var f *failure
	if q := p.fail[method]; len(q) > 0 {
		f, p.fail[method] = &q[0], q[1:]
	}
	p.ts++
	ts := fmt.Sprintf("1700000000.%06d", p.ts)
	p.mu.Unlock()

	reply := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	switch {
	case f != nil && f.status != 0:
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		http.Error(w, "<html>slack is having trouble</html>", f.status)
		return
	case f != nil:
		reply(map[string]any{"ok": false, "error": f.code})
		return
	case token != botToken:
		reply(map[string]any{"ok": false, "error": "invalid_auth"})
		return
	}
	switch method {
	case "chat.postMessage":
		channel := call.Form.Get("channel")
		if u, ok := strings.CutPrefix(channel, "U"); ok {
			channel = "D" + u // a message to a user lands in the app's DM with them
		}
		reply(map[string]any{"ok": true, "channel": channel, "ts": ts, "message": map[string]any{"ts": ts}})
	case "chat.update":
		reply(map[string]any{"ok": true, "channel": call.Form.Get("channel"), "ts": call.Form.Get("ts")})
	case "chat.postEphemeral":
		reply(map[string]any{"ok": true, "message_ts": ts})
	case "views.open":
		reply(map[string]any{"ok": true, "view": map[string]any{"id": "V0001"}})
	default:
		reply(map[string]any{"ok": false, "error": "unknown_method"})
	}
}

// people is the test's Engine: a real engine, and Slack ids mapped to principals as the
// people store will map them.
type people struct {
	*engine.Engine
	bySlack map[string]*hitl.Principal
}

func (p people) PrincipalBySlackUser(_ context.Context, id string) (*hitl.Principal, error) {
	if pr, ok := p.bySlack[id]; ok {
		return pr, nil
	}
	return nil, hitl.Errorf(hitl.ENotFound, "no person has the Slack id %s", id)
}

var (
	agent = &hitl.Principal{Name: "deploy-bot", Roles: []string{hitl.RoleAgent}}
	ada   = &hitl.Principal{Name: "ada", Roles: []string{hitl.RoleResponder}}
	bob   = &hitl.Principal{Name: "bob", Roles: []string{hitl.RoleResponder}, Groups: []string{"dev"}}
	root  = &hitl.Principal{Name: "root", Roles: []string{hitl.RoleAdmin}}
)

// world is one test's hitl server, Slack peer, client and the interaction endpoints.
type world struct {
	t        *testing.T
	server   *testserver.Server
	engine   *engine.Engine
	peer     *slackPeer
	client   *slack.Client
	handlers *httptest.Server
}

func newWorld(t *testing.T) *world {
	s := testserver.Start(t)
	peer := newSlackPeer(t)
	client, err := slack.New(slack.Config{
		BotToken: botToken, SigningSecret: signingSecret, APIURL: peer.APIURL(), PublicURL: "https://hitl.example.com",
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng := people{Engine: s.Engine(), bySlack: map[string]*hitl.Principal{"U0ADA": ada, "U0BOB": bob, "U0ROOT": root}}
	mux := http.NewServeMux()
	mux.Handle("POST /slack/interactions", slack.NewInteractionsHandler(signingSecret, eng, client))
	mux.Handle("POST /slack/commands", slack.NewCommandsHandler(signingSecret, eng, client))
	handlers := httptest.NewServer(mux)
	t.Cleanup(handlers.Close)
	return &world{t: t, server: s, engine: s.Engine(), peer: peer, client: client, handlers: handlers}
}

func (w *world) ask(req *hitl.InquiryRequest) *hitl.Inquiry {
	w.t.Helper()
	inq, _, err := w.engine.CreateInquiry(context.Background(), agent, req, "")
	if err != nil {
		w.t.Fatalf("creating the inquiry: %v", err)
	}
	return inq
}

func (w *world) inquiry(id int64) *hitl.Inquiry {
	w.t.Helper()
	inq, err := w.engine.Inquiry(context.Background(), &hitl.Principal{Name: "admin", Roles: []string{hitl.RoleAdmin}}, id)
	if err != nil {
		w.t.Fatal(err)
	}
	return inq
}

// post posts to the Slack peer and returns the message's ref and the blocks Slack received.
func (w *world) post(inq *hitl.Inquiry, to string) (slack.Ref, []map[string]any) {
	w.t.Helper()
	ref, err := w.client.Post(context.Background(), slack.Message{Inquiry: inq, To: to, Reason: slack.ReasonCreated})
	if err != nil {
		w.t.Fatalf("posting: %v", err)
	}
	calls := w.peer.Calls("chat.postMessage")
	return ref, calls[len(calls)-1].Blocks(w.t)
}

// sign signs a body as Slack does: v0= and the hex HMAC-SHA256 of "v0:timestamp:body".
func sign(secret string, ts time.Time, body string) (timestamp, signature string) {
	timestamp = strconv.FormatInt(ts.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:%s", timestamp, body)
	return timestamp, "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// send posts a form-encoded body to one of the endpoints; headers override the signature.
func (w *world) send(path, body string, headers map[string]string) (int, string) {
	w.t.Helper()
	req, err := http.NewRequest(http.MethodPost, w.handlers.URL+path, strings.NewReader(body))
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	ts, sig := sign(signingSecret, time.Now(), body)
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", sig)
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// interact posts an interaction payload as Slack does: form-encoded payload=JSON, signed.
func (w *world) interact(payload map[string]any) (int, string) {
	w.t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		w.t.Fatal(err)
	}
	return w.send("/slack/interactions", url.Values{"payload": {string(b)}}.Encode(), nil)
}

// button finds the button with the text among the blocks.
func button(t *testing.T, blocks []map[string]any, text string) map[string]any {
	t.Helper()
	for _, b := range blocks {
		elems, _ := b["elements"].([]any)
		for _, e := range elems {
			el, _ := e.(map[string]any)
			if el["type"] != "button" {
				continue
			}
			if label, _ := el["text"].(map[string]any); label["text"] == text {
				el["block_id"] = b["block_id"]
				return el
			}
		}
	}
	t.Fatalf("no button %q in %v", text, blocks)
	return nil
}

// click is the block_actions payload of a click on the button of a message in a channel.
func click(user string, ref slack.Ref, btn map[string]any) map[string]any {
	return map[string]any{
		"type":       "block_actions",
		"user":       map[string]any{"id": user, "username": strings.ToLower(user), "team_id": "T0001"},
		"api_app_id": "A0001",
		"token":      "legacy-verification-token",
		"team":       map[string]any{"id": "T0001", "domain": "example"},
		"container":  map[string]any{"type": "message", "message_ts": ref.TS, "channel_id": ref.Channel, "is_ephemeral": false},
		"channel":    map[string]any{"id": ref.Channel, "name": "directmessage"},
		"trigger_id": "13345224609.738474920.8088930838d88f008e0",
		"message":    map[string]any{"type": "message", "ts": ref.TS, "text": "[hitl] …"},
		"actions": []any{map[string]any{
			"type": "button", "action_id": btn["action_id"], "block_id": btn["block_id"], "value": btn["value"],
			"text": btn["text"], "action_ts": "1700000001.000001",
		}},
	}
}

// texts joins every text of the blocks, for looking for words in them.
func texts(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if s, ok := x["text"].(string); ok {
				b.WriteString(s + "\n")
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		case []map[string]any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	return b.String()
}

// actionIDs lists the action_ids of the blocks' buttons.
func actionIDs(blocks []map[string]any) []string {
	var out []string
	for _, b := range blocks {
		elems, _ := b["elements"].([]any)
		for _, e := range elems {
			if el, _ := e.(map[string]any); el["type"] == "button" {
				id, _ := el["action_id"].(string)
				out = append(out, id)
			}
		}
	}
	return out
}
