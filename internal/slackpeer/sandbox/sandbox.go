package main

import (
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/hitl-dev/hitl/internal/slackpeer"
)

// sandbox shows the messages hitl posted to the peer and clicks their buttons for the user.
type sandbox struct {
	peer    *slackpeer.Peer
	hitlURL string
	user    string
	client  *http.Client

	mu   sync.Mutex
	last string // what the last click did, shown once on the page
}

func newSandbox(peer *slackpeer.Peer, hitlURL, user string) *sandbox {
	return &sandbox{peer: peer, hitlURL: strings.TrimSuffix(hitlURL, "/"), user: user, client: &http.Client{}}
}

func (s *sandbox) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/api/", s.peer.Handler())
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("POST /click", s.click)
	return mux
}

// message is a message as it stands now: the last post or update at its channel and ts.
type message struct {
	Channel, TS, Text string
	Blocks            []map[string]any
	Buttons           []button
}

// button is one of a message's buttons: one that links (URL) opens its page, as in Slack;
// the others are clicked.
type button struct {
	Text  string
	Index int
	URL   string
}

// messages are the messages hitl posted, newest first, each as its last update left it.
func (s *sandbox) messages() []message {
	var order []string
	latest := map[string]message{}
	for _, c := range s.peer.Calls("chat.postMessage", "chat.update") {
		if c.TS == "" {
			continue // refused
		}
		var blocks []map[string]any
		json.Unmarshal([]byte(c.Form.Get("blocks")), &blocks) // the peer accepted them: JSON
		key := c.Channel + " " + c.TS
		if _, seen := latest[key]; !seen {
			order = append(order, key)
		}
		// The buttons are shown as buttons below the text, so their labels are not text too.
		var shown []map[string]any
		for _, b := range blocks {
			if b["type"] != "actions" {
				shown = append(shown, b)
			}
		}
		m := message{Channel: c.Channel, TS: c.TS, Text: slackpeer.Texts(shown), Blocks: blocks}
		if m.Text == "" {
			m.Text = c.Form.Get("text")
		}
		for i, b := range slackpeer.Buttons(blocks) {
			link, _ := b["url"].(string)
			m.Buttons = append(m.Buttons, button{Text: slackpeer.ButtonText(b), Index: i, URL: link})
		}
		latest[key] = m
	}
	out := make([]message, 0, len(order))
	for i := len(order) - 1; i >= 0; i-- {
		out = append(out, latest[order[i]])
	}
	return out
}

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Slack sandbox</title>
<style>body{font:15px/1.4 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}
.msg{border:1px solid #ccc;border-radius:6px;padding:.75rem;margin:.75rem 0;white-space:pre-wrap}
.meta{color:#666;font-size:13px}.last{background:#eef;padding:.5rem;border-radius:6px}</style></head>
<body><h1>Slack sandbox</h1>
<p>Messages hitl posted, newest first; a click is sent to {{.HitlURL}} as Slack user {{.User}}. Reload to see new ones.</p>
{{with .Last}}<p class="last" id="last">{{.}}</p>{{end}}
{{range .Messages}}<div class="msg"><div class="meta">{{.Channel}} · {{.TS}}</div>{{.Text}}
{{$m := .}}{{range .Buttons}}{{if .URL}}<a href="{{.URL}}">{{.Text}}</a> {{else}}<form method="post" action="/click" style="display:inline">
<input type="hidden" name="channel" value="{{$m.Channel}}"><input type="hidden" name="ts" value="{{$m.TS}}">
<input type="hidden" name="button" value="{{.Index}}"><button>{{.Text}}</button></form> {{end}}{{end}}</div>
{{else}}<p>No messages yet. Ask someone mapped to {{.User}} a question.</p>{{end}}
</body></html>`))

func (s *sandbox) page(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	last := s.last
	s.last = ""
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	pageTemplate.Execute(w, map[string]any{"HitlURL": s.hitlURL, "User": s.user, "Messages": s.messages(), "Last": last})
}

// click sends the click on a message's button to hitl, as Slack would, and goes back to the page.
func (s *sandbox) click(w http.ResponseWriter, r *http.Request) {
	channel, ts := r.FormValue("channel"), r.FormValue("ts")
	index, _ := strconv.Atoi(r.FormValue("button"))
	var btn map[string]any
	for _, m := range s.messages() {
		if m.Channel == channel && m.TS == ts {
			if buttons := slackpeer.Buttons(m.Blocks); index >= 0 && index < len(buttons) {
				btn = buttons[index]
			}
		}
	}
	if btn == nil {
		http.Error(w, "no such button: reload the page", http.StatusNotFound)
		return
	}
	result := "hitl took the click on " + slackpeer.ButtonText(btn)
	forms := len(s.peer.Calls("views.open"))
	body, err := slackpeer.EncodePayload(slackpeer.Click(s.user, channel, ts, btn))
	if err == nil {
		var status int
		var answer string
		status, answer, err = slackpeer.Send(s.client, s.hitlURL+"/slack/interactions", slackpeer.SigningSecret, body, nil)
		if err == nil && status != http.StatusOK {
			result = "hitl answered the click on " + slackpeer.ButtonText(btn) + " with " + strconv.Itoa(status) + ": " + answer
		}
		if err == nil && len(s.peer.Calls("views.open")) > forms {
			result += " (a button that opens a form in Slack opens none here)"
		}
	}
	if err != nil {
		result = "the click could not reach hitl at " + s.hitlURL + ": " + err.Error()
	}
	s.mu.Lock()
	s.last = result
	s.mu.Unlock()
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
