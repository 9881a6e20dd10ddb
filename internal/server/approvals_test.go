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

// TestQuorumLastVotesRaceOnTwoNodes: the last two votes of a quorum land on two nodes at
// once, many times over; each inquiry is responded exactly once, with every vote counted once.
func TestQuorumLastVotesRaceOnTwoNodes(t *testing.T) {
	c := newCluster(t, 2)
	voters := make([][]*client.Client, 3) // voter → client on each node
	for i := range voters {
		tok := c.nodes[0].token(fmt.Sprintf("voter%d", i), "responder")
		for _, node := range c.nodes {
			voters[i] = append(voters[i], client.New(node.URL, tok, nil))
		}
	}
	const rounds = 15
	var ids []int64
	for round := range rounds {
		inq := ask(t, c.agent[round%2], hitl.InquiryRequest{Prompt: fmt.Sprintf("deploy %d?", round), RequestType: hitl.RequestApproval,
			AssignedTo: []string{"voter0", "voter1", "voter2"}, Quorum: &hitl.Quorum{Required: 2}})
		ids = append(ids, inq.ID)
		var wg sync.WaitGroup
		for v := range 3 { // three approvals race for the two places: one is the conflict
			wg.Go(func() {
				voters[v][v%2].Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "")
			})
		}
		wg.Wait()
	}
	responded := map[int64]int{}
	for _, ev := range c.events(t, hitl.EventInquiryResponded) {
		responded[*ev.InquiryID]++
	}
	voted := map[int64]int{}
	for _, ev := range c.events(t, hitl.EventInquiryVoted) {
		voted[*ev.InquiryID]++
	}
	for _, id := range ids {
		inq, err := c.agent[0].Inquiry(ctx, id)
		must(t, err)
		var o hitl.VoteOutcome
		json.Unmarshal(inq.Response, &o)
		if responded[id] != 1 || voted[id] != 2 || inq.Status != hitl.StatusResponded || !o.Approved || len(o.Votes) != 2 {
			t.Fatalf("inquiry %d: %d responded events, %d votes, status %s, outcome %+v", id, responded[id], voted[id], inq.Status, o)
		}
	}
}

// TestApprovalRoutesRefuseBadInput: votes by non-assignees, the asker voting, claims by
// agents, claims of quorums, bad ttls and conflicting claims, each with a clear problem.
func TestApprovalRoutesRefuseBadInput(t *testing.T) {
	e := newEnv(t)
	agentTok := e.token("bot", "agent")
	alice := e.token("alice", "responder")
	bob := e.token("bob", "responder")
	eve := e.token("eve", "responder")
	asker := e.token("asker", "agent", "responder")

	r := e.do("POST", "/v1/inquiries", agentTok, `{"prompt":"ship?","request_type":"approval","assigned_to":["alice","bob","asker"],"quorum":{"required":2,"reject":"majority"}}`)
	if r.status != http.StatusCreated || r.body["quorum"].(map[string]any)["reject"] != "majority" {
		t.Fatalf("create quorum: %d %s", r.status, r.text)
	}
	id := int64(r.body["id"].(float64))
	path := fmt.Sprintf("/v1/inquiries/%d", id)

	for _, tc := range []struct {
		name, method, path, token, body string
		status                          int
		contains                        string
	}{
		{"vote by a non-assignee", "POST", path + "/respond", eve, `{"response":{"approved":true}}`, 404, "not found"},
		{"vote that is not a vote", "POST", path + "/respond", alice, `{"response":{"approved":"yes"}}`, 422, "/approved"},
		{"claim of a quorum", "POST", path + "/claim", alice, ``, 400, "decided by votes"},
		{"quorum without approval", "POST", "/v1/inquiries", agentTok, `{"prompt":"p","quorum":{"required":1}}`, 400, "need request_type approval"},
		{"reject rule unknown", "POST", "/v1/inquiries", agentTok, `{"prompt":"p","request_type":"approval","quorum":{"required":1,"reject":"some"}}`, 400, "reject"},
		{"step without assignees", "POST", "/v1/inquiries", agentTok, `{"prompt":"p","request_type":"approval","steps":[{"required":1}]}`, 400, "who approves this step"},
		{"no steps", "POST", "/v1/inquiries", agentTok, `{"prompt":"p","request_type":"approval","steps":[]}`, 400, "lists no step"},
		{"a pool in a step", "POST", "/v1/inquiries", agentTok, `{"prompt":"p","request_type":"approval","steps":[{"assigned_to":["pool:ops"]}]}`, 400, `"errors":[{"path":"/steps/0/assigned_to","message":"a step names people and groups, not pools"}]`},
		{"an empty pool", "POST", "/v1/inquiries", agentTok, `{"prompt":"p","assigned_to":["pool:ops"]}`, 400, `"detail":"invalid inquiry: /assigned_to/0: pool ops has nobody to pick`},
	} {
		got := e.do(tc.method, tc.path, tc.token, tc.body)
		if got.status != tc.status || !strings.Contains(got.text, tc.contains) {
			t.Errorf("%s: %d %s, want %d with %q", tc.name, got.status, got.text, tc.status, tc.contains)
		}
	}
	// The asker may see it (it asked) and is assigned, but separation of duties keeps it from voting.
	got := e.do("POST", "/v1/inquiries", asker, `{"prompt":"mine?","request_type":"approval","assigned_to":["asker","alice"],"quorum":{"required":1}}`)
	own := int64(got.body["id"].(float64))
	got = e.do("POST", fmt.Sprintf("/v1/inquiries/%d/respond", own), asker, `{"response":{"approved":true}}`)
	if got.status != 403 || !strings.Contains(got.text, "separation of duties") {
		t.Fatalf("the asker voted: %d %s", got.status, got.text)
	}
	// A vote leaves it pending with its votes; a different second vote is a conflict.
	got = e.do("POST", path+"/respond", alice, `{"response":{"approved":true},"comment":"ok"}`)
	if got.status != 200 || got.body["status"] != "pending" || len(got.body["votes"].([]any)) != 1 {
		t.Fatalf("first vote: %d %s", got.status, got.text)
	}
	got = e.do("POST", path+"/respond", alice, `{"response":{"approved":false}}`)
	if got.status != 409 || !strings.Contains(got.text, "alice already approved") {
		t.Fatalf("changed vote: %d %s", got.status, got.text)
	}
	if got = e.do("POST", path+"/respond", alice, `{"response":{"approved":true}}`); got.status != 200 || len(got.body["votes"].([]any)) != 1 {
		t.Fatalf("the same vote again without its comment: %d %s", got.status, got.text)
	}
	// A bulk answer that casts a vote says so.
	got = e.do("POST", "/v1/inquiries", agentTok, `{"prompt":"two?","request_type":"approval","assigned_to":["alice","bob"],"quorum":{"required":2}}`)
	got = e.do("POST", "/v1/inquiries/respond", bob, fmt.Sprintf(`{"ids":[%d],"response":{"approved":true}}`, int64(got.body["id"].(float64))))
	if got.status != 200 || !strings.Contains(got.text, `"status":"voted"`) {
		t.Fatalf("a vote by bulk answer: %d %s", got.status, got.text)
	}

	// Claims of a one-person question.
	got = e.do("POST", "/v1/inquiries", agentTok, `{"prompt":"which?","assigned_to":["alice","bob"]}`)
	single := fmt.Sprintf("/v1/inquiries/%d", int64(got.body["id"].(float64)))
	for _, tc := range []struct {
		name, method, token, body string
		status                    int
		contains                  string
	}{
		{"claim by an agent", "POST", agentTok, ``, 403, "responder role"},
		{"claim with a bad ttl", "POST", alice, `{"ttl_seconds":-5}`, 400, "ttl_seconds must be between 1 and 86400"},
		{"claim with an unknown field", "POST", alice, `{"ttl":5}`, 400, "ttl"},
		{"claim with a ttl of 0", "POST", alice, `{"ttl_seconds":0}`, 400, "ttl_seconds must be between 1 and 86400"},
		{"release of no claim", "DELETE", alice, ``, 409, "is not claimed"},
		{"claim", "POST", alice, `{"ttl_seconds":600}`, 200, `"claim":{"by":"alice"`},
		{"claim held by another", "POST", bob, ``, 409, "claimed by alice until"},
		{"release by another", "DELETE", bob, ``, 403, "only alice or an admin"},
	} {
		got := e.do(tc.method, single+"/claim", tc.token, tc.body)
		if got.status != tc.status || !strings.Contains(got.text, tc.contains) {
			t.Errorf("%s: %d %s, want %d with %q", tc.name, got.status, got.text, tc.status, tc.contains)
		}
	}
	got = e.do("POST", single+"/respond", bob, `{"response":"mine"}`)
	if got.status != 409 || !strings.Contains(got.text, "claimed by alice") {
		t.Fatalf("answer while claimed by another: %d %s", got.status, got.text)
	}
	// Declining is answering: not while another holds the claim, and not by whom separation of duties excludes.
	got = e.do("POST", "/v1/inquiries", agentTok, `{"prompt":"can you?","assigned_to":["alice","bob"],"cancellable_by_responder":true}`)
	declinable := fmt.Sprintf("/v1/inquiries/%d", int64(got.body["id"].(float64)))
	if got = e.do("POST", declinable+"/claim", alice, ``); got.status != 200 {
		t.Fatalf("claim: %d %s", got.status, got.text)
	}
	if got = e.do("POST", declinable+"/decline", bob, `{"reason":"not me"}`); got.status != 409 || !strings.Contains(got.text, "claimed by alice") {
		t.Fatalf("decline while another holds the claim: %d %s", got.status, got.text)
	}
	got = e.do("POST", "/v1/inquiries", asker, `{"prompt":"mine?","assigned_to":["asker"],"cancellable_by_responder":true,"exclude_requester":true}`)
	if got = e.do("POST", fmt.Sprintf("/v1/inquiries/%d/decline", int64(got.body["id"].(float64))), asker, ``); got.status != 403 || !strings.Contains(got.text, "separation of duties") {
		t.Fatalf("decline by the excluded asker: %d %s", got.status, got.text)
	}
	got = e.do("DELETE", single+"/claim", adminToken, ``)
	if got.status != 200 || got.body["claim"] != nil {
		t.Fatalf("admin breaks the claim: %d %s", got.status, got.text)
	}
	if got = e.do("POST", single+"/respond", bob, `{"response":"mine"}`); got.status != 200 {
		t.Fatalf("answer once released: %d %s", got.status, got.text)
	}
}

// TestClaimExpiresOnceAcrossNodes: every node holds the claim's timer; it is released once.
func TestClaimExpiresOnceAcrossNodes(t *testing.T) {
	c := newCluster(t, 2)
	var ids []int64
	for range 5 {
		inq := ask(t, c.agent[0], hitl.InquiryRequest{Prompt: "which?"})
		_, err := c.human[1].Claim(ctx, inq.ID, time.Second)
		must(t, err)
		ids = append(ids, inq.ID)
	}
	eventually(t, "every claim expired", func() bool { return len(c.events(t, hitl.EventInquiryReleased)) >= len(ids) })
	// A second release would come within the other node's recheck: an answer on the node that
	// did not release it, committed after that, comes after any such release in the log.
	for _, id := range ids {
		_, err := c.human[0].Respond(ctx, id, json.RawMessage(`"done"`), "")
		must(t, err)
	}
	released := map[int64]int{}
	for _, ev := range c.events(t, hitl.EventInquiryReleased) {
		released[*ev.InquiryID]++
		if ev.Actor != "system" || !strings.Contains(string(ev.Data), `"reason":"expired"`) {
			t.Fatalf("release: %s by %s", ev.Data, ev.Actor)
		}
	}
	for _, id := range ids {
		inq, err := c.agent[1].Inquiry(ctx, id)
		must(t, err)
		if released[id] != 1 || inq.Claim != nil {
			t.Fatalf("inquiry %d: released %d times, claim %+v", id, released[id], inq.Claim)
		}
	}
}
