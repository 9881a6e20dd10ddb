package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// Attune's way in and out (issue 14: 1-3): integer identities, action results with
// __inquiry, and the /api/v1 REST shape.

// identityOf reads a principal's integer identity from GET /v1/me.
func (e *env) identityOf(token string) int64 {
	e.t.Helper()
	r := e.do("GET", "/v1/me", token, "")
	id, ok := r.body["identity_id"].(float64)
	if r.status != http.StatusOK || !ok || id < 1 {
		e.t.Fatalf("GET /v1/me: %d %s", r.status, r.text)
	}
	return int64(id)
}

// executorAliceBob makes keys for Attune's executor (an agent) and for two responders, alice
// and bob, and reads the responders' integer identities.
func (e *env) executorAliceBob() (agent, alice, bob string, aliceID, bobID int64) {
	e.t.Helper()
	agent = e.token("attune-executor", "agent")
	alice, bob = e.token("alice", "responder"), e.token("bob", "responder")
	return agent, alice, bob, e.identityOf(alice), e.identityOf(bob)
}

// wantProblem checks a problem answer: its status, its code, and words of its detail.
func wantProblem(t *testing.T, r reply, status int, code string, words ...string) {
	t.Helper()
	if r.status != status || r.code() != code || !strings.HasPrefix(r.header.Get("Content-Type"), "application/problem+json") {
		t.Fatalf("got %d %s, want %d %s (problem+json)", r.status, r.text, status, code)
	}
	said := fmt.Sprint(r.body["detail"], r.body["errors"])
	for _, w := range words {
		if !strings.Contains(said, w) {
			t.Fatalf("the problem %s does not say %q", r.text, w)
		}
	}
}

// data is the envelope's data as an object.
func data(t *testing.T, r reply) map[string]any {
	t.Helper()
	d, ok := r.body["data"].(map[string]any)
	if !ok {
		t.Fatalf("no data object in %d %s", r.status, r.text)
	}
	return d
}

func TestIntegerIdentities(t *testing.T) {
	e := newEnv(t)
	agent := e.token("deploy-bot", "agent")
	alice := e.token("alice", "responder")
	bob := e.token("bob", "responder")
	aliceID, bobID := e.identityOf(alice), e.identityOf(bob)
	if aliceID == bobID || e.identityOf(adminToken) == aliceID {
		t.Fatalf("identities are not distinct: alice %d, bob %d", aliceID, bobID)
	}

	// A second key of the same name (a rotation) speaks for the same identity, and GET /v1/keys
	// shows it on every key.
	alice2 := e.token("alice", "responder")
	if got := e.identityOf(alice2); got != aliceID {
		t.Fatalf("alice's second key has identity %d, her first %d", got, aliceID)
	}
	keys, err := e.Client(adminToken).Keys(ctx)
	must(t, err)
	for _, k := range keys {
		if k.IdentityID < 1 || (k.Name == "alice" && k.IdentityID != aliceID) {
			t.Fatalf("key %s (%s) has identity %d; alice's is %d", k.ID, k.Name, k.IdentityID, aliceID)
		}
	}
	// The identity outlives a restart.
	e.Restart()
	if got := e.identityOf(alice); got != aliceID {
		t.Fatalf("after a restart alice has identity %d, before %d", got, aliceID)
	}

	// Integers are assignees wherever names are: alone, or in a list with groups.
	r := e.do("POST", "/v1/inquiries", agent, fmt.Sprintf(`{"prompt":"Deploy?","assigned_to":%d}`, aliceID))
	if r.status != http.StatusCreated || fmt.Sprint(r.body["assigned_to"]) != "[alice]" {
		t.Fatalf("assigned by identity: %d %s", r.status, r.text)
	}
	forAlice := int64(r.body["id"].(float64))
	r = e.do("POST", "/v1/inquiries", agent, fmt.Sprintf(`{"prompt":"Roll back?","assigned_to":[%d,"group:sre"],"escalate_after":"1m","escalate_to":[%d]}`, bobID, aliceID))
	if r.status != http.StatusCreated || fmt.Sprint(r.body["assigned_to"]) != "[bob group:sre]" || fmt.Sprint(r.body["escalate_to"]) != "[alice]" {
		t.Fatalf("assigned by identity and group: %d %s", r.status, r.text)
	}

	// Bad input: an identity nobody holds, a value of the wrong type.
	r = e.do("POST", "/v1/inquiries", agent, `{"prompt":"Deploy?","assigned_to":[123456,"alice",654321]}`)
	wantProblem(t, r, http.StatusBadRequest, hitl.EInvalid, "/assigned_to/0", "no principal has identity 123456")
	if errs := r.body["errors"].([]any); len(errs) != 2 || !strings.Contains(fmt.Sprint(errs[1]), "/assigned_to/2") {
		t.Fatalf("every unknown identity is named: %s", r.text)
	}
	r = e.do("POST", "/v1/inquiries", agent, `{"prompt":"Deploy?","assigned_to":true}`)
	wantProblem(t, r, http.StatusBadRequest, hitl.EInvalid, "/assigned_to", "integer identity")
	r = e.do("POST", "/v1/inquiries", agent, `{"prompt":"Deploy?","assigned_to":[1.5]}`)
	wantProblem(t, r, http.StatusBadRequest, hitl.EInvalid, "/assigned_to")

	// The one who answers is shown by name and by identity, in the inquiry and its event.
	got, err := e.Client(alice).Respond(ctx, forAlice, json.RawMessage(`"yes"`), "")
	must(t, err)
	if got.RespondedByID == nil || *got.RespondedByID != aliceID {
		t.Fatalf("responded_by_id = %v, want %d", got.RespondedByID, aliceID)
	}
	evs, err := e.Client(adminToken).EventPage(ctx, client.EventOptions{InquiryID: forAlice, Types: []string{hitl.EventInquiryResponded}})
	must(t, err)
	if len(evs.Data) != 1 || !strings.Contains(string(evs.Data[0].Data), fmt.Sprintf(`"responded_by_id":%d`, aliceID)) {
		t.Fatalf("inquiry.responded events: %+v", evs.Data)
	}
}

// deployResult is the seed's action result.
const deployResult = `{
  "__inquiry": {
    "prompt": "Approve deployment to production?",
    "response_schema": {"type": "object", "properties": {"approved": {"type": "boolean"}, "comments": {"type": "string"}}, "required": ["approved"]},
    "assigned_to": %d,
    "timeout_seconds": 3600
  },
  "deployment_plan": {"target": "production", "version": "v2.5.0"}
}`

func TestActionResultCreatesOneInquiryPerExecution(t *testing.T) {
	e := newEnv(t)
	agent := e.token("attune-executor", "agent")
	alice := e.token("alice", "responder")
	aliceID := e.identityOf(alice)

	// X-API-Key authenticates as well as a bearer token.
	r := e.do("POST", "/api/v1/executions/123/result", "", fmt.Sprintf(deployResult, aliceID), "X-API-Key", agent)
	if r.status != http.StatusCreated {
		t.Fatalf("POST result: %d %s", r.status, r.text)
	}
	d := data(t, r)
	if d["execution"] != float64(123) || d["assigned_to"] != float64(aliceID) || d["status"] != "pending" ||
		d["has_response"] != false || d["response"] != nil || d["timeout_at"] == nil || d["prompt"] != "Approve deployment to production?" {
		t.Fatalf("the inquiry in Attune's shape: %s", r.text)
	}
	id := int64(d["id"].(float64))
	if r.header.Get("Location") != fmt.Sprintf("/api/v1/inquiries/%d", id) {
		t.Fatalf("Location: %q", r.header.Get("Location"))
	}
	if d := data(t, e.do("GET", fmt.Sprintf("/api/v1/inquiries/%d", id), alice, "")); d["has_response"] != false || d["response"] != nil || d["responded_at"] != nil {
		t.Fatalf("a pending inquiry read back: %v", d)
	}
	// In hitl's shape: execution, the assignee's name, and the rest of the result as context.
	inq, err := e.Client(agent).Inquiry(ctx, id)
	must(t, err)
	if inq.Execution != "123" || fmt.Sprint(inq.AssignedTo) != "[alice]" || string(inq.Context) != `{"deployment_plan":{"target":"production","version":"v2.5.0"}}` {
		t.Fatalf("the inquiry: execution %q, assigned_to %v, context %s", inq.Execution, inq.AssignedTo, inq.Context)
	}

	// The same execution again, even with another result, is the same inquiry.
	for _, body := range []string{fmt.Sprintf(deployResult, aliceID), `{"__inquiry":{"prompt":"Something else?"}}`} {
		r = e.do("POST", "/api/v1/executions/123/result", agent, body)
		if r.status != http.StatusOK || data(t, r)["id"] != float64(id) {
			t.Fatalf("the result again: %d %s", r.status, r.text)
		}
	}
	page, err := e.Client(agent).Inquiries(ctx, client.ListOptions{Execution: "123"})
	must(t, err)
	if len(page.Data) != 1 || page.Data[0].ID != id {
		t.Fatalf("?execution=123 lists %d inquiries", len(page.Data))
	}

	// A result that asks nothing.
	for _, body := range []string{`{"ok":true}`, `{"__inquiry":null,"ok":true}`, `[1,2]`, `"done"`} {
		r = e.do("POST", "/api/v1/executions/124/result", agent, body)
		if r.status != http.StatusOK || r.text != "{\"data\":null}\n" {
			t.Fatalf("%s: %d %q", body, r.status, r.text)
		}
	}
	// execution may be given on POST /v1/inquiries too, and filters the list.
	ask(t, e.Client(agent), hitl.InquiryRequest{Prompt: "Also for 124?", Execution: "124"})
	page, err = e.Client(agent).Inquiries(ctx, client.ListOptions{Execution: "124"})
	must(t, err)
	if len(page.Data) != 1 || page.Data[0].Execution != "124" {
		t.Fatalf("?execution=124: %+v", page.Data)
	}
	// An execution that is not a number is a string in Attune's shape.
	r = e.do("POST", "/api/v1/executions/run-7.a/result", agent, `{"__inquiry":{"prompt":"Go?"}}`)
	if r.status != http.StatusCreated || data(t, r)["execution"] != "run-7.a" || data(t, r)["assigned_to"] != nil {
		t.Fatalf("a named execution: %d %s", r.status, r.text)
	}

	// An invalid __inquiry gets the errors of POST /v1/inquiries, under /__inquiry.
	for _, tc := range []struct{ body, path, words string }{
		{`{"__inquiry":{"timeout_seconds":60}}`, "/__inquiry/prompt", "is required"},
		{`{"__inquiry":{"prompt":"x","timeout_seconds":0}}`, "/__inquiry/timeout_seconds", "between 1 and"},
		{`{"__inquiry":{"prompt":"x","assigned_to":999999}}`, "/__inquiry/assigned_to/0", "no principal has identity 999999"},
		{`{"__inquiry":{"prompt":"x","bogus":1}}`, "/__inquiry/bogus", "unknown field"},
		{`{"__inquiry":{"prompt":7}}`, "/__inquiry/prompt", "expected a string"},
		{`{"__inquiry":{"prompt":"x","context":{"a":1}}}`, "/__inquiry/context", "rest of the result"},
		{`{"__inquiry":{"prompt":"x","execution":"other"}}`, "/__inquiry/execution", "leave it out"},
		{`{"__inquiry":"approve?"}`, "/__inquiry", "must be an object"},
		{`{"__inquiry":{"prompt":"x"},"__inquiry":{"prompt":"y"}}`, "/__inquiry", "duplicate key"},
	} {
		r = e.do("POST", "/api/v1/executions/200/result", agent, tc.body)
		wantProblem(t, r, http.StatusBadRequest, hitl.EInvalid, tc.path, tc.words)
	}
	r = e.do("POST", "/api/v1/executions/200/result", agent, `{"__inquiry":`)
	wantProblem(t, r, http.StatusBadRequest, hitl.EInvalid, "malformed JSON")
	r = e.do("POST", "/api/v1/executions/bad%20id/result", agent, `{"__inquiry":{"prompt":"x"}}`)
	wantProblem(t, r, http.StatusBadRequest, hitl.EInvalid, "execution id")
	// Nothing was created by the bad requests.
	if page, err = e.Client(agent).Inquiries(ctx, client.ListOptions{Execution: "200"}); err != nil || len(page.Data) != 0 {
		t.Fatalf("bad results created %v (%v)", page, err)
	}
	// Only who may ask takes in results; without credentials, nobody.
	wantProblem(t, e.do("POST", "/api/v1/executions/300/result", alice, `{"__inquiry":{"prompt":"x"}}`), http.StatusForbidden, hitl.EForbidden)
	wantProblem(t, e.do("POST", "/api/v1/executions/300/result", "", `{"__inquiry":{"prompt":"x"}}`), http.StatusUnauthorized, hitl.EUnauthorized)
	// Another agent posting an execution it did not ask for is told, not shown the inquiry.
	other := e.token("other-bot", "agent")
	wantProblem(t, e.do("POST", "/api/v1/executions/123/result", other, `{"__inquiry":{"prompt":"x"}}`), http.StatusConflict, hitl.EConflict, "execution 123")
}

func TestAttuneInquiriesREST(t *testing.T) {
	e := newEnv(t)
	agent, alice, bob, aliceID, bobID := e.executorAliceBob()

	ids := map[string]int64{}
	for _, tc := range []struct{ execution, assignee string }{{"1", fmt.Sprint(aliceID)}, {"2", fmt.Sprint(bobID)}, {"3", `"group:sre"`}, {"4", "null"}, {"5", fmt.Sprint(aliceID)}} {
		r := e.do("POST", "/api/v1/executions/"+tc.execution+"/result", agent,
			`{"__inquiry":{"prompt":"Step `+tc.execution+`?","assigned_to":`+tc.assignee+`,"response_schema":{"type":"object","properties":{"approved":{"type":"boolean"}},"required":["approved"]}}}`)
		if r.status != http.StatusCreated {
			t.Fatalf("execution %s: %d %s", tc.execution, r.status, r.text)
		}
		ids[tc.execution] = int64(data(t, r)["id"].(float64))
	}

	list := func(token, query string) (ids []int64, page map[string]any) {
		t.Helper()
		r := e.do("GET", "/api/v1/inquiries"+query, token, "")
		if r.status != http.StatusOK {
			t.Fatalf("GET /api/v1/inquiries%s: %d %s", query, r.status, r.text)
		}
		for _, item := range r.body["data"].([]any) {
			ids = append(ids, int64(item.(map[string]any)["id"].(float64)))
		}
		return ids, r.body
	}
	// Pages: newest first, with the total and the number of pages.
	got, page := list(agent, "?per_page=2&page=2")
	if fmt.Sprint(got) != fmt.Sprint([]int64{ids["3"], ids["2"]}) || page["total"] != float64(5) || page["pages"] != float64(3) || page["page"] != float64(2) || page["per_page"] != float64(2) {
		t.Fatalf("page 2 of 2: %v %v", got, page)
	}
	if got, page = list(agent, "?per_page=2&page=4"); len(got) != 0 || page["total"] != float64(5) {
		t.Fatalf("a page past the end: %v %v", got, page)
	}
	if got, page = list(agent, ""); len(got) != 5 || page["per_page"] != float64(50) || page["page"] != float64(1) || page["pages"] != float64(1) {
		t.Fatalf("the defaults: %v %v", got, page)
	}
	// Filters: assigned_to by identity, execution, status.
	if got, _ = list(agent, fmt.Sprintf("?assigned_to=%d", aliceID)); fmt.Sprint(got) != fmt.Sprint([]int64{ids["5"], ids["1"]}) {
		t.Fatalf("assigned_to=alice: %v", got)
	}
	if got, _ = list(agent, "?execution=2"); fmt.Sprint(got) != fmt.Sprint([]int64{ids["2"]}) {
		t.Fatalf("execution=2: %v", got)
	}
	// Visibility as on /v1: bob sees what is his or unassigned, never alice's.
	if got, _ = list(bob, ""); fmt.Sprint(got) != fmt.Sprint([]int64{ids["4"], ids["2"]}) {
		t.Fatalf("bob sees %v", got)
	}
	wantProblem(t, e.do("GET", fmt.Sprintf("/api/v1/inquiries/%d", ids["1"]), bob, ""), http.StatusNotFound, hitl.ENotFound)
	wantProblem(t, e.do("POST", fmt.Sprintf("/api/v1/inquiries/%d/respond", ids["1"]), bob, `{"response":{"approved":true}}`), http.StatusNotFound, hitl.ENotFound)

	// A responder answers through /api/v1, by the inquiry's schema.
	path := fmt.Sprintf("/api/v1/inquiries/%d", ids["1"])
	wantProblem(t, e.do("POST", path+"/respond", alice, `{"response":{"approved":"yes"}}`), http.StatusUnprocessableEntity, hitl.EInvalidResponse)
	wantProblem(t, e.do("POST", path+"/respond", alice, `{"answer":{"approved":true}}`), http.StatusBadRequest, hitl.EInvalid, "unknown field")
	r := e.do("POST", path+"/respond", alice, `{"response":{"approved":true,"comments":"LGTM"}}`, "Content-Type", "application/json")
	d := data(t, r)
	if r.status != http.StatusOK || r.body["message"] != "Response submitted successfully" || d["status"] != "responded" ||
		d["has_response"] != true || d["responded_at"] == nil || fmt.Sprint(d["response"]) != "map[approved:true comments:LGTM]" {
		t.Fatalf("respond: %d %s", r.status, r.text)
	}
	if d := data(t, e.do("GET", path, agent, "")); d["status"] != "responded" || d["updated"] == d["created"] {
		t.Fatalf("GET after the answer: %v", d)
	}
	wantProblem(t, e.do("POST", path+"/respond", alice, `{"response":{"approved":false}}`), http.StatusConflict, hitl.EConflict)
	if got, _ = list(agent, "?status=responded"); fmt.Sprint(got) != fmt.Sprint([]int64{ids["1"]}) {
		t.Fatalf("status=responded: %v", got)
	}

	// Cancel: the asker may, a responder may not.
	cancel := fmt.Sprintf("/api/v1/inquiries/%d/cancel", ids["4"])
	wantProblem(t, e.do("POST", cancel, bob, ""), http.StatusForbidden, hitl.EForbidden)
	if r = e.do("POST", cancel, agent, `{"reason":"the workflow was stopped"}`); r.status != http.StatusOK || data(t, r)["status"] != "cancelled" {
		t.Fatalf("cancel: %d %s", r.status, r.text)
	}
	if got, _ = list(agent, "?status=cancelled"); fmt.Sprint(got) != fmt.Sprint([]int64{ids["4"]}) {
		t.Fatalf("status=cancelled: %v", got)
	}

	// Bad input, in words.
	for _, tc := range []struct{ query, words string }{
		{"?page=0", "page must be a page number"},
		{"?page=x", "page must be"},
		{"?per_page=501", "per_page must be"},
		{"?per_page=-1", "per_page must be"},
		{"?assigned_to=alice", "assigned_to must be an integer identity"},
		{"?assigned_to=987654", "no principal has identity 987654"},
		{"?status=done", "status must be pending, responded, timeout or cancelled"},
		{"?limit=5", `unknown query parameter "limit"`},
		{"?state=pending", `unknown query parameter "state"`},
	} {
		wantProblem(t, e.do("GET", "/api/v1/inquiries"+tc.query, agent, ""), http.StatusBadRequest, hitl.EInvalid, tc.words)
	}
	wantProblem(t, e.do("GET", "/api/v1/inquiries/999999", agent, ""), http.StatusNotFound, hitl.ENotFound)
	wantProblem(t, e.do("GET", "/api/v1/inquiries/abc", agent, ""), http.StatusNotFound, hitl.ENotFound)
	wantProblem(t, e.do("GET", "/api/v1/inquiries", "", ""), http.StatusUnauthorized, hitl.EUnauthorized)
	wantProblem(t, e.do("DELETE", path, agent, ""), http.StatusMethodNotAllowed, "method_not_allowed")
}

func TestUnknownQueryParametersOnListsAreRefused(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ path, name string }{
		{"/v1/inquiries?stauts=pending", "stauts"}, {"/v1/inquiries?status=pending&executoin=1", "executoin"},
		{"/v1/keys?all=1", "all"}, {"/v1/sessions?state=running", "state"}, {"/v1/events?types=x", "types"},
		{"/v1/deliveries?inquiry=1", "inquiry"}, {"/v1/webhooks?x=", "x"}, {"/v1/people?q=a", "q"}, {"/v1/groups?limit=1", "limit"},
		{"/v1/chat-webhooks?page=2", "page"}, {"/v1/sessions/s/inquiries?status=pending", "status"}, {"/v1/inquiries?metadata.=x", "metadata."},
	} {
		wantProblem(t, e.do("GET", tc.path, adminToken, ""), http.StatusBadRequest, hitl.EInvalid, fmt.Sprintf("unknown query parameter %q", tc.name))
	}
	// What the lists take still works.
	for _, path := range []string{"/v1/inquiries?status=pending&execution=1&metadata.team=ops&limit=5&order=deadline", "/v1/events?after=0&type=inquiry.created",
		"/v1/sessions?status=running&limit=1", "/v1/deliveries?status=pending", "/v1/keys"} {
		if r := e.do("GET", path, adminToken, ""); r.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, r.status, r.text)
		}
	}
}

// TestActionResultOnceAcrossNodes: the same execution's result, posted to three PostgreSQL
// nodes at once (a retrying worker, a redelivered message), creates one inquiry; identities
// given on one node hold on the others.
func TestActionResultOnceAcrossNodes(t *testing.T) {
	c := newCluster(t, 3)
	vic := c.nodes[0].identityOf(c.tokens.human)
	if got := c.nodes[2].identityOf(c.tokens.human); got != vic {
		t.Fatalf("vic has identity %d on node 0 and %d on node 2", vic, got)
	}
	body := fmt.Sprintf(`{"__inquiry":{"prompt":"Approve?","assigned_to":%d},"plan":{"v":1}}`, vic)
	var (
		wg            sync.WaitGroup
		mu            sync.Mutex
		created, same int
		ids           = map[any]bool{}
	)
	for i := range 30 {
		wg.Go(func() {
			r := c.nodes[i%3].do("POST", "/api/v1/executions/9001/result", c.tokens.agent, body)
			mu.Lock()
			defer mu.Unlock()
			switch r.status {
			case http.StatusCreated:
				created++
			case http.StatusOK:
				same++
			default:
				t.Errorf("node %d: %d %s", i%3, r.status, r.text)
				return
			}
			ids[r.body["data"].(map[string]any)["id"]] = true
		})
	}
	wg.Wait()
	if created != 1 || same != 29 || len(ids) != 1 {
		t.Fatalf("%d created, %d answered with the inquiry, %d inquiries", created, same, len(ids))
	}
	if n := len(c.events(t, hitl.EventInquiryCreated)); n != 1 {
		t.Fatalf("%d inquiry.created events", n)
	}
}

// Bulk answers are served in Attune's shape too (issue 27, 13a): POST
// /api/v1/inquiries/respond takes hitl's request and rules, its results the envelope's data.
func TestAttuneBulkRespond(t *testing.T) {
	e := newEnv(t)
	agent, alice, _, aliceID, bobID := e.executorAliceBob()
	var ids []int64
	for i, assignee := range []int64{aliceID, aliceID, bobID} {
		r := e.do("POST", fmt.Sprintf("/api/v1/executions/%d/result", 500+i), agent,
			fmt.Sprintf(`{"__inquiry":{"prompt":"Step %d?","assigned_to":%d,"response_schema":{"type":"object","properties":{"approved":{"type":"boolean"}},"required":["approved"]}}}`, i, assignee))
		if r.status != http.StatusCreated {
			t.Fatalf("execution %d: %d %s", 500+i, r.status, r.text)
		}
		ids = append(ids, int64(data(t, r)["id"].(float64)))
	}
	r := e.do("POST", "/api/v1/inquiries/respond", alice, fmt.Sprintf(`{"ids":[%d,%d,%d],"response":{"approved":true}}`, ids[0], ids[1], ids[2]))
	results, ok := r.body["data"].([]any)
	if r.status != http.StatusOK || !ok || len(results) != 3 {
		t.Fatalf("bulk answer: %d %s", r.status, r.text)
	}
	for i, want := range []string{"responded", "responded", "refused"} {
		res := results[i].(map[string]any)
		if res["id"] != float64(ids[i]) || res["status"] != want {
			t.Fatalf("result %d: %v, want %d %s", i, res, ids[i], want)
		}
	}
	if code := results[2].(map[string]any)["error"].(map[string]any)["code"]; code != hitl.ENotFound {
		t.Fatalf("bob's inquiry, which alice does not see, is refused as %v", code)
	}
	if d := data(t, e.do("GET", fmt.Sprintf("/api/v1/inquiries/%d", ids[1]), agent, "")); d["status"] != "responded" || fmt.Sprint(d["response"]) != "map[approved:true]" {
		t.Fatalf("after the bulk answer: %v", d)
	}
	wantProblem(t, e.do("POST", "/api/v1/inquiries/respond", alice, `{"response":{"approved":true}}`), http.StatusBadRequest, hitl.EInvalid)
	wantProblem(t, e.do("POST", "/api/v1/inquiries/respond", agent, fmt.Sprintf(`{"ids":[%d],"response":{"approved":true}}`, ids[2])), http.StatusForbidden, hitl.EForbidden)
}

// An __inquiry that gives no response_schema takes any JSON answer, as Attune's does (issue 27,
// 13c); hitl's own ways of asking keep their defaults: text on /v1, and an approval's shape for
// an __inquiry that says request_type approval.
func TestAttuneInquiryWithoutSchemaTakesAnyAnswer(t *testing.T) {
	e := newEnv(t)
	agent := e.token("attune-executor", "agent")
	alice := e.token("alice", "responder")
	ask := func(execution, inquiry string) string {
		t.Helper()
		r := e.do("POST", "/api/v1/executions/"+execution+"/result", agent, `{"__inquiry":`+inquiry+`}`)
		if r.status != http.StatusCreated {
			t.Fatalf("execution %s: %d %s", execution, r.status, r.text)
		}
		return fmt.Sprintf("/api/v1/inquiries/%.0f", data(t, r)["id"].(float64))
	}
	for i, answer := range []string{`{"regions":["eu"],"replicas":3}`, `42`, `"yes"`, `[true]`} {
		path := ask(fmt.Sprint(600+i), `{"prompt":"Plan?"}`)
		r := e.do("POST", path+"/respond", alice, `{"response":`+answer+`}`)
		if r.status != http.StatusOK {
			t.Fatalf("the answer %s: %d %s", answer, r.status, r.text)
		}
		if got, _ := json.Marshal(data(t, r)["response"]); string(got) != answer {
			t.Fatalf("the answer %s was recorded as %s", answer, got)
		}
	}
	path := ask("610", `{"prompt":"Ship?","request_type":"approval"}`)
	wantProblem(t, e.do("POST", path+"/respond", alice, `{"response":{"replicas":3}}`), http.StatusUnprocessableEntity, hitl.EInvalidResponse)
	r := e.do("POST", "/v1/inquiries", agent, `{"prompt":"Plan?"}`)
	if r.status != http.StatusCreated {
		t.Fatalf("POST /v1/inquiries: %d %s", r.status, r.text)
	}
	wantProblem(t, e.do("POST", fmt.Sprintf("/v1/inquiries/%.0f/respond", r.body["id"].(float64)), alice, `{"response":{"replicas":3}}`),
		http.StatusUnprocessableEntity, hitl.EInvalidResponse)
}

// A chain's steps name their approvers by integer identity as assigned_to does (issue 27, 13d):
// hitl stores the names, and refuses an identity nobody holds at its path.
func TestChainStepsTakeIntegerIdentities(t *testing.T) {
	e := newEnv(t)
	agent, _, _, aliceID, bobID := e.executorAliceBob()
	r := e.do("POST", "/v1/inquiries", agent, fmt.Sprintf(`{"prompt":"Release?","request_type":"approval","steps":[{"assigned_to":%d},{"assigned_to":[%d,"group:sre"]}]}`, aliceID, bobID))
	if r.status != http.StatusCreated {
		t.Fatalf("a chain by identities: %d %s", r.status, r.text)
	}
	steps, _ := json.Marshal(r.body["steps"])
	if !strings.Contains(string(steps), `"assigned_to":["alice"]`) || !strings.Contains(string(steps), `"assigned_to":["bob","group:sre"]`) ||
		fmt.Sprint(r.body["assigned_to"]) != "[alice]" {
		t.Fatalf("the steps are stored by name: %s", r.text)
	}
	r = e.do("POST", "/api/v1/executions/700/result", agent, fmt.Sprintf(`{"__inquiry":{"prompt":"Release?","request_type":"approval","steps":[{"assigned_to":[%d]},{"assigned_to":[%d]}]}}`, bobID, aliceID))
	if r.status != http.StatusCreated || data(t, r)["assigned_to"] != float64(bobID) {
		t.Fatalf("a chain by identities from an action's result: %d %s", r.status, r.text)
	}
	wantProblem(t, e.do("POST", "/v1/inquiries", agent, fmt.Sprintf(`{"prompt":"Release?","request_type":"approval","steps":[{"assigned_to":%d},{"assigned_to":[987654]}]}`, aliceID)),
		http.StatusBadRequest, hitl.EInvalid, "/steps/1/assigned_to/0", "no principal has identity 987654")
	wantProblem(t, e.do("POST", "/v1/inquiries", agent, fmt.Sprintf(`{"prompt":"Release?","request_type":"approval","steps":[{"assigned_to":[%d,"alice"]}]}`, aliceID)),
		http.StatusBadRequest, hitl.EInvalid, "/steps/0/assigned_to", "lists an entry twice")
}
