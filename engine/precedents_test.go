package engine_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
)

// TestPrecedents: answer memory lists the answered inquiries of the same template, or of the
// same tool with arguments of the same top-level names, newest first, at most five, and only
// those the viewer may see; an inquiry the viewer may not see is not found.
func TestPrecedents(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	putTemplate(t, e, "deploy", hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{
		Prompt: "Deploy {{.v}}?", RequestType: hitl.RequestApproval}})
	bob := &hitl.Principal{Name: "bob", Roles: []string{hitl.RoleResponder}}
	ask := func(req *hitl.InquiryRequest) *hitl.Inquiry { t.Helper(); return created(t, e, req) }
	answer := func(who *hitl.Principal, inq *hitl.Inquiry, resp, comment string) {
		t.Helper()
		c.Advance(time.Minute)
		if _, err := e.Respond(ctx, who, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(resp), Comment: comment}); err != nil {
			t.Fatal(err)
		}
	}
	tool := func(args string, to ...string) *hitl.InquiryRequest {
		return &hitl.InquiryRequest{Prompt: "Run it?", RequestType: hitl.RequestApproval, AssignedTo: to,
			ToolCall:         &hitl.ToolCall{ID: "c", Name: "drop_table", Arguments: json.RawMessage(args)},
			AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionReject}}
	}
	deploy := func(v string) *hitl.InquiryRequest {
		return &hitl.InquiryRequest{Template: "deploy", Vars: json.RawMessage(`{"v":"` + v + `"}`)}
	}

	// Seven deploys answered: the newest five are shown, newest first.
	var deploys []int64
	for i := range 7 {
		inq := ask(deploy("v" + string(rune('1'+i))))
		answer(human, inq, `{"approved":true}`, "fine "+string(rune('1'+i)))
		deploys = append(deploys, inq.ID)
	}
	// Tool calls: same shape, another shape, same shape but only bob may see it, still pending.
	same := ask(tool(`{"table":"users","cascade":true}`))
	answer(human, same, `{"decision":"reject","message":"not users"}`, "never users")
	other := ask(tool(`{"table":"users"}`))
	answer(human, other, `{"decision":"approve"}`, "")
	hidden := ask(tool(`{"cascade":false,"table":"logs"}`, "bob"))
	answer(bob, hidden, `{"decision":"approve"}`, "bob's")
	ask(tool(`{"table":"x","cascade":true}`))

	now := ask(deploy("v9"))
	got, err := e.Precedents(ctx, human, now.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Precedents) != hitl.MaxPrecedents {
		t.Fatalf("%d precedents: %+v", len(got.Precedents), got.Precedents)
	}
	for i, p := range got.Precedents {
		want := deploys[len(deploys)-1-i]
		if p.InquiryID != want || p.Match != hitl.PrecedentTemplate || p.RespondedBy != "ann" || p.Comment == "" ||
			string(p.Response) != `{"approved":true}` || p.RespondedAt.IsZero() {
			t.Errorf("precedent %d: %+v, want inquiry %d", i, p, want)
		}
	}
	if got.Precedents[0].Comment != "fine 7" || !got.Precedents[0].RespondedAt.Equal(time.Date(2026, 11, 22, 10, 7, 0, 0, time.UTC)) {
		t.Errorf("newest: %+v", got.Precedents[0])
	}

	call := ask(tool(`{"cascade":true,"table":"orders"}`))
	for _, w := range []struct {
		who  *hitl.Principal
		want []int64
	}{{human, []int64{same.ID}}, {bob, []int64{hidden.ID, same.ID}}} {
		got, err := e.Precedents(ctx, w.who, call.ID)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, p := range got.Precedents {
			ids = append(ids, p.InquiryID)
			if p.Match != hitl.PrecedentTool {
				t.Errorf("%s: %+v", w.who.Name, p)
			}
		}
		if len(ids) != len(w.want) || (len(ids) > 0 && ids[0] != w.want[0]) {
			t.Errorf("%s sees %v, want %v", w.who.Name, ids, w.want)
		}
		if w.who == human && (got.Precedents[0].Decision != hitl.DecisionReject || got.Precedents[0].Comment != "never users") {
			t.Errorf("decision: %+v", got.Precedents[0])
		}
	}

	// No template and no tool: nothing is alike. Another's inquiry is not found.
	plain := ask(&hitl.InquiryRequest{Prompt: "Lunch?", RequestType: hitl.RequestApproval})
	if got, err := e.Precedents(ctx, human, plain.ID); err != nil || got.Precedents == nil || len(got.Precedents) != 0 {
		t.Fatalf("plain: %+v %v", got, err)
	}
	mine := ask(tool(`{"table":"t"}`, "bob"))
	if _, err := e.Precedents(ctx, human, mine.ID); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("invisible: %v", err)
	}
	if _, err := e.Precedents(ctx, human, 99999); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("unknown: %v", err)
	}
}

// created is the inquiry the agent asks with req.
func created(t *testing.T, e *engine.Engine, req *hitl.InquiryRequest) *hitl.Inquiry {
	t.Helper()
	inq, _, err := e.CreateInquiry(ctx, agent, req, "")
	if err != nil {
		t.Fatal(err)
	}
	return inq
}
