package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// TestDedupOverHTTP: bad keys and another question under a key are refused; three agents ask
// one question, each with its own resume callback; a room hears of it once; the first asker
// withdraws and the room hears of the question again (the next asker's); the answer reaches
// the askers that are left, through their waits and their own callbacks.
func TestDedupOverHTTP(t *testing.T) {
	e := webhookEnv(t, fastWebhooks)
	room := newReceiver(t, func(int, received) int { return http.StatusOK })
	_, err := e.Admin.CreateChatWebhook(ctx, &hitl.ChatWebhookRequest{Kind: hitl.ChatSlack, URL: room.URL + "/room"})
	must(t, err)
	callbacks := newReceiver(t, func(int, received) int { return http.StatusOK })
	tokens := map[string]string{}
	bots := map[string]*client.Client{}
	for _, name := range []string{"bot1", "bot2", "bot3"} {
		tokens[name] = e.token(name, "agent")
		bots[name] = clientFor(e, tokens[name])
	}
	human := e.principal("ann", []string{"responder"})

	for _, bad := range []struct{ body, path string }{
		{fmt.Sprintf(`{"prompt":"x","dedup_key":%q}`, strings.Repeat("k", 201)), "/dedup_key"},
		{`{"prompt":"x","dedup_key":" padded "}`, "/dedup_key"},
		{`{"prompt":"x","dedup":true}`, "/dedup"},
		{`{"prompt":"x","dedup_key":7}`, "/dedup_key"},
	} {
		r := e.do("POST", "/v1/inquiries", tokens["bot1"], bad.body)
		if r.status != http.StatusBadRequest || r.code() != "invalid" || r.unlisted([]string{bad.path}) != "" {
			t.Fatalf("%s: %d %s, want 400 invalid at %s", bad.body, r.status, r.text, bad.path)
		}
	}

	question := hitl.InquiryRequest{Prompt: "Roll back release 41?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ann"},
		DedupKey: "rollback-41"}
	askers := map[string]*hitl.Inquiry{}
	for _, name := range []string{"bot1", "bot2", "bot3"} {
		req := question
		req.CallbackURL = callbacks.URL + "/" + name
		askers[name] = ask(t, bots[name], req)
	}
	first := askers["bot1"]
	for _, name := range []string{"bot2", "bot3"} {
		if j := askers[name].Joined; j == nil || *j != first.ID {
			t.Fatalf("%s's inquiry joined %v, want %d", name, j, first.ID)
		}
	}
	r := e.do("POST", "/v1/inquiries", tokens["bot2"], `{"prompt":"Roll back release 42?","request_type":"approval","assigned_to":["ann"],"dedup_key":"rollback-41"}`)
	if r.status != http.StatusConflict || !strings.Contains(r.text, "different question") {
		t.Fatalf("another question under the key: %d %s", r.status, r.text)
	}
	r = e.do("POST", fmt.Sprintf("/v1/inquiries/%d/respond", askers["bot2"].ID), e.token("ann", "responder"), `{"response":{"approved":true}}`)
	if r.status != http.StatusConflict || !strings.Contains(r.text, fmt.Sprintf("answer inquiry %d", first.ID)) {
		t.Fatalf("answering a joined inquiry: %d %s", r.status, r.text)
	}
	eventually(t, "the room's message about the question", func() bool { return len(room.requests()) == 1 })

	_, err = bots["bot1"].Cancel(ctx, first.ID, "fixed another way")
	must(t, err)
	eventually(t, "the room's message about the question, still asked", func() bool { return len(room.requests()) == 2 })
	if msg := string(room.requests()[1].body); !strings.Contains(msg, fmt.Sprintf("/%d", askers["bot2"].ID)) {
		t.Fatalf("the second message does not point at bot2's inquiry %d: %s", askers["bot2"].ID, msg)
	}
	promoted, err := bots["bot2"].Inquiry(ctx, askers["bot2"].ID)
	must(t, err)
	if promoted.Joined != nil || promoted.Status != hitl.StatusPending {
		t.Fatalf("bot2's inquiry after bot1 withdrew: %+v", promoted)
	}

	var wg sync.WaitGroup
	waited := map[string]*hitl.Inquiry{}
	var mu sync.Mutex
	for _, name := range []string{"bot2", "bot3"} {
		wg.Go(func() {
			inq, err := bots[name].Wait(ctx, askers[name].ID, 30*time.Second)
			if err == nil {
				mu.Lock()
				waited[name] = inq
				mu.Unlock()
			}
		})
	}
	_, err = human.Respond(ctx, askers["bot2"].ID, json.RawMessage(`{"approved":true}`), "rolled back")
	must(t, err)
	wg.Wait()
	for _, name := range []string{"bot2", "bot3"} {
		inq := waited[name]
		if inq == nil || inq.Status != hitl.StatusResponded || inq.RespondedBy == nil || *inq.RespondedBy != "ann" || inq.ID != askers[name].ID {
			t.Fatalf("%s's wait returned %+v", name, inq)
		}
	}
	if a, b := waited["bot2"].Receipt, waited["bot3"].Receipt; a == "" || b == "" || a == b {
		t.Fatalf("the askers' receipts: %q and %q, want one of its own each", a, b)
	}
	eventually(t, "each asker's callbacks", func() bool {
		ends := map[string]string{}
		for _, rq := range callbacks.requests() {
			if ce := rq.event(t); ce.Type != "hitl.inquiry.created" {
				ends[rq.path] = ce.Type
			}
		}
		return ends["/bot1"] == "hitl.inquiry.cancelled" && ends["/bot2"] == "hitl.inquiry.responded" && ends["/bot3"] == "hitl.inquiry.responded"
	})
}

// TestDedupConcurrentAskersOnTwoNodes: two agents ask one question with one key at the same
// moment through two nodes, many times over: each time one inquiry is the one people see and
// the other joined it, and an answer through one node wakes the wait on the other.
func TestDedupConcurrentAskersOnTwoNodes(t *testing.T) {
	c := newCluster(t, 2)
	other := client.New(c.nodes[1].URL, c.nodes[0].token("bot2", "agent"), nil)
	askers := []*client.Client{c.agent[0], other}
	const rounds = 15
	for round := range rounds {
		req := hitl.InquiryRequest{Prompt: fmt.Sprintf("Failover %d?", round), DedupKey: fmt.Sprintf("failover-%d", round)}
		inqs := make([]*hitl.Inquiry, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i := range askers {
			wg.Go(func() { inqs[i], _, errs[i] = askers[i].CreateInquiry(ctx, &req, client.CreateOptions{}) })
		}
		wg.Wait()
		var primary, joined *hitl.Inquiry
		for i, inq := range inqs {
			must(t, errs[i])
			if inq.Joined == nil {
				primary = inq
			} else {
				joined = inq
			}
		}
		if primary == nil || joined == nil || *joined.Joined != primary.ID {
			t.Fatalf("round %d: %+v and %+v, want one primary and one joined to it", round, inqs[0], inqs[1])
		}
		if round == rounds-1 {
			waiter := askers[0]
			if joined.CreatedBy == "bot2" {
				waiter = other
			}
			done := make(chan *hitl.Inquiry)
			go func() {
				inq, _ := waiter.Wait(ctx, joined.ID, 30*time.Second)
				done <- inq
			}()
			_, err := c.human[0].Respond(ctx, primary.ID, json.RawMessage(`"yes"`), "")
			must(t, err)
			if got := <-done; got == nil || got.Status != hitl.StatusResponded || string(got.Response) != `"yes"` {
				t.Fatalf("the joined asker's wait on the other node: %+v", got)
			}
		}
	}
}
