// Package slackpeer is the Slack of hitl's tests: a local Web API that records what hitl calls
// and answers as Slack does (form-encoded chat.* calls, JSON views.open), with failures
// scripted per method, refusing as Slack does a message or form beyond Block Kit's limits; and
// Slack's side of interactivity, which signs what it posts with the app's signing secret.
// The tests import it (channel/slack's, and the server's end-to-end tests), and the Slack
// sandbox (internal/slackpeer/sandbox) serves it to people trying Slack on their machine.
package slackpeer

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The credentials of the Slack app the peer stands for.
const (
	BotToken      = "xoxb-test-token"
	SigningSecret = "8f742231b10e8888abcd99yyyzzz85a5"
)

// Call is one Web API call the peer received.
type Call struct {
	Method string
	Form   url.Values     // chat.* calls
	JSON   map[string]any // views.open
	// Channel and TS are where a message the peer accepted was posted (chat.postMessage) or
	// updated (chat.update), as it answered them.
	Channel, TS string
}

// Blocks are the call's blocks, decoded.
func (c Call) Blocks(t testing.TB) []map[string]any {
	t.Helper()
	var blocks []map[string]any
	if raw := c.Form.Get("blocks"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &blocks); err != nil {
			t.Fatalf("%s sent blocks that are not JSON: %v", c.Method, err)
		}
	}
	return blocks
}

// Failure is a scripted answer: an HTTP status (with Retry-After, in seconds, for 429), or
// Slack's {"ok":false,"error":Code}.
type Failure struct {
	Status     int
	RetryAfter string
	Code       string
}

// Peer is a local Slack Web API.
type Peer struct {
	srv *httptest.Server // nil: served by its owner (Handler)

	mu    sync.Mutex
	calls []Call
	fail  map[string][]Failure
	ts    int
}

// New starts a peer, closed when the test ends.
func New(t testing.TB) *Peer {
	p := NewPeer()
	p.srv = httptest.NewServer(p.Handler())
	t.Cleanup(p.srv.Close)
	return p
}

// NewPeer is a peer its owner serves (Handler), at the path /api/.
func NewPeer() *Peer { return &Peer{fail: map[string][]Failure{}} }

// Handler is the peer's Web API: /api/METHOD.
func (p *Peer) Handler() http.Handler { return http.HandlerFunc(p.serve) }

// APIURL is the peer's Web API base URL.
func (p *Peer) APIURL() string { return p.srv.URL + "/api/" }

// FailNext makes the next call of the method fail so; several queue up.
func (p *Peer) FailNext(method string, f Failure) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fail[method] = append(p.fail[method], f)
}

// Calls are the calls of the methods received so far, failed ones included, in order.
func (p *Peer) Calls(methods ...string) []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Call
	for _, c := range p.calls {
		if slices.Contains(methods, c.Method) {
			out = append(out, c)
		}
	}
	return out
}

func (p *Peer) serve(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	call := Call{Method: method}
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
	at := len(p.calls) - 1
	var f *Failure
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
	case f != nil && f.Status != 0:
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		http.Error(w, "<html>slack is having trouble</html>", f.Status)
		return
	case f != nil:
		reply(map[string]any{"ok": false, "error": f.Code})
		return
	case token != BotToken:
		reply(map[string]any{"ok": false, "error": "invalid_auth"})
		return
	}
	if code, problems := call.refused(); len(problems) > 0 {
		reply(map[string]any{"ok": false, "error": code, "errors": problems,
			"response_metadata": map[string]any{"messages": problems}})
		return
	}
	posted := func(channel, ts string) {
		p.mu.Lock()
		p.calls[at].Channel, p.calls[at].TS = channel, ts
		p.mu.Unlock()
	}
	switch method {
	case "chat.postMessage":
		channel := call.Form.Get("channel")
		if u, ok := strings.CutPrefix(channel, "U"); ok {
			channel = "D" + u // a message to a user lands in the app's DM with them
		}
		posted(channel, ts)
		reply(map[string]any{"ok": true, "channel": channel, "ts": ts, "message": map[string]any{"ts": ts}})
	case "chat.update":
		posted(call.Form.Get("channel"), call.Form.Get("ts"))
		reply(map[string]any{"ok": true, "channel": call.Form.Get("channel"), "ts": call.Form.Get("ts")})
	case "chat.postEphemeral":
		reply(map[string]any{"ok": true, "message_ts": ts})
	case "views.open":
		reply(map[string]any{"ok": true, "view": map[string]any{"id": "V0001"}})
	default:
		reply(map[string]any{"ok": false, "error": "unknown_method"})
	}
}

// refused is what Slack would refuse in the call: a message or a form beyond Block Kit's
// limits (see MessageProblems), with the error code Slack answers it with.
func (c Call) refused() (code string, problems []string) {
	switch c.Method {
	case "chat.postMessage", "chat.update", "chat.postEphemeral":
		var blocks any
		if raw := c.Form.Get("blocks"); raw != "" {
			if err := json.Unmarshal([]byte(raw), &blocks); err != nil {
				return "invalid_blocks_format", []string{"/blocks: not JSON: " + err.Error()}
			}
		}
		return "invalid_blocks", MessageProblems(c.Form.Get("text"), blocks)
	case "views.open":
		return "invalid_arguments", ViewProblems(c.JSON["view"])
	}
	return "", nil
}

// Sign signs a body as Slack does: v0= and the hex HMAC-SHA256 of "v0:timestamp:body".
func Sign(secret string, ts time.Time, body string) (timestamp, signature string) {
	timestamp = strconv.FormatInt(ts.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:%s", timestamp, body)
	return timestamp, "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// Post posts a form-encoded body to url as Slack does, signed with SigningSecret now; headers
// override the signature's headers ("" removes one). It returns the status and the body.
func Post(t testing.TB, url, body string, headers map[string]string) (int, string) {
	t.Helper()
	status, answer, err := Send(http.DefaultClient, url, SigningSecret, body, headers)
	if err != nil {
		t.Fatal(err)
	}
	return status, answer
}

// Send posts a form-encoded body to url as Slack does, signed with secret now; headers
// override the signature's headers ("" removes one). It returns the status and the body.
func Send(client *http.Client, url, secret, body string, headers map[string]string) (int, string, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	ts, sig := Sign(secret, time.Now(), body)
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", sig)
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// PayloadBody is an interaction payload as Slack posts it: form-encoded payload=JSON.
func PayloadBody(t testing.TB, payload map[string]any) string {
	t.Helper()
	body, err := EncodePayload(payload)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// EncodePayload is an interaction payload as Slack posts it: form-encoded payload=JSON.
func EncodePayload(payload map[string]any) (string, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return "", err
	}
	return url.Values{"payload": {string(b)}}.Encode(), nil
}

// Buttons are the blocks' buttons, each with its block's block_id.
func Buttons(blocks []map[string]any) []map[string]any {
	var out []map[string]any
	for _, b := range blocks {
		elems, _ := b["elements"].([]any)
		for _, e := range elems {
			if el, _ := e.(map[string]any); el["type"] == "button" {
				el["block_id"] = b["block_id"]
				out = append(out, el)
			}
		}
	}
	return out
}

// ButtonText is the text a button shows.
func ButtonText(btn map[string]any) string {
	label, _ := btn["text"].(map[string]any)
	text, _ := label["text"].(string)
	return text
}

// Button finds the button with the text among the blocks, with its block's block_id.
func Button(t testing.TB, blocks []map[string]any, text string) map[string]any {
	t.Helper()
	for _, btn := range Buttons(blocks) {
		if ButtonText(btn) == text {
			return btn
		}
	}
	t.Fatalf("no button %q in %v", text, blocks)
	return nil
}

// Click is the block_actions payload of user's click on a button of the message at ts in
// channel.
func Click(user, channel, ts string, btn map[string]any) map[string]any {
	return map[string]any{
		"type":       "block_actions",
		"user":       map[string]any{"id": user, "username": strings.ToLower(user), "team_id": "T0001"},
		"api_app_id": "A0001",
		"token":      "legacy-verification-token",
		"team":       map[string]any{"id": "T0001", "domain": "example"},
		"container":  map[string]any{"type": "message", "message_ts": ts, "channel_id": channel, "is_ephemeral": false},
		"channel":    map[string]any{"id": channel, "name": "directmessage"},
		"trigger_id": "13345224609.738474920.8088930838d88f008e0",
		"message":    map[string]any{"type": "message", "ts": ts, "text": "[hitl] …"},
		"actions": []any{map[string]any{
			"type": "button", "action_id": btn["action_id"], "block_id": btn["block_id"], "value": btn["value"],
			"text": btn["text"], "action_ts": "1700000001.000001",
		}},
	}
}

// Texts joins every text of the blocks, for looking for words in them.
func Texts(v any) string {
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

// ActionIDs lists the action_ids of the blocks' buttons.
func ActionIDs(blocks []map[string]any) []string {
	var out []string
	for _, btn := range Buttons(blocks) {
		id, _ := btn["action_id"].(string)
		out = append(out, id)
	}
	return out
}
