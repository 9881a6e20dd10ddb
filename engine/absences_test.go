package engine_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/internal/wording"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// away opens an engine on a manual clock with responder keys for names.
func away(t *testing.T, names ...string) (*engine.Engine, *clock.Manual) {
	t.Helper()
	c := clock.NewManual(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	t.Cleanup(stop)
	keys(t, e, nil, names...)
	return e, c
}

// absent sets name's absence from now+from for length, with delegate, as an admin.
func absent(t *testing.T, e *engine.Engine, c *clock.Manual, name, delegate string, from, length time.Duration) {
	t.Helper()
	start := c.Now().Add(from)
	if _, err := e.SetAbsence(ctx, admin, name, &hitl.AbsenceRequest{From: start, Until: start.Add(length), Delegate: delegate}); err != nil {
		t.Fatal(err)
	}
}

func approval(t *testing.T, e *engine.Engine, asker *hitl.Principal, req *hitl.InquiryRequest) *hitl.Inquiry {
	t.Helper()
	req.Prompt, req.RequestType = "deploy?", hitl.RequestApproval
	inq, _, err := e.CreateInquiry(ctx, asker, req, "")
	if err != nil {
		t.Fatal(err)
	}
	return inq
}

// TestDelegateAnswersOnlyDuringTheAbsence: before the period bob may not answer alice's
// inquiry (nor see it); during it he may, recorded as "bob for alice" in the inquiry, the event
// and its actor; after it, he may not again.
func TestDelegateAnswersOnlyDuringTheAbsence(t *testing.T) {
	e, c := away(t, "alice", "bob")
	absent(t, e, c, "alice", "bob", time.Hour, 24*time.Hour)
	before := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}})
	if _, err := e.Respond(ctx, responder("bob"), before.ID, approve(true, "")); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("bob before the absence: %v, want not found", err)
	}

	c.Advance(2 * time.Hour) // alice is away now
	bob, err := e.Authenticate(ctx, keyToken(t, e, "bob"))
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := e.Inquiries(ctx, bob, hitl.InquiryFilter{Status: hitl.StatusPending})
	if err != nil || len(list) != 1 || list[0].ID != before.ID || engine.AnswersFor(bob, list[0]) != "alice" {
		t.Fatalf("bob's list while alice is away: %v, %v", list, err)
	}
	// Who clicks in Slack is made as a key's holder is: bob, standing in for alice.
	if _, err := e.PutPerson(ctx, admin, "bob", &hitl.PersonRequest{SlackUserID: "U0BOB"}); err != nil {
		t.Fatal(err)
	}
	if clicked, err := e.PrincipalBySlackUser(ctx, "U0BOB"); err != nil || engine.AnswersFor(clicked, before) != "alice" {
		t.Fatalf("bob in Slack: %+v, %v", clicked, err)
	}
	out, err := e.Respond(ctx, responder("bob"), before.ID, approve(true, "fine"))
	if err != nil {
		t.Fatal(err)
	}
	if *out.RespondedBy != "bob" || out.OnBehalfOf == nil || *out.OnBehalfOf != "alice" || wording.AnsweredBy(out) != "bob for alice" {
		t.Fatalf("answered %+v", out)
	}
	evs := waitEvents(t, e, out.ID, hitl.EventInquiryResponded, 1)
	var logged hitl.Inquiry
	if err := json.Unmarshal(evs[0].Data, &logged); err != nil || evs[0].Actor != "bob for alice" || logged.OnBehalfOf == nil || *logged.OnBehalfOf != "alice" {
		t.Fatalf("event by %q with %s", evs[0].Actor, evs[0].Data)
	}

	// The stored answer is the one its events tell: the audit's check of the state agrees.
	engine.ReverifyAudit(e)
	if _, err := e.AuditHead(ctx, admin); err != nil {
		t.Fatalf("the audit after bob answered for alice: %v", err)
	}

	c.Advance(24 * time.Hour) // alice is back
	after := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}})
	if _, err := e.Respond(ctx, responder("bob"), after.ID, approve(true, "")); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("bob after the absence: %v, want not found", err)
	}
	if _, err := e.Respond(ctx, responder("alice"), after.ID, approve(true, "")); err != nil {
		t.Fatalf("alice, back: %v", err)
	}
}

// keyToken makes a new responder key for name and returns its token.
func keyToken(t *testing.T, e *engine.Engine, name string) string {
	t.Helper()
	k, err := e.CreateKey(ctx, admin, &hitl.KeyRequest{Name: name, Roles: []string{hitl.RoleResponder}})
	if err != nil {
		t.Fatal(err)
	}
	return k.Token
}

// TestDelegationIsByNameOnly: what alice answers through a group is not delegated (its other
// members answer it); on_behalf_of names someone the answerer stands in for, for an inquiry
// assigned to them by name, and never the answerer; one who is assigned too answers as
// themself unless they say otherwise.
func TestDelegationIsByNameOnly(t *testing.T) {
	e, c := away(t, "alice", "bob", "cy")
	absent(t, e, c, "alice", "bob", 0, time.Hour)
	ops := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"group:ops"}})
	if _, err := e.Respond(ctx, responder("bob"), ops.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`), OnBehalfOf: "alice"}); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("bob for alice's group: %v, want not found", err)
	}
	both := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice", "bob"}})
	wantCode(t, ask(e, "bob", both.ID, "bob"), hitl.EInvalid, "not bob themself")
	wantCode(t, ask(e, "bob", both.ID, "cy"), hitl.EForbidden, "cy is not away with bob as delegate")
	out, err := e.Respond(ctx, responder("bob"), both.ID, approve(true, ""))
	if err != nil || out.OnBehalfOf != nil {
		t.Fatalf("bob, assigned himself: %+v, %v", out, err)
	}
	mixed := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"cy", "group:ops"}})
	wantCode(t, ask(e, "cy", mixed.ID, "alice"), hitl.EForbidden, "cy may not answer for alice")
	byName := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice", "bob"}})
	if out, err := e.Respond(ctx, responder("bob"), byName.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`), OnBehalfOf: "alice"}); err != nil || *out.OnBehalfOf != "alice" {
		t.Fatalf("bob for alice, asked for: %+v, %v", out, err)
	}
}

// ask answers yes as who, for behalf.
func ask(e *engine.Engine, who string, id int64, behalf string) error {
	_, err := e.Respond(ctx, responder(who), id, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`), OnBehalfOf: behalf})
	return err
}

// TestDelegateHasOneVote: in a quorum, bob's own vote and his vote for alice count once, in
// either order; and once bob voted for alice, alice's vote is cast (she may not vote again).
func TestDelegateHasOneVote(t *testing.T) {
	e, c := away(t, "alice", "bob", "cy", "dan")
	absent(t, e, c, "alice", "bob", 0, time.Hour)
	quorum := func() *hitl.Inquiry {
		return approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice", "bob", "cy", "dan"}, Quorum: &hitl.Quorum{Required: 3}})
	}
	own := quorum()
	if _, err := e.Respond(ctx, responder("bob"), own.ID, approve(true, "")); err != nil {
		t.Fatal(err)
	}
	wantCode(t, ask(e, "bob", own.ID, "alice"), hitl.EConflict, "a delegate has one vote")
	forAlice := quorum()
	if err := ask(e, "bob", forAlice.ID, "alice"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, ask(e, "bob", forAlice.ID, ""), hitl.EConflict, "a delegate has one vote")
	if err := ask(e, "bob", forAlice.ID, "alice"); err != nil {
		t.Fatalf("the same vote again is a safe retry: %v", err)
	}
	wantCode(t, ask(e, "alice", forAlice.ID, ""), hitl.EConflict, "alice's vote on inquiry")
	// Two more people approve: three votes, the quorum's.
	if err := ask(e, "cy", forAlice.ID, ""); err != nil {
		t.Fatal(err)
	}
	out, err := e.Respond(ctx, responder("dan"), forAlice.ID, approve(true, ""))
	if err != nil || out.Status != hitl.StatusResponded {
		t.Fatalf("third vote: %+v, %v", out, err)
	}
	o := outcome(t, out)
	if !o.Approved || len(o.Votes) != 3 || o.Votes[0].By != "bob" || o.Votes[0].OnBehalfOf != "alice" || wording.VoteBy(&o.Votes[0]) != "bob for alice" {
		t.Fatalf("outcome %+v", o)
	}
}

// TestSeparationOfDutiesHoldsForDelegates: who asks may not approve as a delegate, and a
// delegate may not approve for the one who asked.
func TestSeparationOfDutiesHoldsForDelegates(t *testing.T) {
	e, c := away(t, "alice", "bob", "cy")
	alice := &hitl.Principal{Name: "alice", Roles: []string{hitl.RoleAgent, hitl.RoleResponder}}
	bob := &hitl.Principal{Name: "bob", Roles: []string{hitl.RoleAgent, hitl.RoleResponder}}
	absent(t, e, c, "alice", "bob", 0, time.Hour)
	absent(t, e, c, "cy", "bob", 0, time.Hour)
	askedByAlice := approval(t, e, alice, &hitl.InquiryRequest{AssignedTo: []string{"alice", "cy"}, Quorum: &hitl.Quorum{Required: 1}})
	wantCode(t, ask(e, "bob", askedByAlice.ID, "alice"), hitl.EForbidden, "bob may not answer inquiry")
	wantCode(t, ask(e, "bob", askedByAlice.ID, "alice"), hitl.EForbidden, "alice asked")
	askedByBob := approval(t, e, bob, &hitl.InquiryRequest{AssignedTo: []string{"alice", "cy"}, Quorum: &hitl.Quorum{Required: 1}})
	wantCode(t, ask(e, "bob", askedByBob.ID, "cy"), hitl.EForbidden, "bob asked")
	if err := ask(e, "cy", askedByAlice.ID, ""); err != nil {
		t.Fatalf("cy is away, and still may answer herself: %v", err)
	}
}

// TestDelegationChains: alice → bob → carol: while bob is away too, carol answers for alice
// (and bob); the chain is followed MaxDelegationDepth delegates deep and never round a loop.
func TestDelegationChains(t *testing.T) {
	e, c := away(t, "alice", "bob", "carol", "dan", "eve")
	absent(t, e, c, "alice", "bob", 0, time.Hour)
	inq := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}})
	wantCode(t, ask(e, "carol", inq.ID, ""), hitl.ENotFound, "")
	absent(t, e, c, "bob", "carol", 0, time.Hour)
	out, err := e.Respond(ctx, responder("carol"), inq.ID, approve(true, ""))
	if err != nil || *out.OnBehalfOf != "alice" {
		t.Fatalf("carol for alice: %+v, %v", out, err)
	}
	// alice → bob → carol → dan → eve: dan is the third delegate, eve a fourth.
	absent(t, e, c, "carol", "dan", 0, time.Hour)
	absent(t, e, c, "dan", "eve", 0, time.Hour)
	deep := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}})
	wantCode(t, ask(e, "eve", deep.ID, ""), hitl.ENotFound, "")
	if err := ask(e, "dan", deep.ID, ""); err != nil {
		t.Fatalf("dan, third down the chain: %v", err)
	}
	// A loop is refused when it is set, naming it.
	_, err = e.SetAbsence(ctx, admin, "eve", &hitl.AbsenceRequest{From: c.Now(), Until: c.Now().Add(time.Hour), Delegate: "alice"})
	wantCode(t, err, hitl.EConflict, "eve → alice → bob → carol → dan → eve")
	// Not at the same time is no loop.
	later := c.Now().Add(2 * time.Hour)
	if _, err := e.SetAbsence(ctx, admin, "eve", &hitl.AbsenceRequest{From: later, Until: later.Add(time.Hour), Delegate: "alice"}); err != nil {
		t.Fatal(err)
	}
}

// TestAbsenceRefusesBadInput: each bad absence is refused in words, and changes nothing.
func TestAbsenceRefusesBadInput(t *testing.T) {
	e, c := away(t, "alice", "bob")
	now := c.Now()
	gone, err := e.CreateKey(ctx, admin, &hitl.KeyRequest{Name: "gone", Roles: []string{hitl.RoleResponder}})
	must(t, err)
	must(t, e.RevokeKey(ctx, admin, gone.ID))
	for _, tc := range []struct {
		name string
		req  hitl.AbsenceRequest
		code string
		want string
	}{
		{"no from", hitl.AbsenceRequest{Until: now.Add(time.Hour), Delegate: "bob"}, hitl.EInvalid, "/from: is required"},
		{"no until", hitl.AbsenceRequest{From: now, Delegate: "bob"}, hitl.EInvalid, "/until: is required"},
		{"until before from", hitl.AbsenceRequest{From: now, Until: now.Add(-time.Minute), Delegate: "bob"}, hitl.EInvalid, "must be after from"},
		{"until passed", hitl.AbsenceRequest{From: now.Add(-2 * time.Hour), Until: now.Add(-time.Hour), Delegate: "bob"}, hitl.EInvalid, "has passed already"},
		{"no delegate", hitl.AbsenceRequest{From: now, Until: now.Add(time.Hour)}, hitl.EInvalid, "/delegate: is required"},
		{"bad name", hitl.AbsenceRequest{From: now, Until: now.Add(time.Hour), Delegate: "bo b"}, hitl.EInvalid, "letters, digits"},
		{"self", hitl.AbsenceRequest{From: now, Until: now.Add(time.Hour), Delegate: "alice"}, hitl.EInvalid, "cannot be their own delegate"},
		{"unknown", hitl.AbsenceRequest{From: now, Until: now.Add(time.Hour), Delegate: "zed"}, hitl.EInvalid, "zed is not a person hitl knows"},
		{"revoked", hitl.AbsenceRequest{From: now, Until: now.Add(time.Hour), Delegate: "gone"}, hitl.EInvalid, "has been revoked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.SetAbsence(ctx, responder("alice"), "alice", &tc.req)
			wantCode(t, err, tc.code, tc.want)
		})
	}
	_, err = e.SetAbsence(ctx, responder("bob"), "alice", &hitl.AbsenceRequest{From: now, Until: now.Add(time.Hour), Delegate: "bob"})
	wantCode(t, err, hitl.EForbidden, "only alice or an admin")
	wantCode(t, e.EndAbsence(ctx, responder("alice"), "alice"), hitl.ENotFound, "alice has no absence set")
	if _, err := e.Absence(ctx, responder("alice"), "alice"); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("nothing was set, yet: %v", err)
	}
	// The person sets their own, sees it, ends it; the events are the audit's.
	a, err := e.SetAbsence(ctx, responder("alice"), "alice", &hitl.AbsenceRequest{From: now, Until: now.Add(time.Hour), Delegate: "bob"})
	if err != nil || a.SetBy != "alice" || a.Delegate != "bob" || !a.Until.Equal(now.Add(time.Hour)) {
		t.Fatalf("set: %+v, %v", a, err)
	}
	if _, err := e.Absence(ctx, responder("bob"), "alice"); hitl.ErrorCode(err) != hitl.EForbidden {
		t.Fatalf("bob reads alice's absence: %v", err)
	}
	must(t, e.EndAbsence(ctx, responder("alice"), "alice"))
	evs, err := e.Events(ctx, admin, hitl.EventFilter{Types: []string{hitl.EventPersonAbsenceSet, hitl.EventPersonAbsenceEnded}, Limit: 10})
	if err != nil || len(evs) != 2 || evs[0].Actor != "alice" || evs[1].Type != hitl.EventPersonAbsenceEnded {
		t.Fatalf("absence events %v, %v", evs, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestMessagesGoToTheStandIn: while alice is away, the message of a new inquiry and its
// reminder go to bob, saying for whom, with an answer link that answers as bob for alice;
// before and after the period, to alice.
func TestMessagesGoToTheStandIn(t *testing.T) {
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	c := clock.NewManual(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	e := engine.New(st, engine.Options{Clock: c, Notify: engine.NotifyOptions{Channels: []string{hitl.ChannelEmail}, PublicURL: "https://hitl.example"}})
	must(t, e.Start(ctx))
	defer func() { e.Stop(ctx); st.Close() }()
	for _, name := range []string{"alice", "bob"} {
		if _, err := e.PutPerson(ctx, admin, name, &hitl.PersonRequest{Email: name + "@example.com"}); err != nil {
			t.Fatal(err)
		}
	}
	absent(t, e, c, "alice", "bob", time.Hour, 2*time.Hour)
	before := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}})
	c.Advance(time.Hour)
	during := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}, RemindEvery: "30m"})
	c.Advance(30 * time.Minute) // the reminder, while alice is away
	eventsOf(t, e, during.ID, hitl.EventInquiryReminded, 1)
	wantMessages(t, st, before, "created email alice@example.com")
	wantMessages(t, st, during, "created email bob@example.com", "reminder email bob@example.com")
	ds, _, _ := st.Deliveries(ctx, hitl.DeliveryFilter{Kind: hitl.DeliveryNotification, InquiryID: during.ID, Page: hitl.Page{Limit: 10}})
	var link, reply string
	for _, d := range ds {
		var n hitl.Notification
		must(t, json.Unmarshal(d.Payload, &n))
		if n.Recipient != "bob" || n.OnBehalfOf != "alice" || n.AnswerToken == "" || n.ReplyToken == "" {
			t.Fatalf("%s to %s for %q", d.Reason, n.Recipient, n.OnBehalfOf)
		}
		link, reply = n.AnswerToken, n.ReplyToken
	}
	// bob's link, and a reply to his email, answer as bob, for alice, while she is away; after
	// the period the link no longer works.
	who, _, err := e.OpenAnswerLink(ctx, link)
	if err != nil || who.Name != "bob" || engine.AnswersFor(who, during) != "alice" {
		t.Fatalf("bob's link opens as %+v, %v", who, err)
	}
	who, _, _, err = e.OpenReply(ctx, reply, "bob@example.com")
	if err != nil || who.Name != "bob" || engine.AnswersFor(who, during) != "alice" {
		t.Fatalf("bob's reply opens as %+v, %v", who, err)
	}
	c.Advance(2 * time.Hour)
	if _, _, err := e.OpenAnswerLink(ctx, link); hitl.ErrorCode(err) != hitl.EUnauthorized || !strings.Contains(err.Error(), "no longer works") {
		t.Fatalf("bob's link after the period: %v", err)
	}
	after := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}})
	wantMessages(t, st, after, "created email alice@example.com")
}

// wantMessages waits until the inquiry's messages are want ("reason channel address").
func wantMessages(t *testing.T, st hitl.Store, inq *hitl.Inquiry, want ...string) {
	t.Helper()
	var got []string
	if !testserver.WaitFor(10*time.Second, func() bool { got = notifications(t, st, inq.ID); return slices.Equal(got, want) }) {
		t.Fatalf("inquiry %d's messages: %v, want %v", inq.ID, got, want)
	}
}

// TestDelegateDeclinesForTheAwayPerson: bob declines alice's inquiry as he answers it, for
// her: the inquiry, its event and its reason say "bob for alice", and the audit's check of the
// stored state agrees. Who asked, excluded by separation of duties, may not decline through a
// delegate either.
func TestDelegateDeclinesForTheAwayPerson(t *testing.T) {
	e, c := away(t, "alice", "bob")
	absent(t, e, c, "alice", "bob", 0, time.Hour)
	inq := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}, Session: "run-1"})
	out, err := e.Decline(ctx, responder("bob"), inq.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if out.DeclinedBy == nil || *out.DeclinedBy != "bob" || out.OnBehalfOf == nil || *out.OnBehalfOf != "alice" ||
		out.CancelReason == nil || *out.CancelReason != "declined by bob for alice" {
		t.Fatalf("declined %+v", out)
	}
	evs := waitEvents(t, e, inq.ID, hitl.EventInquiryCancelled, 1)
	var logged hitl.Inquiry
	if err := json.Unmarshal(evs[0].Data, &logged); err != nil || evs[0].Actor != "bob for alice" || logged.OnBehalfOf == nil || *logged.OnBehalfOf != "alice" {
		t.Fatalf("event by %q with %s", evs[0].Actor, evs[0].Data)
	}
	if s, err := e.Session(ctx, admin, "run-1"); err != nil || s.Status != hitl.SessionFailed || s.Error == nil || *s.Error != "declined by bob for alice" {
		t.Fatalf("the session after the decline: %+v, %v", s, err)
	}
	engine.ReverifyAudit(e)
	if _, err := e.AuditHead(ctx, admin); err != nil {
		t.Fatalf("the audit after bob declined for alice: %v", err)
	}

	// Declining as himself, on what is his, names nobody else.
	own := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"bob"}})
	if out, err := e.Decline(ctx, responder("bob"), own.ID, "no"); err != nil || out.OnBehalfOf != nil || *out.DeclinedBy != "bob" {
		t.Fatalf("bob declines his own: %+v, %v", out, err)
	}

	// alice asked, and separation of duties keeps her from answering: bob may not decline for her.
	alice := &hitl.Principal{Name: "alice", Roles: []string{hitl.RoleAgent, hitl.RoleResponder}}
	exclude := true
	askedByAlice := approval(t, e, alice, &hitl.InquiryRequest{AssignedTo: []string{"alice"}, ExcludeRequester: &exclude})
	_, err = e.Decline(ctx, responder("bob"), askedByAlice.ID, "")
	wantCode(t, err, hitl.EForbidden, "bob may not answer inquiry")
	if got, err := e.Inquiry(ctx, admin, askedByAlice.ID); err != nil || got.Status != hitl.StatusPending {
		t.Fatalf("after the refused decline: %+v, %v", got, err)
	}
}

// TestSeparationOfDutiesHoldsDownAChain: alice → bob → carol. bob asked, and may not answer
// for alice; carol, whom bob named his delegate, may not either: the question would be
// approved by the one its asker chose.
func TestSeparationOfDutiesHoldsDownAChain(t *testing.T) {
	e, c := away(t, "alice", "bob", "carol")
	bob := &hitl.Principal{Name: "bob", Roles: []string{hitl.RoleAgent, hitl.RoleResponder}}
	absent(t, e, c, "alice", "bob", 0, time.Hour)
	exclude := true
	askedByBob := approval(t, e, bob, &hitl.InquiryRequest{AssignedTo: []string{"alice"}, ExcludeRequester: &exclude})
	wantCode(t, ask(e, "bob", askedByBob.ID, "alice"), hitl.EForbidden, "bob asked")
	absent(t, e, c, "bob", "carol", 0, time.Hour)
	wantCode(t, ask(e, "carol", askedByBob.ID, ""), hitl.EForbidden, "carol may not answer inquiry 1 for alice through bob")
	_, err := e.Decline(ctx, responder("carol"), askedByBob.ID, "")
	wantCode(t, err, hitl.EForbidden, "through bob")
	// An inquiry an agent asked: carol answers for alice down the same chain.
	other := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}})
	if out, err := e.Respond(ctx, responder("carol"), other.ID, approve(true, "")); err != nil || *out.OnBehalfOf != "alice" {
		t.Fatalf("carol for alice: %+v, %v", out, err)
	}
	if got, err := e.Inquiry(ctx, admin, askedByBob.ID); err != nil || got.Status != hitl.StatusPending {
		t.Fatalf("after the refusals: %+v, %v", got, err)
	}
}

// TestAbsenceEndsExactlyAtUntil: the period holds until its last nanosecond before until, and
// not at until.
func TestAbsenceEndsExactlyAtUntil(t *testing.T) {
	e, c := away(t, "alice", "bob")
	absent(t, e, c, "alice", "bob", 0, time.Hour)
	first := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}})
	second := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}})
	c.Advance(time.Hour - time.Nanosecond)
	if err := ask(e, "bob", first.ID, ""); err != nil {
		t.Fatalf("a nanosecond before until: %v", err)
	}
	c.Advance(time.Nanosecond)
	wantCode(t, ask(e, "bob", second.ID, ""), hitl.ENotFound, "")
	_, err := e.Decline(ctx, responder("bob"), second.ID, "")
	wantCode(t, err, hitl.ENotFound, "")
}

// TestRevokedDelegateNoLongerAnswers: once bob's key is revoked during alice's absence, nothing
// lets him answer for her: not his key, not a relay naming him (the way answer links and email
// replies are made into a person too: recordedPerson).
func TestRevokedDelegateNoLongerAnswers(t *testing.T) {
	e, c := away(t, "alice")
	bobKey, err := e.CreateKey(ctx, admin, &hitl.KeyRequest{Name: "bob", Roles: []string{hitl.RoleResponder}})
	must(t, err)
	absent(t, e, c, "alice", "bob", 0, time.Hour)
	relayed := &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`), RespondedBy: "bob"}
	before := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}})
	if out, err := e.Respond(ctx, admin, before.ID, relayed); err != nil || *out.OnBehalfOf != "alice" {
		t.Fatalf("bob's relayed answer before the revocation: %+v, %v", out, err)
	}
	inq := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}})
	must(t, e.RevokeKey(ctx, admin, bobKey.ID))
	if _, err := e.Authenticate(ctx, bobKey.Token); hitl.ErrorCode(err) != hitl.EUnauthorized {
		t.Fatalf("bob's revoked key: %v", err)
	}
	_, err = e.Respond(ctx, admin, inq.ID, relayed)
	wantCode(t, err, hitl.EForbidden, "revoked")
	if got, err := e.Inquiry(ctx, admin, inq.ID); err != nil || got.Status != hitl.StatusPending {
		t.Fatalf("after the refusals: %+v, %v", got, err)
	}
}

// TestChainCountsTheDelegateInBetweenOnce: alice → bob → carol, both away. bob is alice's
// delegate, so bob's own vote and alice's, cast for her by carol through bob, count once, in
// either order; someone else's vote still counts.
func TestChainCountsTheDelegateInBetweenOnce(t *testing.T) {
	e, c := away(t, "alice", "bob", "carol", "cy")
	absent(t, e, c, "alice", "bob", 0, time.Hour)
	absent(t, e, c, "bob", "carol", 0, time.Hour)
	quorum := func() *hitl.Inquiry {
		return approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice", "bob", "cy"}, Quorum: &hitl.Quorum{Required: 2}})
	}
	bobFirst := quorum()
	must(t, ask(e, "bob", bobFirst.ID, ""))
	wantCode(t, ask(e, "carol", bobFirst.ID, "alice"), hitl.EConflict, "bob's vote on inquiry")
	carolFirst := quorum()
	must(t, ask(e, "carol", carolFirst.ID, "alice"))
	wantCode(t, ask(e, "bob", carolFirst.ID, ""), hitl.EConflict, "bob's vote on inquiry")
	if err := ask(e, "carol", carolFirst.ID, "alice"); err != nil {
		t.Fatalf("the same vote again is a safe retry: %v", err)
	}
	out, err := e.Respond(ctx, responder("cy"), carolFirst.ID, approve(true, ""))
	if err != nil || out.Status != hitl.StatusResponded || len(outcome(t, out).Votes) != 2 {
		t.Fatalf("cy's vote decides: %+v, %v", out, err)
	}
}
