package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/internal/wording"
)

func responder(name string, groups ...string) *hitl.Principal {
	return &hitl.Principal{Name: name, Roles: []string{hitl.RoleResponder}, Groups: groups}
}

// keys gives each name a responder key carrying groups, so that groups have members.
func keys(t *testing.T, e *engine.Engine, groups []string, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := e.CreateKey(ctx, admin, &hitl.KeyRequest{Name: n, Roles: []string{hitl.RoleResponder}, Groups: groups}); err != nil {
			t.Fatal(err)
		}
	}
}

func approve(yes bool, comment string) *hitl.ResponseRequest {
	b, _ := json.Marshal(map[string]any{"approved": yes})
	return &hitl.ResponseRequest{Response: b, Comment: comment}
}

func outcome(t *testing.T, inq *hitl.Inquiry) hitl.VoteOutcome {
	t.Helper()
	var o hitl.VoteOutcome
	if err := json.Unmarshal(inq.Response, &o); err != nil {
		t.Fatalf("response %s: %v", inq.Response, err)
	}
	return o
}

func wantCode(t *testing.T, err error, code string, contains string) {
	t.Helper()
	if hitl.ErrorCode(err) != code || !strings.Contains(err.Error(), contains) {
		t.Fatalf("got %v (%s), want %s containing %q", err, hitl.ErrorCode(err), code, contains)
	}
}

func TestQuorumNeedsRequiredDistinctApprovals(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "deploy?", RequestType: hitl.RequestApproval,
		AssignedTo: []string{"ann", "bob", "cy"}, Quorum: &hitl.Quorum{Required: 2}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !inq.ExcludeRequester || inq.Quorum.Reject.Count != 1 {
		t.Fatalf("a quorum excludes its requester and rejects on any rejection by default: %+v", inq)
	}
	first, err := e.Respond(ctx, responder("ann"), inq.ID, approve(true, "fine"))
	if err != nil {
		t.Fatal(err)
	}
	if first.Status != hitl.StatusPending || len(first.Votes) != 1 || first.Votes[0].By != "ann" || first.Votes[0].Comment != "fine" {
		t.Fatalf("after one of two approvals: %+v", first)
	}
	if wording.Progress(first) != "1 of 2 approvals" {
		t.Fatalf("progress %q", wording.Progress(first))
	}
	// The same vote again is a safe retry; a different one is a conflict.
	if again, err := e.Respond(ctx, responder("ann"), inq.ID, approve(true, "fine")); err != nil || len(again.Votes) != 1 {
		t.Fatalf("same vote again: %v %+v", err, again)
	}
	_, err = e.Respond(ctx, responder("ann"), inq.ID, approve(false, ""))
	wantCode(t, err, hitl.EConflict, "ann already approved")
	// Nobody outside the assignees votes.
	_, err = e.Respond(ctx, responder("dan"), inq.ID, approve(true, ""))
	wantCode(t, err, hitl.ENotFound, "not found")

	final, err := e.Respond(ctx, responder("bob"), inq.ID, approve(true, ""))
	if err != nil {
		t.Fatal(err)
	}
	o := outcome(t, final)
	if final.Status != hitl.StatusResponded || !o.Approved || len(o.Votes) != 2 || *final.RespondedBy != "bob" {
		t.Fatalf("after two approvals: %s %+v", final.Status, o)
	}
	_, err = e.Respond(ctx, responder("cy"), inq.ID, approve(true, ""))
	wantCode(t, err, hitl.EConflict, "already answered")
	if again, err := e.Respond(ctx, responder("bob"), inq.ID, approve(true, "")); err != nil || again.Status != hitl.StatusResponded {
		t.Fatalf("the deciding vote again: %v", err)
	}
	voted, err := e.Events(ctx, admin, hitl.EventFilter{InquiryID: inq.ID, Types: []string{hitl.EventInquiryVoted}, Limit: 10})
	if err != nil || len(voted) != 2 {
		t.Fatalf("%d inquiry.voted events (%v), want 2", len(voted), err)
	}
}

func TestQuorumRejectRules(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	keys(t, e, []string{"sre"}, "a1", "a2", "a3", "a4", "a5")
	ask := func(reject string, required int, assigned ...string) *hitl.Inquiry {
		t.Helper()
		var q hitl.Quorum
		if err := json.Unmarshal([]byte(`{"required":`+string(rune('0'+required))+`,"reject":`+reject+`}`), &q); err != nil {
			t.Fatal(err)
		}
		inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", RequestType: hitl.RequestApproval,
			AssignedTo: assigned, Quorum: &q}, "")
		if err != nil {
			t.Fatal(err)
		}
		return inq
	}
	vote := func(inq *hitl.Inquiry, who string, yes bool) *hitl.Inquiry {
		t.Helper()
		out, err := e.Respond(ctx, responder(who, "sre"), inq.ID, approve(yes, ""))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// any: the first rejection ends it.
	inq := ask(`"any"`, 2, "group:sre")
	vote(inq, "a1", true)
	if out := vote(inq, "a2", false); out.Status != hitl.StatusResponded || outcome(t, out).Approved {
		t.Fatalf("any: %s %s", out.Status, out.Response)
	}
	// 2 rejections: one is not enough.
	inq = ask(`2`, 3, "group:sre")
	if out := vote(inq, "a1", false); out.Status != hitl.StatusPending {
		t.Fatalf("1 of 2 rejections ended it")
	}
	if out := vote(inq, "a2", false); out.Status != hitl.StatusResponded || outcome(t, out).Approved {
		t.Fatalf("2 rejections did not end it")
	}
	// majority of the group's five members: three rejections.
	inq = ask(`"majority"`, 2, "group:sre")
	vote(inq, "a1", false)
	if out := vote(inq, "a2", false); out.Status != hitl.StatusPending {
		t.Fatal("2 of 5 rejections is no majority")
	}
	if out := vote(inq, "a3", false); out.Status != hitl.StatusResponded || outcome(t, out).Approved || len(outcome(t, out).Votes) != 3 {
		t.Fatalf("3 of 5 rejections: %s %s", out.Status, out.Response)
	}
	// Too few left to approve: 3 required of 4 named, 2 rejections with reject 3.
	inq = ask(`3`, 3, "a1", "a2", "a3", "a4")
	vote(inq, "a1", false)
	if out := vote(inq, "a2", false); out.Status != hitl.StatusResponded || outcome(t, out).Approved {
		t.Fatalf("3 approvals can no longer come from 2 people: %s", out.Status)
	}
}

func TestQuorumRefusesWhatCannotBe(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	for _, tc := range []struct {
		req  hitl.InquiryRequest
		want string
	}{
		{hitl.InquiryRequest{Prompt: "p", Quorum: &hitl.Quorum{Required: 2}, AssignedTo: []string{"a", "b"}}, "need request_type approval"},
		{hitl.InquiryRequest{Prompt: "p", RequestType: hitl.RequestApproval, Quorum: &hitl.Quorum{Required: 3}, AssignedTo: []string{"a", "b"}}, "names only 2 people (a and b)"},
		{hitl.InquiryRequest{Prompt: "p", RequestType: hitl.RequestApproval, Quorum: &hitl.Quorum{Required: 0}}, "must be between 1 and 50"},
		{hitl.InquiryRequest{Prompt: "p", RequestType: hitl.RequestApproval, Quorum: &hitl.Quorum{Required: 1},
			Steps: []hitl.ApprovalStep{{AssignedTo: []string{"a"}}}}, "give quorum or steps, not both"},
		{hitl.InquiryRequest{Prompt: "p", RequestType: hitl.RequestApproval, Steps: []hitl.ApprovalStep{{AssignedTo: []string{"a"}}},
			AssignedTo: []string{"b"}}, "give assigned_to in each step"},
		{hitl.InquiryRequest{Prompt: "p", RequestType: hitl.RequestApproval, Steps: []hitl.ApprovalStep{{}}}, "who approves this step"},
		{hitl.InquiryRequest{Prompt: "p", AssignedTo: []string{"pool:ops", "bob"}}, "stands alone in assigned_to"},
		{hitl.InquiryRequest{Prompt: "p", AssignedTo: []string{"pool:ops"}}, "pool ops has nobody to pick"},
		{hitl.InquiryRequest{Prompt: "p", RequestType: hitl.RequestApproval, Quorum: &hitl.Quorum{Required: 1},
			ToolCall: &hitl.ToolCall{ID: "c1", Name: "scale"}, AllowedDecisions: []hitl.Decision{hitl.DecisionApprove}}, "decisions on a tool call are for one person"},
	} {
		_, _, err := e.CreateInquiry(ctx, agent, &tc.req, "")
		var he *hitl.Error
		if !errors.As(err, &he) || he.Code != hitl.EInvalid || !strings.Contains(he.Detailed("; "), tc.want) {
			t.Errorf("%+v: got %v, want 400 with %q", tc.req, err, tc.want)
		}
	}
}

func TestSeparationOfDuties(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	// An admin asks in its session and is assigned: a quorum keeps it from voting.
	root := &hitl.Principal{Name: "root", Roles: []string{hitl.RoleAdmin, hitl.RoleAgent, hitl.RoleResponder}}
	inq, _, err := e.CreateInquiry(ctx, root, &hitl.InquiryRequest{Prompt: "ok?", RequestType: hitl.RequestApproval,
		AssignedTo: []string{"root", "ann"}, Quorum: &hitl.Quorum{Required: 1}, Session: "run-1"}, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Respond(ctx, root, inq.ID, approve(true, ""))
	wantCode(t, err, hitl.EForbidden, "root asked inquiry")
	// The session's owner, when the inquiry excludes it, even if another principal asked.
	owner := &hitl.Principal{Name: "ops-bot", Roles: []string{hitl.RoleAgent, hitl.RoleResponder}}
	yes := true
	inq2, _, err := e.CreateInquiry(ctx, owner, &hitl.InquiryRequest{Prompt: "ok?", Session: "run-2", ExcludeSessionOwner: &yes, ExcludeRequester: new(bool)}, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Respond(ctx, owner, inq2.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"yes"`)})
	wantCode(t, err, hitl.EForbidden, "ops-bot owns session run-2")
	// Off by default for one person's answer.
	inq3, _, err := e.CreateInquiry(ctx, owner, &hitl.InquiryRequest{Prompt: "ok?"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Respond(ctx, owner, inq3.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"yes"`)}); err != nil {
		t.Fatal(err)
	}
}

func TestChainMovesStepByStep(t *testing.T) {
	start := time.Now().UTC().Truncate(time.Second)
	c := clock.NewManual(start)
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "pay?", RequestType: hitl.RequestApproval,
		TimeoutSeconds: seconds(7200), FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`{"approved":false}`),
		Steps: []hitl.ApprovalStep{
			{AssignedTo: []string{"group:sre"}, Required: 1},
			{AssignedTo: []string{"group:finance"}, Required: 1, TimeoutSeconds: seconds(600)},
		}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if inq.CurrentStep != 1 || !equal(inq.AssignedTo, "group:sre") || !inq.TimeoutAt.Equal(start.Add(2*time.Hour)) {
		t.Fatalf("created: step %d for %v until %v", inq.CurrentStep, inq.AssignedTo, inq.TimeoutAt)
	}
	// Finance does not see it before sre approves.
	if _, err := e.Inquiry(ctx, responder("fay", "finance"), inq.ID); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("finance saw step 2 early: %v", err)
	}
	_, err = e.Respond(ctx, responder("fay", "finance"), inq.ID, approve(true, ""))
	wantCode(t, err, hitl.ENotFound, "not found")
	c.Advance(time.Minute)
	step2, err := e.Respond(ctx, responder("sam", "sre"), inq.ID, approve(true, "lgtm"))
	if err != nil {
		t.Fatal(err)
	}
	if step2.Status != hitl.StatusPending || step2.CurrentStep != 2 || !equal(step2.AssignedTo, "group:finance") ||
		!step2.TimeoutAt.Equal(start.Add(11*time.Minute)) || step2.Steps[0].CompletedAt == nil {
		t.Fatalf("after step 1: %+v", step2)
	}
	completed, err := e.Events(ctx, admin, hitl.EventFilter{InquiryID: inq.ID, Types: []string{hitl.EventInquiryStepCompleted}, Limit: 10})
	if err != nil || len(completed) != 1 || !strings.Contains(string(completed[0].Data), `"added":["group:finance"]`) {
		t.Fatalf("step_completed events: %v %v", err, completed)
	}
	// sre still sees it, but no longer votes.
	if _, err := e.Inquiry(ctx, responder("sam", "sre"), inq.ID); err != nil {
		t.Fatalf("sre lost sight of what it approved: %v", err)
	}
	_, err = e.Respond(ctx, responder("sue", "sre"), inq.ID, approve(true, ""))
	wantCode(t, err, hitl.EForbidden, "assigned to the group finance")
	// The step's own deadline applies the inquiry's fallback.
	c.Advance(10 * time.Minute)
	waitStatus(t, e, inq.ID, hitl.StatusTimeout)
	final, _ := e.Inquiry(ctx, admin, inq.ID)
	if !final.FallbackApplied || string(final.Response) != `{"approved":false}` {
		t.Fatalf("step deadline: %+v", final)
	}
}

func TestChainEndsOnAnyRejection(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "pay?", RequestType: hitl.RequestApproval,
		Steps: []hitl.ApprovalStep{{AssignedTo: []string{"ann"}}, {AssignedTo: []string{"bob", "cy"}, Required: 2}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Respond(ctx, responder("ann"), inq.ID, approve(true, "")); err != nil {
		t.Fatal(err)
	}
	if out, err := e.Respond(ctx, responder("bob"), inq.ID, approve(true, "")); err != nil || out.Status != hitl.StatusPending {
		t.Fatalf("1 of 2 in step 2: %v", err)
	}
	out, err := e.Respond(ctx, responder("cy"), inq.ID, approve(false, "no budget"))
	if err != nil {
		t.Fatal(err)
	}
	o := outcome(t, out)
	if out.Status != hitl.StatusResponded || o.Approved || len(o.Votes) != 3 || o.Votes[2].Step != 2 || *out.Comment != "no budget" {
		t.Fatalf("rejected in step 2: %+v", o)
	}
}

func TestClaims(t *testing.T) {
	start := time.Now().UTC().Truncate(time.Second)
	c := clock.NewManual(start)
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "which?", AssignedTo: []string{"group:ops"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := responder("alice", "ops"), responder("bob", "ops")
	if _, err := e.Claim(ctx, agent, inq.ID, nil); hitl.ErrorCode(err) != hitl.EForbidden {
		t.Fatalf("an agent claimed: %v", err)
	}
	claimed, err := e.Claim(ctx, alice, inq.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if claimed.Claim == nil || claimed.Claim.By != "alice" || !claimed.Claim.ExpiresAt.Equal(start.Add(15*time.Minute)) {
		t.Fatalf("claim: %+v", claimed.Claim)
	}
	_, err = e.Respond(ctx, bob, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"mine"`)})
	wantCode(t, err, hitl.EConflict, "claimed by alice until")
	_, err = e.Claim(ctx, bob, inq.ID, seconds(60))
	wantCode(t, err, hitl.EConflict, "claimed by alice")
	_, err = e.Release(ctx, bob, inq.ID)
	wantCode(t, err, hitl.EForbidden, "only alice or an admin")
	_, err = e.Claim(ctx, alice, inq.ID, seconds(99999999))
	wantCode(t, err, hitl.EInvalid, "ttl_seconds")

	// It expires on its timer, once.
	c.Advance(15 * time.Minute)
	waitEvents(t, e, inq.ID, hitl.EventInquiryReleased, 1)
	cur, _ := e.Inquiry(ctx, admin, inq.ID)
	if cur.Claim != nil {
		t.Fatalf("expired claim still held: %+v", cur.Claim)
	}
	// bob claims it; an admin breaks it; bob answers.
	if _, err := e.Claim(ctx, bob, inq.ID, seconds(60)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Release(ctx, admin, inq.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.Release(ctx, admin, inq.ID)
	wantCode(t, err, hitl.EConflict, "is not claimed")
	if _, err := e.Claim(ctx, bob, inq.ID, seconds(60)); err != nil {
		t.Fatal(err)
	}
	done, err := e.Respond(ctx, bob, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"mine"`)})
	if err != nil || done.Claim != nil {
		t.Fatalf("the claimer answers: %v %+v", err, done)
	}
	evs := waitEvents(t, e, inq.ID, hitl.EventInquiryReleased, 2)
	if !strings.Contains(string(evs[0].Data), `"reason":"expired"`) || !strings.Contains(string(evs[1].Data), `"reason":"broken"`) {
		t.Fatalf("release reasons: %s / %s", evs[0].Data, evs[1].Data)
	}
	// Claims are for one person's answer.
	q, _, _ := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", RequestType: hitl.RequestApproval,
		AssignedTo: []string{"group:ops"}, Quorum: &hitl.Quorum{Required: 2}}, "")
	_, err = e.Claim(ctx, alice, q.ID, nil)
	wantCode(t, err, hitl.EInvalid, "decided by votes")
}

func TestPoolPicksTheLeastBusy(t *testing.T) {
	start := time.Now().UTC().Truncate(time.Second)
	c := clock.NewManual(start)
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	keys(t, e, []string{"oncall"}, "cat", "abe", "bea")
	var picks []string
	for range 4 {
		c.Advance(time.Second)
		inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "page", AssignedTo: []string{"pool:oncall"}}, "")
		if err != nil {
			t.Fatal(err)
		}
		if inq.Pool != "oncall" || len(inq.AssignedTo) != 1 {
			t.Fatalf("pool pick: %+v", inq)
		}
		picks = append(picks, inq.AssignedTo[0])
	}
	// Nobody has any at first: by name; then the least busy; all even: the least recently assigned.
	if strings.Join(picks, ",") != "abe,bea,cat,abe" {
		t.Fatalf("picks %v", picks)
	}
	// abe answers both of his: he is the least busy again.
	abe := responder("abe")
	list, _, _ := e.Inquiries(ctx, abe, hitl.InquiryFilter{Status: hitl.StatusPending})
	for _, inq := range list {
		if _, err := e.Respond(ctx, abe, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"ok"`)}); err != nil {
			t.Fatal(err)
		}
	}
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "page", AssignedTo: []string{"pool:oncall"}}, "")
	if err != nil || inq.AssignedTo[0] != "abe" {
		t.Fatalf("after abe answered: %v %v", err, inq.AssignedTo)
	}
	assigned := waitEvents(t, e, inq.ID, hitl.EventInquiryAssigned, 1)
	if !strings.Contains(string(assigned[0].Data), `"assigned":"abe"`) {
		t.Fatalf("inquiry.assigned: %s", assigned[0].Data)
	}
}

func equal(got []string, want ...string) bool {
	return strings.Join(got, ",") == strings.Join(want, ",")
}

func waitStatus(t *testing.T, e *engine.Engine, id int64, want hitl.Status) {
	t.Helper()
	testserver.Eventually(t, 5*time.Second, fmt.Sprintf("inquiry %d %s", id, want), func() bool {
		inq, err := e.Inquiry(ctx, admin, id)
		return err == nil && inq.Status == want
	})
}

func waitEvents(t *testing.T, e *engine.Engine, id int64, typ string, n int) []*hitl.Event {
	t.Helper()
	var evs []*hitl.Event
	testserver.Eventually(t, 5*time.Second, fmt.Sprintf("%d %s events", n, typ), func() bool {
		var err error
		evs, err = e.Events(ctx, admin, hitl.EventFilter{InquiryID: id, Types: []string{typ}, Limit: 100})
		return err == nil && len(evs) >= n
	})
	if len(evs) != n {
		t.Fatalf("%d %s events, want %d", len(evs), typ, n)
	}
	return evs
}
