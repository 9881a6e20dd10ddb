package server_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// next reads one event from a stream, failing after a while.
func next(t *testing.T, ch <-chan *hitl.Event) *hitl.Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event on the stream")
	}
	return nil
}

func TestStreamReplaysThenGoesLive(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	var asked []int64
	for range 5 {
		asked = append(asked, ask(t, agent, hitl.InquiryRequest{Prompt: "q"}).ID)
	}
	history, err := agent.EventPage(ctx, client.EventOptions{})
	must(t, err)
	if len(history.Data) != 5 {
		t.Fatalf("the agent sees %d events, want 5", len(history.Data))
	}
	from := history.Data[1].Seq // start in the middle of the history
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := agent.Events(sctx, client.StreamOptions{After: from})
	must(t, err)
	var seqs []int64
	for _, want := range history.Data[2:] {
		ev := next(t, stream)
		if ev.Seq != want.Seq || ev.Type != hitl.EventInquiryCreated {
			t.Fatalf("replayed %d %s, want %d", ev.Seq, ev.Type, want.Seq)
		}
		seqs = append(seqs, ev.Seq)
	}
	human := e.principal("ann", []string{"responder"})
	_, err = human.Respond(ctx, asked[0], json.RawMessage(`"yes"`), "")
	must(t, err)
	live := next(t, stream)
	if live.Type != hitl.EventInquiryResponded || *live.InquiryID != asked[0] || live.Seq <= seqs[len(seqs)-1] {
		t.Fatalf("live event: %d %s", live.Seq, live.Type)
	}
	// Nothing else came in between: the next event is that of the next change.
	after := ask(t, agent, hitl.InquiryRequest{Prompt: "after"})
	if ev := next(t, stream); *ev.InquiryID != after.ID || ev.Type != hitl.EventInquiryCreated {
		t.Fatalf("an unexpected event: %d %s", ev.Seq, ev.Type)
	}
}

func TestStreamShowsOnlyWhatThePrincipalMaySee(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	bob := e.principal("bob", []string{"responder"})
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := bob.Events(sctx, client.StreamOptions{})
	must(t, err)
	ask(t, agent, hitl.InquiryRequest{Prompt: "for alice", AssignedTo: []string{"alice"}})
	ask(t, agent, hitl.InquiryRequest{Prompt: "for sre", AssignedTo: []string{"group:sre"}})
	open := ask(t, agent, hitl.InquiryRequest{Prompt: "for anyone"})
	ev := next(t, stream)
	if *ev.InquiryID != open.ID {
		t.Fatalf("bob received an event about inquiry %d", *ev.InquiryID)
	}
	// Nothing else came in between: the next event bob gets is that of the next open inquiry.
	after := ask(t, agent, hitl.InquiryRequest{Prompt: "for anyone, later"})
	if ev := next(t, stream); *ev.InquiryID != after.ID {
		t.Fatalf("bob received another event: %d %s", ev.Seq, ev.Type)
	}
	// Filters narrow further: only inquiries assigned to me.
	mine, err := bob.Events(sctx, client.StreamOptions{AssignedTo: []string{"me"}})
	must(t, err)
	toBob := ask(t, agent, hitl.InquiryRequest{Prompt: "for bob", AssignedTo: []string{"bob"}})
	if ev := next(t, mine); *ev.InquiryID != toBob.ID {
		t.Fatalf("assigned_to=me delivered inquiry %d", *ev.InquiryID)
	}
}

func TestStreamResumesAcrossARestart(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := agent.Events(sctx, client.StreamOptions{})
	must(t, err)
	a := ask(t, agent, hitl.InquiryRequest{Prompt: "before"})
	if ev := next(t, stream); *ev.InquiryID != a.ID {
		t.Fatal("wrong first event")
	}
	e.Restart() // at the same address, where the client reconnects
	b := ask(t, agent, hitl.InquiryRequest{Prompt: "after"})
	ev := next(t, stream)
	if *ev.InquiryID != b.ID || ev.Type != hitl.EventInquiryCreated {
		t.Fatalf("after the restart the stream delivered %d %s", *ev.InquiryID, ev.Type)
	}
}

func TestRevokingATokenEndsItsStreams(t *testing.T) {
	e := newEnv(t)
	k, err := e.Admin.CreateKey(ctx, &hitl.KeyRequest{Name: "temp", Roles: []string{"agent"}})
	must(t, err)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Events returns once the server has answered 200, which it does after subscribing.
	stream, err := client.New(e.URL, k.Token, nil).Events(sctx, client.StreamOptions{})
	must(t, err)
	must(t, e.Admin.RevokeKey(ctx, k.ID))
	select {
	case _, ok := <-stream:
		if ok {
			t.Fatal("the revoked token's stream delivered an event")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the revoked token's stream did not end")
	}
	if r := e.do("GET", "/v1/events/stream", k.Token, ""); r.status != 401 {
		t.Fatalf("a new stream with the revoked token: %d", r.status)
	}
	if r := e.do("GET", "/v1/events/stream?after=-3", adminToken, ""); r.status != 400 || r.code() != "invalid" {
		t.Fatalf("a bad after: %d %s", r.status, r.text)
	}
}

func TestStreamAcrossNodes(t *testing.T) {
	c := newCluster(t, 2)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.agent[0].Events(sctx, client.StreamOptions{Types: []string{hitl.EventInquiryCreated}})
	must(t, err)
	var want []int64
	for i := range 20 {
		want = append(want, ask(t, c.agent[1], hitl.InquiryRequest{Prompt: "on node 2", Session: "s" + string(rune('a'+i%3))}).ID)
	}
	var last int64
	for _, id := range want {
		ev := next(t, stream)
		if *ev.InquiryID != id || ev.Seq <= last {
			t.Fatalf("node 1's stream delivered inquiry %d (seq %d after %d), want %d", *ev.InquiryID, ev.Seq, last, id)
		}
		last = ev.Seq
	}
}
