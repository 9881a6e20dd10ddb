package slack_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/slack"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/slackpeer"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// These tests talk to a local Slack (internal/slackpeer): its Web API, and its side of
// interactivity, which posts signed, form-encoded payloads.

const (
	botToken      = slackpeer.BotToken
	signingSecret = slackpeer.SigningSecret
)

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
	peer     *slackpeer.Peer
	client   *slack.Client
	handlers *httptest.Server
}

func newWorld(t *testing.T) *world {
	s := testserver.Start(t)
	peer := slackpeer.New(t)
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

// send posts a form-encoded body to one of the endpoints; headers override the signature.
func (w *world) send(path, body string, headers map[string]string) (int, string) {
	w.t.Helper()
	return slackpeer.Post(w.t, w.handlers.URL+path, body, headers)
}

// interact posts an interaction payload as Slack does: form-encoded payload=JSON, signed.
func (w *world) interact(payload map[string]any) (int, string) {
	w.t.Helper()
	return w.send("/slack/interactions", slackpeer.PayloadBody(w.t, payload), nil)
}

// slash runs /hitl as the Slack user and returns the reply, decoded.
func (w *world) slash(user string) map[string]any {
	w.t.Helper()
	body := url.Values{"command": {"/hitl"}, "text": {""}, "user_id": {user}, "channel_id": {"C0OPS"},
		"team_id": {"T0001"}, "response_url": {"https://hooks.slack.com/commands/1/2/3"}, "trigger_id": {"1.2.3"}}.Encode()
	status, out := w.send("/slack/commands", body, nil)
	if status != http.StatusOK {
		w.t.Fatalf("/hitl: %d %s", status, out)
	}
	var msg map[string]any
	if err := json.Unmarshal([]byte(out), &msg); err != nil {
		w.t.Fatalf("/hitl answered %q", out)
	}
	return msg
}

// click is the block_actions payload of a click on the button of a message in a channel.
func click(user string, ref slack.Ref, btn map[string]any) map[string]any {
	return slackpeer.Click(user, ref.Channel, ref.TS, btn)
}

var (
	sign      = slackpeer.Sign
	button    = slackpeer.Button
	texts     = slackpeer.Texts
	actionIDs = slackpeer.ActionIDs
)
