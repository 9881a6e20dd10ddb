package engine_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
)

var (
	otherAgent        = &hitl.Principal{Name: "bot2", Roles: []string{hitl.RoleAgent}}
	alice             = &hitl.Principal{Name: "alice", Roles: []string{hitl.RoleResponder}}
	bob               = &hitl.Principal{Name: "bob", Roles: []string{hitl.RoleResponder}}
	admin             = &hitl.Principal{Name: "root", Roles: []string{hitl.RoleAdmin}}
	agentAndResponder = &hitl.Principal{Name: "bot3", Roles: []string{hitl.RoleAgent, hitl.RoleResponder}}
)

// TestWhoMayDoWhatWithAnInquiry: what a principal may not see is not found on every call; what
// it sees but may not do is forbidden.
func TestWhoMayDoWhatWithAnInquiry(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	keyFor(t, e, alice) // the person of the links
	keyFor(t, e, admin) // their maker
	ops := []struct {
		name string
		do   func(p *hitl.Principal, id int64) error
	}{
		{"read", func(p *hitl.Principal, id int64) error { _, err := e.Inquiry(ctx, p, id); return err }},
		{"respond", func(p *hitl.Principal, id int64) error {
			_, err := e.Respond(ctx, p, id, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`)})
			return err
		}},
		{"cancel", func(p *hitl.Principal, id int64) error { _, err := e.Cancel(ctx, p, id, ""); return err }},
		{"link", func(p *hitl.Principal, id int64) error {
			_, err := e.CreateAnswerLink(ctx, p, id, &hitl.AnswerLinkRequest{For: "alice"})
			return err
		}},
	}
	const ok, forbidden, notFound = "", hitl.EForbidden, hitl.ENotFound
	for _, tc := range []struct {
		p    *hitl.Principal
		want []string // read, respond, cancel, link
	}{
		{agent, []string{ok, forbidden, ok, forbidden}}, // a link for another is a relay
		{otherAgent, []string{notFound, notFound, notFound, notFound}},
		{alice, []string{ok, ok, forbidden, forbidden}},
		{bob, []string{notFound, notFound, notFound, notFound}},
		{admin, []string{ok, forbidden, ok, ok}}, // an admin sees it, and is not an assignee
	} {
		for i, op := range ops {
			inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval,
				AssignedTo: []string{"alice"}}, "")
			if err != nil {
				t.Fatal(err)
			}
			err = op.do(tc.p, inq.ID)
			if got := hitl.ErrorCode(err); got != tc.want[i] {
				t.Errorf("%s: %s: %v, want %q", tc.p.Name, op.name, err, tc.want[i])
			}
			if hitl.ErrorCode(err) == notFound && strings.Contains(err.Error(), "alice") {
				t.Errorf("%s: %s names the assignee: %v", tc.p.Name, op.name, err)
			}
		}
	}
	if !engine.CanAnswer(alice) || !engine.CanAnswer(admin) || engine.CanAnswer(agent) {
		t.Error("CanAnswer: responders and admins, not agents")
	}
}

// TestWhoMayDoWhatWithASession: a session is its creator's (and admins'); responders read its
// status but not its state; to other agents it does not exist.
func TestWhoMayDoWhatWithASession(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	ops := []struct {
		name string
		do   func(p *hitl.Principal, key string) error
	}{
		{"read", func(p *hitl.Principal, key string) error { _, err := e.Session(ctx, p, key); return err }},
		{"inquiries", func(p *hitl.Principal, key string) error { _, err := e.SessionInquiries(ctx, p, key); return err }},
		{"put", func(p *hitl.Principal, key string) error {
			_, _, err := e.PutSession(ctx, p, key, &hitl.SessionRequest{State: json.RawMessage(`{"x":1}`)})
			return err
		}},
		{"ask", func(p *hitl.Principal, key string) error {
			_, _, err := e.CreateInquiry(ctx, p, &hitl.InquiryRequest{Prompt: "Next?", Session: key, Exclusive: true}, "")
			return err
		}},
		{"finish", func(p *hitl.Principal, key string) error {
			_, err := e.FinishSession(ctx, p, key, engine.SessionEnd{Status: hitl.SessionCancelled})
			return err
		}},
	}
	const ok, forbidden, notFound = "", hitl.EForbidden, hitl.ENotFound
	n := 0
	for _, tc := range []struct {
		p    *hitl.Principal
		want []string // read, inquiries, put, ask, finish
	}{
		{agent, []string{ok, ok, ok, ok, ok}},
		{otherAgent, []string{notFound, notFound, notFound, notFound, notFound}},
		{bob, []string{ok, ok, forbidden, forbidden, forbidden}}, // responders do not ask
		{agentAndResponder, []string{ok, ok, forbidden, forbidden, forbidden}},
		{admin, []string{ok, ok, ok, ok, ok}},
	} {
		for i, op := range ops {
			n++
			key := fmt.Sprintf("run-%d", n)
			if _, _, err := e.PutSession(ctx, agent, key, &hitl.SessionRequest{State: json.RawMessage(`{"secret":1}`),
				Metadata: map[string]string{"customer": "acme"}}); err != nil {
				t.Fatal(err)
			}
			err := op.do(tc.p, key)
			if got := hitl.ErrorCode(err); got != tc.want[i] {
				t.Errorf("%s: %s: %v, want %q", tc.p.Name, op.name, err, tc.want[i])
			}
			if hitl.ErrorCode(err) == notFound && strings.Contains(err.Error(), agent.Name) {
				t.Errorf("%s: %s names the owner: %v", tc.p.Name, op.name, err)
			}
			s, err := e.Session(ctx, agent, key)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want[i] != ok && (string(s.State) != `{"secret":1}` || s.InquiriesAsked != 0 || s.Status.Finished()) {
				t.Errorf("%s: %s changed the session: %+v", tc.p.Name, op.name, s)
			}
		}
	}

	// What each sees of a session: its owner and admins all of it, responders its status.
	if _, _, err := e.PutSession(ctx, agent, "seen", &hitl.SessionRequest{State: json.RawMessage(`{"secret":1}`),
		Metadata: map[string]string{"customer": "acme"}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*hitl.Principal{agent, admin, bob, agentAndResponder} {
		s, err := e.Session(ctx, p, "seen")
		if err != nil {
			t.Fatal(err)
		}
		list, _, err := e.Sessions(ctx, p, hitl.SessionFilter{Page: hitl.Page{Limit: 100}})
		if err != nil {
			t.Fatal(err)
		}
		full := p == agent || p == admin
		for _, s := range append(list, s) {
			if s.Key == "seen" && (string(s.State) == `{"secret":1}` && s.Metadata["customer"] == "acme") != full {
				t.Errorf("%s sees %+v", p.Name, s)
			}
		}
	}
	if list, _, _ := e.Sessions(ctx, otherAgent, hitl.SessionFilter{Page: hitl.Page{Limit: 100}}); len(list) != 0 {
		t.Errorf("another agent lists %d sessions", len(list))
	}
}

// TestMayAnswerInClient: only a key that may answer the inquiry by the rules of every answer
// may be asked it in its own MCP client; an agent's key is refused, and so is the asker that
// separation of duties keeps out.
func TestMayAnswerInClient(t *testing.T) {
	agent := &hitl.Principal{Name: "bot", Roles: []string{hitl.RoleAgent}}
	ann := &hitl.Principal{Name: "ann", Roles: []string{hitl.RoleAgent, hitl.RoleResponder}, Groups: []string{"ops"}}
	for _, c := range []struct {
		name string
		p    *hitl.Principal
		inq  *hitl.Inquiry
		want string // "" allowed, else part of the refusal
	}{
		{"an agent's key, before asking", agent, nil, "responder role"},
		{"an agent's key", agent, &hitl.Inquiry{ID: 1, CreatedBy: "bot"}, "responder role"},
		{"a person's key, before asking", ann, nil, ""},
		{"unassigned", ann, &hitl.Inquiry{ID: 1, CreatedBy: "ann"}, ""},
		{"assigned to its group", ann, &hitl.Inquiry{ID: 1, CreatedBy: "ann", AssignedTo: []string{"group:ops"}}, ""},
		{"assigned to another", ann, &hitl.Inquiry{ID: 1, CreatedBy: "ann", AssignedTo: []string{"bob"}}, "assigned to bob"},
		{"separation of duties", ann, &hitl.Inquiry{ID: 1, CreatedBy: "ann", ExcludeRequester: true}, "separation of duties"},
	} {
		err := engine.MayAnswerInClient(c.p, c.inq)
		if (c.want == "") != (err == nil) || (err != nil && (!strings.Contains(err.Error(), c.want) || hitl.ErrorCode(err) != hitl.EForbidden)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
