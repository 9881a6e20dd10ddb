package server_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// TestDelegateVotesOnceAcrossNodes: alice is away with bob as her delegate, set on one node.
// In a quorum, bob's own vote and his vote for alice are sent at once to two nodes, many times
// over: each time exactly one counts and the other is refused as a conflict. When the absence
// is ended on one node, the other refuses bob's answer for alice too.
func TestDelegateVotesOnceAcrossNodes(t *testing.T) {
	c := newCluster(t, 2)
	bob := make([]*client.Client, 2) // bob's client on each node
	tok := c.nodes[0].token("bob", "responder")
	for i, node := range c.nodes {
		bob[i] = client.New(node.URL, tok, nil)
	}
	c.nodes[0].token("alice", "responder")
	cy := client.New(c.nodes[1].URL, c.nodes[0].token("cy", "responder"), nil)
	now := time.Now().UTC()
	_, err := c.nodes[0].Admin.SetAbsence(ctx, "alice", &hitl.AbsenceRequest{From: now.Add(-time.Minute), Until: now.Add(time.Hour), Delegate: "bob"})
	must(t, err)
	quorum := func(round int) *hitl.Inquiry {
		return ask(t, c.agent[round%2], hitl.InquiryRequest{Prompt: fmt.Sprintf("deploy %d?", round), RequestType: hitl.RequestApproval,
			AssignedTo: []string{"alice", "bob", "cy"}, Quorum: &hitl.Quorum{Required: 2}})
	}
	// The other node learns of the absence from the log.
	first := quorum(0)
	eventually(t, "node 1 to let bob answer for alice", func() bool {
		_, err := bob[1].Inquiry(ctx, first.ID)
		return err == nil
	})

	approve := json.RawMessage(`{"approved":true}`)
	const rounds = 10
	for round := range rounds {
		inq := quorum(round)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		wg.Go(func() { _, errs[0] = bob[round%2].Respond(ctx, inq.ID, approve, "") })
		wg.Go(func() { _, errs[1] = bob[(round+1)%2].RespondFor(ctx, inq.ID, "alice", approve, "") })
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("round %d: bob as himself: %v; bob for alice: %v; want exactly one to count", round, errs[0], errs[1])
		}
		for _, err := range errs {
			var refused *client.Error
			if err != nil && (!errors.As(err, &refused) || refused.StatusCode != http.StatusConflict) {
				t.Fatalf("round %d: the refused vote: %v, want a conflict", round, err)
			}
		}
		got, err := c.agent[0].Inquiry(ctx, inq.ID)
		must(t, err)
		if got.Status != hitl.StatusPending || len(got.Votes) != 1 || got.Votes[0].By != "bob" {
			t.Fatalf("round %d: %s with votes %+v, want pending with bob's one vote", round, got.Status, got.Votes)
		}
		done, err := cy.Respond(ctx, inq.ID, approve, "")
		must(t, err)
		if done.Status != hitl.StatusResponded {
			t.Fatalf("round %d: after cy's vote: %s", round, done.Status)
		}
	}

	// Ended on node 0: node 1 refuses bob's answer for alice once it has read the event.
	must(t, c.nodes[0].Admin.EndAbsence(ctx, "alice"))
	last := ask(t, c.agent[0], hitl.InquiryRequest{Prompt: "ship?", RequestType: hitl.RequestApproval, AssignedTo: []string{"alice"}})
	eventually(t, "node 1 to stop bob answering for alice", func() bool {
		_, err := bob[1].Inquiry(ctx, last.ID)
		var refused *client.Error
		return errors.As(err, &refused) && refused.StatusCode == http.StatusNotFound
	})
	if _, err := bob[1].RespondFor(ctx, last.ID, "alice", approve, ""); err == nil {
		t.Fatal("bob answered for alice after her absence ended")
	}
	got, err := c.agent[0].Inquiry(ctx, last.ID)
	must(t, err)
	if got.Status != hitl.StatusPending {
		t.Fatalf("after the refused answer: %s", got.Status)
	}
}
