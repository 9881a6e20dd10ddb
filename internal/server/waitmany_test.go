package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// TestWaitManyStream: one request waits on several inquiries: those already final and the
// ids that cannot be waited on come at once, then each inquiry once as it ends, then the end.
func TestWaitManyStream(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("wait-agent", []string{hitl.RoleAgent})
	other := e.principal("other-agent", []string{hitl.RoleAgent})
	human := e.principal("wait-human", []string{hitl.RoleResponder})
	a := ask(t, agent, hitl.InquiryRequest{Prompt: "A?"})
	b := ask(t, agent, hitl.InquiryRequest{Prompt: "B?"})
	c := ask(t, agent, hitl.InquiryRequest{Prompt: "C?"})
	_, err := human.Respond(ctx, c.ID, json.RawMessage(`"done already"`), "")
	must(t, err)
	theirs := ask(t, other, hitl.InquiryRequest{Prompt: "Not yours?"})

	lines := make(chan *hitl.WaitMessage, 16)
	ended := make(chan error, 1)
	go func() {
		ended <- agent.WaitMany(ctx, []int64{a.ID, c.ID, theirs.ID, 999999, b.ID}, time.Minute, func(m *hitl.WaitMessage) error {
			lines <- m
			return nil
		})
	}()
	next := func() *hitl.WaitMessage { return testserver.Receive(t, lines, 10*time.Second, "a line of the wait") }
	if m := next(); m.Type != hitl.WaitInquiry || m.Inquiry.ID != c.ID || m.Inquiry.Status != hitl.StatusResponded {
		t.Fatalf("first line %+v, want inquiry %d answered", m, c.ID)
	}
	for _, id := range []int64{theirs.ID, 999999} {
		m := next()
		if m.Type != hitl.WaitError || m.ID != id || m.Error.Code != hitl.ENotFound || m.Error.Message != fmt.Sprintf("inquiry %d not found", id) {
			t.Fatalf("line %+v, want not_found for %d", m, id)
		}
	}
	if m := next(); m.Type != hitl.WaitWaiting || m.Count == nil || *m.Count != 2 {
		t.Fatalf("line %+v, want waiting for 2", m)
	}
	eventually(t, "two parked waits", func() bool { return e.Engine().Waiting() == 2 })
	_, err = human.Respond(ctx, a.ID, json.RawMessage(`"yes"`), "")
	must(t, err)
	if m := next(); m.Type != hitl.WaitInquiry || m.Inquiry.ID != a.ID || string(m.Inquiry.Response) != `"yes"` {
		t.Fatalf("line %+v, want inquiry %d answered yes", m, a.ID)
	}
	_, err = agent.Cancel(ctx, b.ID, "not needed")
	must(t, err)
	if m := next(); m.Type != hitl.WaitInquiry || m.Inquiry.ID != b.ID || m.Inquiry.Status != hitl.StatusCancelled {
		t.Fatalf("line %+v, want inquiry %d cancelled", m, b.ID)
	}
	if m := next(); m.Type != hitl.WaitEnd || m.Reason != hitl.WaitDone || len(m.Pending) != 0 {
		t.Fatalf("line %+v, want the end, done", m)
	}
	must(t, testserver.Receive(t, ended, 10*time.Second, "the wait's return"))
	// The server lets go of its waits as its handler returns, just after the last line it sent.
	eventually(t, "no wait parked after the end", func() bool { return e.Engine().Waiting() == 0 })

	// A timeout ends the wait with the ids still pending, and leaves nothing parked.
	d := ask(t, agent, hitl.InquiryRequest{Prompt: "D?"})
	var got []*hitl.WaitMessage
	must(t, agent.WaitMany(ctx, []int64{d.ID}, 0, func(m *hitl.WaitMessage) error { got = append(got, m); return nil }))
	if len(got) != 2 || got[0].Type != hitl.WaitWaiting || got[1].Type != hitl.WaitEnd || got[1].Reason != hitl.WaitTimedOut || !slices.Equal(got[1].Pending, []int64{d.ID}) {
		t.Fatalf("a wait of 0s said %+v", got)
	}
	eventually(t, "no wait parked after a timeout", func() bool { return e.Engine().Waiting() == 0 })
}

// TestWaitManyBadInput: a malformed, oversized or unauthorized wait is refused whole, with
// a message saying what is wrong, and waits on nothing.
func TestWaitManyBadInput(t *testing.T) {
	e := newEnv(t)
	tok := e.token("bad-wait-agent", hitl.RoleAgent)
	tooMany := make([]int64, client.MaxWaitIDs+1)
	for i := range tooMany {
		tooMany[i] = int64(i + 1)
	}
	for _, c := range []struct {
		name, token, body string
		status            int
		code, says, path  string
	}{
		{"not JSON", tok, `{"ids":[1,`, 400, hitl.EInvalid, "", ""},
		{"unknown field", tok, `{"ids":[1],"timout":"5s"}`, 400, hitl.EInvalid, "timout", ""},
		{"no ids", tok, `{"timeout":"5s"}`, 400, hitl.EInvalid, `"ids" is empty`, ""},
		{"empty ids", tok, `{"ids":[]}`, 400, hitl.EInvalid, `"ids" is empty`, ""},
		{"not an id", tok, `{"ids":[1,0]}`, 400, hitl.EInvalid, "must be a positive inquiry id", "/ids/1"},
		{"twice", tok, `{"ids":[7,8,7]}`, 400, hitl.EInvalid, "inquiry 7 is listed twice (also at /ids/0)", "/ids/2"},
		{"timeout too long", tok, `{"ids":[1],"timeout":"10m"}`, 400, hitl.EInvalid, "timeout must be a duration from 0s to 5m0s", ""},
		{"timeout not a duration", tok, `{"ids":[1],"timeout":"soon"}`, 400, hitl.EInvalid, "timeout must be", ""},
		{"too many", tok, mustMarshal(t, hitl.WaitRequest{IDs: tooMany}), 413, hitl.ETooLarge, "one wait takes at most 10000: split them over several waits", ""},
		{"no token", "", `{"ids":[1]}`, 401, hitl.EUnauthorized, "", ""},
	} {
		r := e.do("POST", "/v1/inquiries/wait", c.token, c.body)
		detail, _ := r.body["detail"].(string)
		if r.status != c.status || r.code() != c.code || !strings.Contains(detail, c.says) || (c.path != "" && r.unlisted([]string{c.path}) != "") {
			t.Errorf("%s: %d %s", c.name, r.status, r.text)
		}
	}
	if n := e.Engine().Waiting(); n != 0 {
		t.Fatalf("%d waits parked by refused requests", n)
	}
}

// TestWaiterSharesConnections: many callers wait through one Waiter, asked in bursts that
// open several streams which then merge; each gets its own answer, the streams take far
// fewer connections than there are waits, a restart of the server loses nothing, and once
// every answer came nothing is left parked on the server.
func TestWaiterSharesConnections(t *testing.T) {
	e := newEnv(t)
	agentTok := e.token("many-agent", hitl.RoleAgent)
	agent := clientFor(e, agentTok)
	human := e.principal("many-human", []string{hitl.RoleResponder})
	// Connections open at once: what the server holds for the waits.
	var open, peak atomic.Int64
	counted := client.New(e.URL, agentTok, &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			for n, p := open.Add(1), peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			return &countedConn{Conn: c, open: &open}, nil
		},
	}})
	w := counted.NewWaiter()
	defer w.Close()

	const bursts, perBurst = 8, 25
	var ids []int64
	type got struct {
		inq *hitl.Inquiry
		err error
	}
	results := make(chan got, bursts*perBurst)
	for b := range bursts {
		for i := range perBurst {
			inq := ask(t, agent, hitl.InquiryRequest{Prompt: fmt.Sprintf("Burst %d, question %d?", b, i)})
			ids = append(ids, inq.ID)
			go func() {
				inq, err := w.Wait(ctx, inq.ID)
				results <- got{inq, err}
			}()
		}
		// Each burst parked before the next: a stream of its own, until they merge.
		eventually(t, "the burst parked", func() bool { return e.Engine().Waiting() == int64(len(ids)) })
	}
	// The streams stay about log2(waits) beyond the four a Waiter keeps, and a new one opens
	// before those it takes over close.
	t.Logf("%d connections open at most for %d waits", peak.Load(), len(ids))
	if n := peak.Load(); n > 20 {
		t.Fatalf("%d connections open at once for %d waits in %d bursts", n, len(ids), bursts)
	}
	// Half are answered, then the server restarts, then the rest.
	answer := func(ids []int64) {
		for _, id := range ids {
			_, err := human.Respond(ctx, id, json.RawMessage(fmt.Sprintf(`"answer %d"`, id)), "")
			must(t, err)
		}
	}
	half := len(ids) / 2
	answer(ids[:half])
	e.Restart()
	answer(ids[half:])
	seen := map[int64]bool{}
	for range ids {
		r := testserver.Receive(t, results, 20*time.Second, "an answer through the waiter")
		if r.err != nil {
			t.Fatal(r.err)
		}
		if want := fmt.Sprintf(`"answer %d"`, r.inq.ID); string(r.inq.Response) != want || seen[r.inq.ID] {
			t.Fatalf("inquiry %d came with %s (seen before: %v), want %s", r.inq.ID, r.inq.Response, seen[r.inq.ID], want)
		}
		seen[r.inq.ID] = true
	}
	eventually(t, "nothing parked once all were answered", func() bool { return e.Engine().Waiting() == 0 })

	// An id the key may not see is an error of its own; Ask through the Waiter gets its answer.
	_, err := w.Wait(ctx, 999999)
	wantCode(t, err, hitl.ENotFound)
	var wg sync.WaitGroup
	asked := make(chan error, 3)
	for i := range 3 {
		wg.Go(func() {
			inq, err := agent.Ask(ctx, &hitl.InquiryRequest{Prompt: fmt.Sprintf("Ask %d through the waiter?", i)}, client.AskOptions{Waiter: w})
			if err == nil && string(inq.Response) != `"ok"` {
				err = fmt.Errorf("ask %d got %s", i, inq.Response)
			}
			asked <- err
		})
	}
	eventually(t, "the three asks parked", func() bool {
		page, err := human.Inquiries(ctx, client.ListOptions{Status: "pending"})
		return err == nil && len(page.Data) == 3 && e.Engine().Waiting() == 3
	})
	page, err := human.Inquiries(ctx, client.ListOptions{Status: "pending"})
	must(t, err)
	for _, inq := range page.Data {
		_, err := human.Respond(ctx, inq.ID, json.RawMessage(`"ok"`), "")
		must(t, err)
	}
	wg.Wait()
	close(asked)
	for err := range asked {
		must(t, err)
	}
	w.Close()
	if _, err := w.Wait(ctx, ids[0]); !errors.Is(err, client.ErrWaiterClosed) {
		t.Fatalf("a wait on a closed waiter: %v", err)
	}
}

// countedConn counts itself out of the open connections when it closes.
type countedConn struct {
	net.Conn
	open *atomic.Int64
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.open.Add(-1) })
	return c.Conn.Close()
}
