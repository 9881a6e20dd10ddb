package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
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

// sseFrame is one event of a stream as the server wrote it.
type sseFrame struct {
	seq  int64
	text string // its lines: id, event, data
}

// rawStream opens GET /v1/events/stream?after=... and delivers its events' frames unparsed.
func rawStream(t *testing.T, sctx context.Context, e *env, token, after string) <-chan sseFrame {
	t.Helper()
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, e.URL+"/v1/events/stream?after="+after, nil)
	must(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %s", resp.Status)
	}
	out := make(chan sseFrame, 100)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		var f sseFrame
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			switch {
			case line == "\n":
				if f.seq > 0 {
					out <- f
				}
				f = sseFrame{}
			case strings.HasPrefix(line, "id: "):
				f.seq, _ = strconv.ParseInt(strings.TrimSpace(line[len("id: "):]), 10, 64)
				f.text += line
			default:
				f.text += line
			}
		}
	}()
	return out
}

// Many live screens at once, of principals who may see different things: each receives exactly
// the events its principal's list of events shows, and the bytes of an event are the same on
// every stream that carries it (the hub encodes each event once for all of them), live or
// replayed.
func TestManySubscribersEachSeeTheirOwnViewOfSharedEvents(t *testing.T) {
	e := newEnv(t)
	type viewer struct {
		name   string
		token  string
		client *client.Client
		frames []<-chan sseFrame
	}
	viewers := []*viewer{{name: "admin", token: adminToken, client: e.Admin}}
	for _, k := range []hitl.KeyRequest{
		{Name: "bot", Roles: []string{"agent"}},
		{Name: "other", Roles: []string{"agent"}},
		{Name: "alice", Roles: []string{"responder"}},
		{Name: "bob", Roles: []string{"responder"}, Groups: []string{"sre"}},
		{Name: "carol", Roles: []string{"responder"}},
	} {
		c, tok := e.Key(k)
		viewers = append(viewers, &viewer{name: k.Name, token: tok, client: c})
	}
	before, err := e.Admin.EventPage(ctx, client.EventOptions{Limit: 500})
	must(t, err)
	start := before.Data[len(before.Data)-1].Seq
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	const perViewer = 8
	for _, v := range viewers {
		for range perViewer {
			v.frames = append(v.frames, rawStream(t, sctx, e, v.token, "now"))
		}
	}
	eventually(t, "every stream open", func() bool { return e.Engine().Streams() == len(viewers)*perViewer })

	by := map[string]*client.Client{}
	for _, v := range viewers {
		by[v.name] = v.client
	}
	ask(t, by["bot"], hitl.InquiryRequest{Prompt: "for <alice> & co", AssignedTo: []string{"alice"}})
	ask(t, by["bot"], hitl.InquiryRequest{Prompt: "for sre", AssignedTo: []string{"group:sre"}})
	open := ask(t, by["bot"], hitl.InquiryRequest{Prompt: "for anyone", Session: "run-1"})
	theirs := ask(t, by["other"], hitl.InquiryRequest{Prompt: "the other agent's"})
	_, err = by["carol"].Respond(ctx, open.ID, json.RawMessage(`"yes"`), "")
	must(t, err)
	_, err = by["bot"].CompleteSession(ctx, "run-1", json.RawMessage(`{"done":true}`))
	must(t, err)
	_, err = by["alice"].Respond(ctx, theirs.ID, json.RawMessage(`"ok"`), "")
	must(t, err)
	e.Key(hitl.KeyRequest{Name: "late", Roles: []string{"agent"}}) // a key event: admins only

	// Each viewer's own list of events is what its streams must carry, in that order.
	want := map[string][]int64{}
	for _, v := range viewers {
		page, err := v.client.EventPage(ctx, client.EventOptions{After: start, Limit: 500})
		must(t, err)
		for _, ev := range page.Data {
			want[v.name] = append(want[v.name], ev.Seq)
		}
	}
	// The lists themselves differ as the rules say, so the streams cannot pass by all
	// receiving everything or nothing.
	all := len(want["admin"])
	if all < 8 || len(want["bot"]) == 0 || len(want["bot"]) >= all || len(want["carol"]) >= len(want["bob"]) ||
		len(want["other"]) >= len(want["bot"]) || slices.Equal(want["alice"], want["bob"]) {
		t.Fatalf("the views: %v", want)
	}
	shared := map[int64]string{} // seq → the frame every stream must carry for it
	check := func(who string, frames <-chan sseFrame) {
		t.Helper()
		for _, seq := range want[who] {
			var f sseFrame
			select {
			case got, ok := <-frames:
				if !ok {
					t.Fatalf("%s's stream ended", who)
				}
				f = got
			case <-time.After(10 * time.Second):
				t.Fatalf("%s's stream did not deliver event %d", who, seq)
			}
			if f.seq != seq {
				t.Fatalf("%s's stream delivered event %d, want %d (its view: %v)", who, f.seq, seq, want[who])
			}
			if s, ok := shared[seq]; !ok {
				shared[seq] = f.text
			} else if s != f.text {
				t.Fatalf("event %d differs between streams:\n%s\n%s", seq, s, f.text)
			}
		}
	}
	for _, v := range viewers {
		for _, frames := range v.frames {
			check(v.name, frames)
		}
	}
	// A stream that replays them from the log writes the same bytes as the live ones.
	for _, v := range viewers {
		check(v.name, rawStream(t, sctx, e, v.token, strconv.FormatInt(start, 10)))
	}
	if len(shared) != all {
		t.Fatalf("%d events reached the streams, the admin sees %d", len(shared), all)
	}
}
