package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

type wsMsg struct {
	Type         string          `json:"type"`
	ID           int64           `json:"id"`
	Subscription string          `json:"subscription"`
	EntityType   string          `json:"entity_type"`
	Entity       string          `json:"entity"`
	Activity     string          `json:"activity"`
	Content      json.RawMessage `json:"content"`
	ResumeAfter  *int64          `json:"resume_after"`
	Reason       string          `json:"reason"`
	Message      string          `json:"message"`
}

func dialWS(t *testing.T, e *env, token string) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.URL, "http")+"/v1/ws",
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	must(t, err)
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func wsSend(t *testing.T, c *websocket.Conn, msg string) {
	t.Helper()
	must(t, c.Write(ctx, websocket.MessageText, []byte(msg)))
}

func wsRead(t *testing.T, c *websocket.Conn) wsMsg {
	t.Helper()
	return wsReadAs[wsMsg](t, c)
}

// wsReadAs reads the next message as a T, waiting at most 10 s.
func wsReadAs[T any](t *testing.T, c *websocket.Conn) T {
	t.Helper()
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, data, err := c.Read(rctx)
	must(t, err)
	var m T
	must(t, json.Unmarshal(data, &m))
	return m
}

func TestWebSocketSubscriptions(t *testing.T) {
	e := newEnv(t)
	agentTok := e.token("bot", "agent")
	agent := clientFor(e, agentTok)
	first := ask(t, agent, hitl.InquiryRequest{Prompt: "before"})

	c := dialWS(t, e, agentTok)
	wsSend(t, c, `{"type":"subscribe","id":"all","filters":{"entity_type":"inquiry","after":0}}`)
	if m := wsRead(t, c); m.Type != "subscribed" || m.Subscription != "all" {
		t.Fatalf("subscribe answer: %+v", m)
	}
	if m := wsRead(t, c); m.Entity != itoa(first.ID) || m.Activity != "created" || m.EntityType != "inquiry" || m.Subscription != "all" {
		t.Fatalf("replayed event: %+v", m)
	}
	// A second subscription on the same socket, only for one session, from now.
	wsSend(t, c, `{"type":"subscribe","id":"run-7","filters":{"session":"run-7"}}`)
	if m := wsRead(t, c); m.Type != "subscribed" || m.Subscription != "run-7" {
		t.Fatalf("second subscribe: %+v", m)
	}
	inRun := ask(t, agent, hitl.InquiryRequest{Prompt: "in run 7", Session: "run-7"})
	got := map[string]int{}
	for range 3 { // session.updated and inquiry.created for run-7; inquiry.created for "all"
		m := wsRead(t, c)
		got[m.Subscription+" "+m.EntityType+"."+m.Activity]++
		if m.EntityType == "inquiry" {
			var inq hitl.Inquiry
			must(t, json.Unmarshal(m.Content, &inq))
			if inq.ID != inRun.ID {
				t.Fatalf("event about inquiry %d", inq.ID)
			}
		}
	}
	if got["all inquiry.created"] != 1 || got["run-7 inquiry.created"] != 1 || got["run-7 session.updated"] != 1 {
		t.Fatalf("live events: %v", got)
	}
	wsSend(t, c, `{"type":"unsubscribe","id":"run-7"}`)
	if m := wsRead(t, c); m.Type != "unsubscribed" || m.Subscription != "run-7" {
		t.Fatalf("unsubscribe answer: %+v", m)
	}
	wsSend(t, c, `{"type":"subscribe","bogus":1}`)
	if m := wsRead(t, c); m.Type != "error" || !strings.Contains(m.Message, "bogus") {
		t.Fatalf("bad message answer: %+v", m)
	}
	wsSend(t, c, `{"type":"dance"}`)
	if m := wsRead(t, c); m.Type != "error" {
		t.Fatalf("unknown type answer: %+v", m)
	}
	// Still working after the bad messages: the remaining subscription gets the next event.
	last := ask(t, agent, hitl.InquiryRequest{Prompt: "after"})
	if m := wsRead(t, c); m.Subscription != "all" || m.Entity != itoa(last.ID) {
		t.Fatalf("after unsubscribe: %+v", m)
	}
}

// A subscription after a seq beyond the log's newest event (a seq from another server, or from
// after the backup a restored database came from) is reset at once, to the newest event, with
// the reason; the socket stays open for the subscription that follows.
func TestWebSocketUnknownPositionIsReset(t *testing.T) {
	e := newEnv(t)
	agentTok := e.token("bot", "agent")
	ask(t, clientFor(e, agentTok), hitl.InquiryRequest{Prompt: "one"})
	page, err := e.Admin.EventPage(ctx, client.EventOptions{Limit: 500})
	must(t, err)
	head := page.Data[len(page.Data)-1].Seq
	c := dialWS(t, e, e.AdminToken)
	wsSend(t, c, `{"type":"subscribe","id":"old","filters":{"after":`+itoa(head+1000)+`}}`)
	if m := wsRead(t, c); m.Type != "reset" || m.Subscription != "old" || m.ResumeAfter == nil || *m.ResumeAfter != head || m.Reason != "unknown_position" {
		t.Fatalf("subscribing after seq %d, beyond the newest, %d: %+v; want a reset to resume after it", head+1000, head, m)
	}
	wsSend(t, c, `{"type":"subscribe","id":"old","filters":{"after":`+itoa(head)+`}}`)
	if m := wsRead(t, c); m.Type != "subscribed" || m.Subscription != "old" {
		t.Fatalf("subscribing again where the reset said: %+v", m)
	}
}

func TestWebSocketUserIDFilterAndVisibility(t *testing.T) {
	e := newEnv(t)
	agent := clientFor(e, e.token("bot", "agent"))
	aliceTok := e.token("alice", "responder")
	c := dialWS(t, e, aliceTok)
	wsSend(t, c, `{"type":"subscribe","filters":{"entity_type":"inquiry","user_id":"alice"}}`)
	if m := wsRead(t, c); m.Type != "subscribed" {
		t.Fatalf("%+v", m)
	}
	forAlice, open := askBobAliceAnyone(t, agent)
	wantEntities(t, c, "alice", forAlice.ID, open.ID)
	if r := e.do("GET", "/v1/ws", "", ""); r.status != 401 {
		t.Fatalf("a socket without a token: %d", r.status)
	}
}

// Attune's subscribe names the user by integer identity (issue 27, 13b): user_id 5 filters as
// the name that holds identity 5 does; an identity nobody holds as a name nobody holds does.
func TestWebSocketUserIDByIntegerIdentity(t *testing.T) {
	e := newEnv(t)
	agent := clientFor(e, e.token("bot", "agent"))
	aliceTok := e.token("alice", "responder")
	subscribed := func(token, userID string) *websocket.Conn {
		t.Helper()
		c := dialWS(t, e, token)
		wsSend(t, c, `{"type":"subscribe","filters":{"entity_type":"inquiry","user_id":`+userID+`}}`)
		if m := wsRead(t, c); m.Type != "subscribed" {
			t.Fatalf("user_id %s: %+v", userID, m)
		}
		return c
	}
	alice := subscribed(aliceTok, itoa(e.identityOf(aliceTok)))
	unknownName := subscribed(e.AdminToken, `"nobody"`)
	unknownID := subscribed(e.AdminToken, "987654")
	forAlice, open := askBobAliceAnyone(t, agent)
	wantEntities(t, alice, "alice, by identity,", forAlice.ID, open.ID)
	wantEntities(t, unknownName, "a user nobody is", open.ID)
	wantEntities(t, unknownID, "an identity nobody holds", open.ID)
	for _, bad := range []string{"true", "1.5", `["alice"]`} {
		wsSend(t, unknownID, `{"type":"subscribe","filters":{"user_id":`+bad+`}}`)
		if m := wsRead(t, unknownID); m.Type != "error" || !strings.Contains(m.Message, "user_id must be a principal's name or its integer identity") {
			t.Fatalf("user_id %s: %+v", bad, m)
		}
	}
}

// askBobAliceAnyone asks, in this order, an inquiry assigned to bob, one to alice and one to
// anyone, and returns the last two.
func askBobAliceAnyone(t *testing.T, agent *client.Client) (forAlice, open *hitl.Inquiry) {
	t.Helper()
	ask(t, agent, hitl.InquiryRequest{Prompt: "for bob", AssignedTo: []string{"bob"}})
	forAlice = ask(t, agent, hitl.InquiryRequest{Prompt: "for alice", AssignedTo: []string{"alice"}})
	return forAlice, ask(t, agent, hitl.InquiryRequest{Prompt: "for anyone"})
}

// wantEntities reads the socket's next events and checks that they are of these inquiries, in
// this order.
func wantEntities(t *testing.T, c *websocket.Conn, who string, ids ...int64) {
	t.Helper()
	for _, want := range ids {
		if m := wsRead(t, c); m.Entity != itoa(want) {
			t.Fatalf("%s received inquiry %s, want %d", who, m.Entity, want)
		}
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestWebSocketClosesWhenItsTokenIsRevoked(t *testing.T) {
	e := newEnv(t)
	k, err := e.Admin.CreateKey(ctx, &hitl.KeyRequest{Name: "temp", Roles: []string{"agent"}})
	must(t, err)
	c := dialWS(t, e, k.Token)
	wsSend(t, c, `{"type":"subscribe","filters":{}}`)
	if m := wsRead(t, c); m.Type != "subscribed" {
		t.Fatalf("%+v", m)
	}
	must(t, e.Admin.RevokeKey(ctx, k.ID))
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		if _, _, err := c.Read(rctx); err != nil {
			if rctx.Err() != nil {
				t.Fatal("the socket of a revoked token stayed open")
			}
			return // closed by the server
		}
	}
}
