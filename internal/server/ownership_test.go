package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// sessionRoutes are every call that names a session, with a body each accepts.
var sessionRoutes = []struct{ method, path, body string }{
	{"PUT", "/v1/sessions/%s", `{"agent":"x","state":{"taken":true}}`},
	{"GET", "/v1/sessions/%s", ``},
	{"GET", "/v1/sessions/%s/inquiries", ``},
	{"POST", "/v1/inquiries", `{"prompt":"Mine now?","session":"%s"}`},
	{"POST", "/v1/inquiries", `{"prompt":"Mine alone?","session":"%s","exclusive":true}`},
	{"POST", "/v1/sessions/%s/complete", `{"result":{"done":true}}`},
	{"POST", "/v1/sessions/%s/fail", `{"error":"broken"}`},
	{"POST", "/v1/sessions/%s/cancel", ``},
}

// TestASessionBelongsToItsAgent: another agent may not ask in an agent's session, put, read,
// complete, fail or cancel it; to that agent it does not exist. Its agent goes on undisturbed,
// and admins keep full access.
func TestASessionBelongsToItsAgent(t *testing.T) {
	e := newEnv(t)
	owner := e.principal("bot1", []string{"agent"})
	intruder := e.token("bot2", "agent")
	_, err := owner.PutSession(ctx, "run-1", &hitl.SessionRequest{Agent: "planner", State: json.RawMessage(`{"step":1}`),
		Metadata: map[string]string{"ticket": "T-1"}})
	must(t, err)

	for _, rt := range sessionRoutes {
		r := e.do(rt.method, strings.ReplaceAll(rt.path, "%s", "run-1"), intruder, strings.ReplaceAll(rt.body, "%s", "run-1"))
		if r.status != http.StatusNotFound || !strings.Contains(r.text, "session run-1 not found") || strings.Contains(r.text, "bot1") {
			t.Errorf("bot2: %s %s: %d %s", rt.method, strings.ReplaceAll(rt.path, "%s", "run-1"), r.status, r.text)
		}
	}
	list := e.do("GET", "/v1/sessions", intruder, "")
	if data := list.body["data"].([]any); list.status != http.StatusOK || len(data) != 0 {
		t.Errorf("bot2 lists %s", list.text)
	}

	// Nothing bot2 tried changed anything: bot1's exclusive ask goes through, and the session
	// is as bot1 left it.
	q := ask(t, owner, hitl.InquiryRequest{Prompt: "Go on?", RequestType: hitl.RequestApproval, Session: "run-1", Exclusive: true})
	s, err := owner.Session(ctx, "run-1")
	must(t, err)
	if s.Status != hitl.SessionAwaitingInput || s.InquiriesAsked != 1 || s.Agent != "planner" || string(s.State) != `{"step":1}` {
		t.Fatalf("bot1's session after bot2 tried: %+v", s)
	}
	hist, err := owner.SessionInquiries(ctx, "run-1")
	must(t, err)
	if len(hist) != 1 || hist[0].ID != q.ID {
		t.Fatalf("run-1's inquiries: %d", len(hist))
	}

	// An admin sees and may do everything.
	s, err = e.Admin.Session(ctx, "run-1")
	must(t, err)
	if string(s.State) != `{"step":1}` || s.Metadata["ticket"] != "T-1" {
		t.Fatalf("the admin's view: %+v", s)
	}
	_, err = e.Admin.PutSession(ctx, "run-1", &hitl.SessionRequest{Metadata: map[string]string{"ticket": "T-2"}})
	must(t, err)
	_, err = e.Admin.Respond(ctx, q.ID, json.RawMessage(`{"approved":true}`), "")
	must(t, err)
	ask(t, e.Admin, hitl.InquiryRequest{Prompt: "An admin asks too", Session: "run-1"})
	if hist, err = e.Admin.SessionInquiries(ctx, "run-1"); err != nil || len(hist) != 2 {
		t.Fatalf("the admin's history: %d, %v", len(hist), err)
	}
	s, err = e.Admin.CompleteSession(ctx, "run-1", json.RawMessage(`{"ok":true}`))
	must(t, err)
	if s.Status != hitl.SessionCompleted || s.PendingInquiries != 0 {
		t.Fatalf("completed by the admin: %+v", s)
	}

	// An agent that is also a responder sees the session's status, not its state, and may not
	// change it or ask in it.
	both := e.token("bot3", "agent", "responder")
	_, err = owner.PutSession(ctx, "run-4", &hitl.SessionRequest{State: json.RawMessage(`{"plan":"secret"}`)})
	must(t, err)
	r := e.do("GET", "/v1/sessions/run-4", both, "")
	if r.status != http.StatusOK || r.body["status"] != "running" || strings.Contains(r.text, "secret") {
		t.Errorf("an agent and responder reads another's session: %d %s", r.status, r.text)
	}
	for _, rt := range sessionRoutes {
		if rt.method == "GET" {
			continue
		}
		r := e.do(rt.method, strings.ReplaceAll(rt.path, "%s", "run-4"), both, strings.ReplaceAll(rt.body, "%s", "run-4"))
		if r.status != http.StatusForbidden {
			t.Errorf("bot3: %s %s: %d %s", rt.method, strings.ReplaceAll(rt.path, "%s", "run-4"), r.status, r.text)
		}
	}
	if s, err = owner.Session(ctx, "run-4"); err != nil || s.InquiriesAsked != 0 || string(s.State) != `{"plan":"secret"}` {
		t.Fatalf("run-4 after bot3 tried: %+v %v", s, err)
	}
}

// TestASessionKeyOnceTakenStaysTaken: keys are one namespace; a key another agent created
// first, by putting the session or by asking in it, is not found to everyone else, with a
// message that says to choose another key. Nothing of the other agent's session leaks.
func TestASessionKeyOnceTakenStaysTaken(t *testing.T) {
	e := newEnv(t)
	first := e.principal("early-bot", []string{"agent"})
	late := e.principal("late-bot", []string{"agent"})
	_, err := first.PutSession(ctx, "nightly", &hitl.SessionRequest{State: json.RawMessage(`{"secret":1}`)})
	must(t, err)
	ask(t, first, hitl.InquiryRequest{Prompt: "Taken by asking?", Session: "by-asking"})

	for _, key := range []string{"nightly", "by-asking"} {
		for _, err := range []error{
			second(late.PutSession(ctx, key, &hitl.SessionRequest{Agent: "late"})),
			second3(late.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Mine?", Session: key}, client.CreateOptions{})),
		} {
			ce := wantCode(t, err, hitl.ENotFound)
			if !strings.Contains(ce.Detail, "session "+key+" not found") || !strings.Contains(ce.Detail, "choose another key") ||
				strings.Contains(ce.Detail, "early-bot") {
				t.Errorf("late-bot on %s: %q", key, ce.Detail)
			}
		}
	}
	s, err := first.Session(ctx, "nightly")
	must(t, err)
	if s.InquiriesAsked != 0 || s.Agent != "" || string(s.State) != `{"secret":1}` {
		t.Fatalf("the first agent's session after another tried to take its key: %+v", s)
	}
	// Another key is free.
	if _, err := late.PutSession(ctx, "nightly-2", &hitl.SessionRequest{}); err != nil {
		t.Fatal(err)
	}
}

// TestWhatAResponderMayNotSeeIsNotFound: a responder an inquiry is not assigned to gets not
// found from every route that names it, REST and MCP, never a refusal naming the assignees.
// Who sees an inquiry is still told why it may not act on it.
func TestWhatAResponderMayNotSeeIsNotFound(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval,
		AssignedTo: []string{"alice", "group:secret-team"}})
	bob := e.token("bob", "responder")
	alice := e.token("alice", "responder")
	path := fmt.Sprintf("/v1/inquiries/%d", inq.ID)

	for _, rt := range []struct{ method, path, body string }{
		{"GET", path, ``},
		{"GET", path + "/wait?timeout=0s", ``},
		{"POST", path + "/respond", `{"response":{"approved":true}}`},
		{"POST", path + "/cancel", `{"reason":"no"}`},
		{"POST", path + "/links", `{"for":"bob"}`},
	} {
		r := e.do(rt.method, rt.path, bob, rt.body)
		if r.status != http.StatusNotFound || strings.Contains(r.text, "alice") || strings.Contains(r.text, "secret-team") {
			t.Errorf("bob: %s %s: %d %s", rt.method, rt.path, r.status, r.text)
		}
	}
	s, err := mcpSession(t, e, bob, nil)
	must(t, err)
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "respond_to_inquiry", Arguments: map[string]any{"inquiry_id": inq.ID, "response": map[string]any{"approved": true}}})
	if text := toolErrorText(t, res, err); !strings.Contains(text, "not found") || strings.Contains(text, "alice") || strings.Contains(text, "secret-team") {
		t.Errorf("bob over MCP: %q", text)
	}

	// Those who see it hear why they may not do what they asked.
	if r := e.do("POST", path+"/cancel", alice, `{}`); r.status != http.StatusForbidden {
		t.Errorf("the assignee cancels: %d %s", r.status, r.text)
	}
	if r := e.do("POST", path+"/links", alice, `{"for":"alice"}`); r.status != http.StatusForbidden {
		t.Errorf("the assignee makes a link: %d %s", r.status, r.text)
	}
	if r := e.do("POST", path+"/respond", e.token("bot", "agent"), `{"response":{"approved":true}}`); r.status != http.StatusForbidden || !strings.Contains(r.text, "responder role") {
		t.Errorf("the asking agent answers: %d %s", r.status, r.text)
	}
	if r := e.do("POST", path+"/respond", adminToken, `{"response":{"approved":true}}`); r.status != http.StatusForbidden || !strings.Contains(r.text, "alice") {
		t.Errorf("an admin answers another's inquiry: %d %s", r.status, r.text)
	}
	got, err := clientFor(e, alice).Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), "")
	must(t, err)
	if got.Status != hitl.StatusResponded {
		t.Fatalf("the assignee's answer: %+v", got)
	}
}

// TestRespondersDoNotSeeASessionsState: responders see a session's status and the inquiries in
// it they may see, over REST and in the inbox, never its state, metadata, result, error or
// callback URL.
func TestRespondersDoNotSeeASessionsState(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	responder := e.token("hal", "responder")
	_, err := agent.PutSession(ctx, "run-5", &hitl.SessionRequest{Agent: "planner", State: json.RawMessage(`{"api_key":"sk-hidden-state"}`),
		Metadata: map[string]string{"customer": "hidden-customer"}})
	must(t, err)
	q := ask(t, agent, hitl.InquiryRequest{Prompt: "Which plan?", Session: "run-5"})

	hidden := []string{"sk-hidden-state", "hidden-customer", "customer", "hidden-result"}
	shows := func(text string) []string {
		var out []string
		for _, h := range hidden {
			if strings.Contains(text, h) {
				out = append(out, h)
			}
		}
		return out
	}
	check := func(when string) {
		t.Helper()
		r := e.do("GET", "/v1/sessions/run-5", responder, "")
		if r.status != http.StatusOK || r.body["key"] != "run-5" || r.body["state"] != nil || len(shows(r.text)) > 0 {
			t.Errorf("%s: GET as a responder: %d %s", when, r.status, r.text)
		}
		r = e.do("GET", "/v1/sessions", responder, "")
		if data, _ := r.body["data"].([]any); r.status != http.StatusOK || len(data) != 1 || len(shows(r.text)) > 0 {
			t.Errorf("%s: the list as a responder: %d %s", when, r.status, r.text)
		}
		r = e.do("GET", "/v1/sessions/run-5/inquiries", responder, "")
		if data, _ := r.body["data"].([]any); r.status != http.StatusOK || len(data) != 1 || len(shows(r.text)) > 0 {
			t.Errorf("%s: the inquiries as a responder: %d %s", when, r.status, r.text)
		}
		r = e.do("GET", "/v1/events?session=run-5", responder, "")
		if r.status != http.StatusOK || strings.Contains(r.text, "session.") || len(shows(r.text)) > 0 {
			t.Errorf("%s: the events as a responder: %d %s", when, r.status, r.text)
		}
		page := e.do("GET", "/sessions/run-5", "", "", "Cookie", "hitl_session="+e.inboxSession(responder))
		if page.status != http.StatusOK || !strings.Contains(page.text, "Which plan?") || len(shows(page.text)) > 0 {
			t.Errorf("%s: the session page for a responder: %d, shows %v", when, page.status, shows(page.text))
		}
		// Its owner and admins see it all.
		admin := e.do("GET", "/sessions/run-5", "", "", "Cookie", "hitl_session="+e.inboxSession(adminToken))
		if admin.status != http.StatusOK || !strings.Contains(admin.text, "hidden-customer") {
			t.Errorf("%s: the session page for an admin: %d", when, admin.status)
		}
	}
	check("running")
	if r := e.do("GET", "/v1/sessions/run-5", responder, ""); r.body["status"] != "awaiting_input" {
		t.Errorf("a responder does not see the status: %s", r.text)
	}

	_, err = clientFor(e, responder).Respond(ctx, q.ID, json.RawMessage(`"pro"`), "")
	must(t, err)
	_, err = agent.CompleteSession(ctx, "run-5", json.RawMessage(`{"summary":"hidden-result"}`))
	must(t, err)
	check("completed")
	if r := e.do("GET", "/v1/sessions/run-5", responder, ""); r.body["status"] != "completed" || r.body["result"] != nil {
		t.Errorf("a responder's view of the completed session: %s", r.text)
	}
	s, err := agent.Session(ctx, "run-5")
	must(t, err)
	if string(s.Result) != `{"summary":"hidden-result"}` || s.Metadata["customer"] != "hidden-customer" {
		t.Fatalf("the owner's view: %+v", s)
	}
}

// inboxSession signs in to the web inbox with token and returns the session cookie's value.
func (e *env) inboxSession(token string) string {
	e.t.Helper()
	hc := webClient(e.t, "127.0.0.1")
	e.signIn(hc, token)
	u, _ := url.Parse(e.URL)
	for _, c := range hc.Jar.Cookies(u) {
		if c.Name == "hitl_session" && c.Value != "" {
			return c.Value
		}
	}
	e.t.Fatal("signing in set no session cookie")
	return ""
}

// A responder's view of a session counts the questions it may see, not those kept from it.
func TestASessionsCountsAreOfWhatTheResponderMaySee(t *testing.T) {
	e := newEnv(t)
	agent := e.principal("bot", []string{"agent"})
	hal := e.token("hal", "responder")
	ask(t, agent, hitl.InquiryRequest{Prompt: "For hal", Session: "run-6", AssignedTo: []string{"hal"}})
	ask(t, agent, hitl.InquiryRequest{Prompt: "For someone else", Session: "run-6", AssignedTo: []string{"kim"}})
	ask(t, agent, hitl.InquiryRequest{Prompt: "For kim too", Session: "run-6", AssignedTo: []string{"kim"}})

	counts := func(body map[string]any) string {
		return fmt.Sprintf("%v asked, %v pending", body["inquiries_asked"], body["pending_inquiries"])
	}
	if r := e.do("GET", "/v1/sessions/run-6", hal, ""); r.status != http.StatusOK || counts(r.body) != "1 asked, 1 pending" {
		t.Errorf("hal's view: %d %s", r.status, r.text)
	}
	r := e.do("GET", "/v1/sessions", hal, "")
	if data, _ := r.body["data"].([]any); len(data) != 1 || counts(data[0].(map[string]any)) != "1 asked, 1 pending" {
		t.Errorf("hal's list: %s", r.text)
	}
	if r := e.do("GET", "/v1/sessions/run-6", adminToken, ""); counts(r.body) != "3 asked, 3 pending" {
		t.Errorf("the admin's view: %s", r.text)
	}
}

// A name is one principal: a key may not give a name that another key holds other powers
// (an agent key named admin would own what the admin created).
func TestAKeyNameIsOnePrincipal(t *testing.T) {
	e := newEnv(t)
	_, err := e.Admin.CreateKey(ctx, &hitl.KeyRequest{Name: "admin", Roles: []string{hitl.RoleAgent}})
	if ce := wantCode(t, err, hitl.EConflict); !strings.Contains(ce.Detail, "admin already has a key") || !strings.Contains(ce.Detail, "with the role admin and no groups;") {
		t.Fatalf("an agent key named admin: %v", err)
	}
	e.token("bot", hitl.RoleAgent)
	_, err = e.Admin.CreateKey(ctx, &hitl.KeyRequest{Name: "bot", Roles: []string{hitl.RoleAgent, hitl.RoleResponder}})
	wantCode(t, err, hitl.EConflict)
	// A second credential for the same principal, to rotate the first, is fine.
	if _, err := e.Admin.CreateKey(ctx, &hitl.KeyRequest{Name: "bot", Roles: []string{hitl.RoleAgent}}); err != nil {
		t.Fatalf("a second key for bot: %v", err)
	}
}
