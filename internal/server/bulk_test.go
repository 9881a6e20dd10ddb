package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

var approve = json.RawMessage(`{"approved":true}`)

// TestBulkAnswerByIDs: each inquiry is answered or refused on its own, the results come in
// the order of the ids, and what the caller may not see is refused as not found.
func TestBulkAnswerByIDs(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("deploy-bot", []string{hitl.RoleAgent})
	kimTok := func() string {
		_, tok := e.Key(hitl.KeyRequest{Name: "kim", Roles: []string{hitl.RoleResponder}, Groups: []string{"sre"}})
		return tok
	}()
	kim := clientFor(e, kimTok)
	lee := e.principal("lee", []string{hitl.RoleResponder})
	approval := func(prompt string, to ...string) *hitl.Inquiry {
		return ask(t, agent, hitl.InquiryRequest{Prompt: prompt, RequestType: hitl.RequestApproval, AssignedTo: to, Session: "deploy-1"})
	}
	forKim := approval("Deploy api?", "kim")
	forSRE := approval("Deploy web?", "group:sre")
	open := approval("Deploy docs?")
	answered := approval("Deploy db?", "kim", "lee")
	_, err := lee.Respond(ctx, answered.ID, json.RawMessage(`{"approved":false}`), "not today")
	must(t, err)
	forLee := approval("Deploy billing?", "lee")
	text := ask(t, agent, hitl.InquiryRequest{Prompt: "Which region?", AssignedTo: hitl.Assignees{"kim"}})

	ids := []int64{forSRE.ID, answered.ID, forKim.ID, forLee.ID, 999999, text.ID, open.ID}
	results, err := kim.RespondMany(ctx, &hitl.BulkResponseRequest{IDs: ids, Response: approve, Comment: "release train"})
	must(t, err)
	want := []struct {
		status hitl.BulkStatus
		code   string
		says   string
	}{
		{hitl.BulkResponded, "", ""},
		{hitl.BulkRefused, hitl.EConflict, fmt.Sprintf("inquiry %d is already answered", answered.ID)},
		{hitl.BulkResponded, "", ""},
		{hitl.BulkRefused, hitl.ENotFound, fmt.Sprintf("inquiry %d not found", forLee.ID)}, // kim may not see it: no word of lee
		{hitl.BulkRefused, hitl.ENotFound, "inquiry 999999 not found"},
		{hitl.BulkRefused, hitl.EInvalidResponse, "the answer does not fit the inquiry"},
		{hitl.BulkResponded, "", ""},
	}
	if len(results) != len(want) {
		t.Fatalf("%d results for %d ids: %+v", len(results), len(ids), results)
	}
	for i, w := range want {
		r := results[i]
		if r.ID != ids[i] || r.Status != w.status {
			t.Errorf("result %d: %+v, want id %d %s", i, r, ids[i], w.status)
			continue
		}
		if w.code == "" {
			if r.Error != nil {
				t.Errorf("result %d: responded with an error %+v", i, r.Error)
			}
			continue
		}
		if r.Error == nil || r.Error.Code != w.code || !strings.Contains(r.Error.Message, w.says) || strings.Contains(r.Error.Message, "lee") && w.code == hitl.ENotFound {
			t.Errorf("result %d: %+v, want %s saying %q", i, r.Error, w.code, w.says)
		}
	}
	if fe := results[5].Error.Errors; len(fe) == 0 {
		t.Errorf("the invalid answer's result lists no field: %+v", results[5].Error)
	}

	// What was answered is answered as one answer would be; the rest is as it was.
	for _, inq := range []*hitl.Inquiry{forKim, forSRE, open} {
		got, err := agent.Inquiry(ctx, inq.ID)
		must(t, err)
		if got.Status != hitl.StatusResponded || got.RespondedBy == nil || *got.RespondedBy != "kim" || string(got.Response) != `{"approved":true}` ||
			got.Comment == nil || *got.Comment != "release train" {
			t.Errorf("inquiry %d after the bulk answer: %s %s by %v", inq.ID, got.Status, got.Response, got.RespondedBy)
		}
	}
	for id, status := range map[int64]hitl.Status{forLee.ID: hitl.StatusPending, text.ID: hitl.StatusPending, answered.ID: hitl.StatusResponded} {
		got, err := agent.Inquiry(ctx, id)
		must(t, err)
		if got.Status != status || (id == answered.ID && *got.RespondedBy != "lee") {
			t.Errorf("inquiry %d: %s, want %s", id, got.Status, status)
		}
	}
	page, err := agent.EventPage(ctx, client.EventOptions{Types: []string{hitl.EventInquiryResponded}})
	must(t, err)
	if len(page.Data) != 4 { // lee's answer and kim's three
		t.Errorf("%d inquiry.responded events, want 4", len(page.Data))
	}

	// The same request again: kim's answers are retries (responded), the rest still refused.
	again, err := kim.RespondMany(ctx, &hitl.BulkResponseRequest{IDs: ids, Response: approve, Comment: "release train"})
	must(t, err)
	for i, r := range again {
		if r.Status != results[i].Status {
			t.Errorf("again, result %d: %+v, want %s", i, r, results[i].Status)
		}
	}

	// An admin sees inquiries assigned to others, and is told why it may not answer them.
	adminResults, err := e.Admin.RespondMany(ctx, &hitl.BulkResponseRequest{IDs: []int64{forLee.ID}, Response: approve})
	must(t, err)
	if r := adminResults[0]; r.Status != hitl.BulkRefused || r.Error.Code != hitl.EForbidden || !strings.Contains(r.Error.Message, "assigned to lee") {
		t.Errorf("admin on lee's inquiry: %+v", r.Error)
	}
}

// TestBulkAnswerByFilter: a filter answers one session's pending inquiries that the caller
// may answer; assigned_to "me" keeps those assigned to it or its groups.
func TestBulkAnswerByFilter(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("deploy-bot", []string{hitl.RoleAgent})
	kim := e.principal("kim", []string{hitl.RoleResponder}, "sre")
	approval := func(session, prompt string, to ...string) *hitl.Inquiry {
		return ask(t, agent, hitl.InquiryRequest{Prompt: prompt, RequestType: hitl.RequestApproval, AssignedTo: to, Session: session})
	}
	forKim := approval("s-1", "Deploy api?", "kim")
	forSRE := approval("s-1", "Deploy web?", "group:sre")
	open := approval("s-1", "Deploy docs?")
	forLee := approval("s-1", "Deploy billing?", "lee")
	elsewhere := approval("s-2", "Deploy search?", "kim")
	text := ask(t, agent, hitl.InquiryRequest{Prompt: "Which region?", AssignedTo: hitl.Assignees{"kim"}, Session: "s-1"})

	answered := func(results []hitl.BulkResult) []int64 {
		var ids []int64
		for _, r := range results {
			if r.Status != hitl.BulkResponded {
				t.Errorf("refused: %+v", r)
			}
			ids = append(ids, r.ID)
		}
		return ids
	}
	results, err := kim.RespondMany(ctx, &hitl.BulkResponseRequest{Response: approve,
		Filter: &hitl.BulkFilter{Session: "s-1", Status: hitl.StatusPending, AssignedTo: "me", RequestType: hitl.RequestApproval}})
	must(t, err)
	if got := answered(results); fmt.Sprint(got) != fmt.Sprint([]int64{forSRE.ID, forKim.ID}) { // newest first
		t.Errorf("assigned to me: answered %v, want %d and %d", got, forSRE.ID, forKim.ID)
	}
	// Without assigned_to: everything pending kim may answer in the session, unassigned too.
	results, err = kim.RespondMany(ctx, &hitl.BulkResponseRequest{Response: approve, Filter: &hitl.BulkFilter{Session: "s-1", RequestType: hitl.RequestApproval}})
	must(t, err)
	if got := answered(results); fmt.Sprint(got) != fmt.Sprint([]int64{open.ID}) {
		t.Errorf("everything kim may answer: answered %v, want %d", got, open.ID)
	}
	// Nothing left: an empty list, not an error.
	results, err = kim.RespondMany(ctx, &hitl.BulkResponseRequest{Response: approve, Filter: &hitl.BulkFilter{Session: "s-1", RequestType: hitl.RequestApproval}})
	must(t, err)
	if results == nil || len(results) != 0 {
		t.Errorf("nothing left: %+v", results)
	}
	for id, status := range map[int64]hitl.Status{forLee.ID: hitl.StatusPending, elsewhere.ID: hitl.StatusPending, text.ID: hitl.StatusPending} {
		if got, err := agent.Inquiry(ctx, id); err != nil || got.Status != status {
			t.Errorf("inquiry %d: %v %v, want %s", id, got, err, status)
		}
	}
}

// TestBulkAnswerLimit: more than 500 ids answers none of them and says how many there were
// (a filter over the limit is tested in the engine, with the limit lowered).
func TestBulkAnswerLimit(t *testing.T) {
	e := newEnv(t)
	kimTok := e.token("kim", hitl.RoleResponder)
	agent := e.principal("deploy-bot", []string{hitl.RoleAgent})
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval})
	ids := make([]int64, 501)
	for i := range ids {
		ids[i] = inq.ID + int64(i)
	}
	r := e.do("POST", "/v1/inquiries/respond", kimTok, fmt.Sprintf(`{"ids":%s,"response":{"approved":true}}`, mustMarshal(t, ids)))
	if r.status != 400 || r.code() != hitl.EInvalid || !strings.Contains(r.text, "lists 501 inquiries; at most 500") {
		t.Errorf("ids over the limit: %d %s", r.status, r.text)
	}
	if got, err := agent.Inquiry(ctx, inq.ID); err != nil || got.Status != hitl.StatusPending {
		t.Errorf("after the refusal: %v %v", got, err)
	}
	// 500 ids is within the limit: the one that exists is answered, the others not found.
	results, err := clientFor(e, kimTok).RespondMany(ctx, &hitl.BulkResponseRequest{IDs: ids[:500], Response: approve})
	must(t, err)
	if len(results) != 500 || results[0].Status != hitl.BulkResponded || results[499].Error == nil || results[499].Error.Code != hitl.ENotFound {
		t.Errorf("500 ids: %d results, first %+v, last %+v", len(results), results[0], results[499])
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return string(b)
}

// TestBulkAnswerBadInput: mistakes in the request refuse all of it, each said at its place.
func TestBulkAnswerBadInput(t *testing.T) {
	e := newEnv(t)
	agentTok := e.token("deploy-bot", hitl.RoleAgent)
	kimTok := e.token("kim", hitl.RoleResponder)
	inq := ask(t, clientFor(e, agentTok), hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval, Session: "s-1"})
	id := fmt.Sprint(inq.ID)
	cases := []struct {
		name, token, body string
		status            int
		code, path, says  string
	}{
		{"both ids and filter", kimTok, `{"ids":[` + id + `],"filter":{"session":"s-1"},"response":{"approved":true}}`, 400, "invalid", "", "not both"},
		{"neither ids nor filter", kimTok, `{"response":{"approved":true}}`, 400, "invalid", "", "(a list of ids)"},
		{"empty ids", kimTok, `{"ids":[],"response":{"approved":true}}`, 400, "invalid", "/ids", "is empty"},
		{"duplicate ids", kimTok, `{"ids":[` + id + `,` + id + `],"response":{"approved":true}}`, 400, "invalid", "/ids/1", "listed twice"},
		{"id not positive", kimTok, `{"ids":[0],"response":{"approved":true}}`, 400, "invalid", "/ids/0", "positive"},
		{"id not a number", kimTok, `{"ids":["7"],"response":{"approved":true}}`, 400, "invalid", "", ""},
		{"unknown filter field", kimTok, `{"filter":{"session":"s-1","sesion":"s-2"},"response":{"approved":true}}`, 400, "invalid", "/filter/sesion", ""},
		{"unknown field", kimTok, `{"ids":[` + id + `],"answer":{"approved":true}}`, 400, "invalid", "/answer", ""},
		{"status other than pending", kimTok, `{"filter":{"session":"s-1","status":"responded"},"response":{"approved":true}}`, 400, "invalid", "/filter/status", "only be pending"},
		{"assigned_to other than me", kimTok, `{"filter":{"session":"s-1","assigned_to":"lee"},"response":{"approved":true}}`, 400, "invalid", "/filter/assigned_to", "may only be"},
		{"filter without a session", kimTok, `{"filter":{"assigned_to":"me"},"response":{"approved":true}}`, 400, "invalid", "/filter/session", "one session"},
		{"bad session key", kimTok, `{"filter":{"session":"has spaces"},"response":{"approved":true}}`, 400, "invalid", "/filter/session", ""},
		{"unknown request type", kimTok, `{"filter":{"session":"s-1","request_type":"poll"},"response":{"approved":true}}`, 400, "invalid", "/filter/request_type", ""},
		{"response missing", kimTok, `{"ids":[` + id + `]}`, 400, "invalid", "/response", "is required"},
		{"comment too long", kimTok, `{"ids":[` + id + `],"response":{"approved":true},"comment":"` + strings.Repeat("x", 8001) + `"}`, 400, "invalid", "/comment", "8001"},
		{"agents do not answer", agentTok, `{"ids":[` + id + `],"response":{"approved":true}}`, 403, "forbidden", "", "responder role"},
		{"no credentials", "", `{"ids":[` + id + `],"response":{"approved":true}}`, 401, "unauthorized", "", ""},
	}
	for _, c := range cases {
		r := e.do("POST", "/v1/inquiries/respond", c.token, c.body)
		if r.status != c.status || r.code() != c.code || !strings.Contains(r.text, c.says) ||
			r.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s", c.name, r.status, r.text)
			continue
		}
		if c.path != "" && !strings.Contains(r.text, `"path":"`+c.path+`"`) {
			t.Errorf("%s: no problem at %s: %s", c.name, c.path, r.text)
		}
	}
	if got, err := clientFor(e, agentTok).Inquiry(ctx, inq.ID); err != nil || got.Status != hitl.StatusPending {
		t.Errorf("after the refused requests: %v %v", got, err)
	}
}

// TestDeclineRoute: a person who may answer declines with a reason; the agent's long poll
// ends with the cancellation and the reason; what may not be declined says why.
func TestDeclineRoute(t *testing.T) {
	e := newEnv(t)
	agentTok := e.token("deploy-bot", hitl.RoleAgent)
	agent := clientFor(e, agentTok)
	kimTok := e.token("kim", hitl.RoleResponder)
	kim := clientFor(e, kimTok)
	leeTok := e.token("lee", hitl.RoleResponder)
	declinable := func(session, prompt string, to ...string) *hitl.Inquiry {
		return ask(t, agent, hitl.InquiryRequest{Prompt: prompt, RequestType: hitl.RequestApproval, AssignedTo: to, Session: session})
	}
	inq := declinable("s-1", "Deploy api?", "kim")

	waited := make(chan reply, 1)
	go func() { waited <- e.do("GET", fmt.Sprintf("/v1/inquiries/%d/wait?timeout=20s", inq.ID), agentTok, "") }()
	eventually(t, "the agent waits", func() bool { return e.Engine().Waiting() == 1 })
	got, err := kim.Decline(ctx, inq.ID, "not my service: ask the api team")
	must(t, err)
	if got.Status != hitl.StatusCancelled || got.CancelReason == nil || *got.CancelReason != "not my service: ask the api team" {
		t.Fatalf("declined: %s %v", got.Status, got.CancelReason)
	}
	w := testserver.Receive(t, waited, 10*time.Second, "the agent's wait")
	if w.status != 200 || w.body["status"] != "cancelled" || w.body["cancel_reason"] != "not my service: ask the api team" {
		t.Fatalf("the agent's wait: %d %s", w.status, w.text)
	}

	plain := ask(t, agent, hitl.InquiryRequest{Prompt: "Deploy web?", RequestType: hitl.RequestApproval, CancellableByResponder: new(false)})
	forLee := declinable("s-2", "Deploy billing?", "lee")
	open := declinable("s-3", "Deploy docs?")
	cases := []struct {
		name, token, body string
		id                int64
		status            int
		code, says        string
	}{
		{"cancellable_by_responder false", kimTok, `{"reason":"no"}`, plain.ID, 403, "forbidden", "cancellable_by_responder"},
		{"assigned to someone else, seen by an admin", adminToken, `{}`, forLee.ID, 403, "forbidden", "assigned to lee"},
		{"assigned to someone else", kimTok, `{}`, forLee.ID, 404, "not_found", "not found"},
		{"by an agent", agentTok, `{}`, open.ID, 403, "forbidden", "responder role"},
		{"already final", kimTok, `{"reason":"late"}`, inq.ID, 409, "conflict", "already cancelled"},
		{"reason too long", kimTok, `{"reason":"` + strings.Repeat("x", 8001) + `"}`, open.ID, 400, "invalid", "8001"},
		{"unknown field", kimTok, `{"why":"x"}`, open.ID, 400, "invalid", "why"},
		{"unknown inquiry", kimTok, `{}`, 999999, 404, "not_found", "not found"},
	}
	for _, c := range cases {
		r := e.do("POST", fmt.Sprintf("/v1/inquiries/%d/decline", c.id), c.token, c.body)
		if r.status != c.status || r.code() != c.code || !strings.Contains(r.text, c.says) {
			t.Errorf("%s: %d %s", c.name, r.status, r.text)
		}
		if c.status == 409 {
			if cur, _ := r.body["inquiry"].(map[string]any); cur == nil || cur["status"] != "cancelled" {
				t.Errorf("%s: the conflict carries no current inquiry: %s", c.name, r.text)
			}
		}
	}
	for _, id := range []int64{plain.ID, forLee.ID, open.ID} {
		if got, err := agent.Inquiry(ctx, id); err != nil || got.Status != hitl.StatusPending {
			t.Errorf("inquiry %d after the refused declines: %v %v", id, got, err)
		}
	}
	// Lee declines without a reason: the reason says who declined.
	got, err = clientFor(e, leeTok).Decline(ctx, forLee.ID, "")
	if err != nil || got.CancelReason == nil || *got.CancelReason != "declined by lee" {
		t.Errorf("decline without a reason: %v %v", got, err)
	}
}
