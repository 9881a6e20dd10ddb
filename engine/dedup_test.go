package engine_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
)

func askerNamed(name string) *hitl.Principal {
	return &hitl.Principal{Name: name, Roles: []string{hitl.RoleAgent}}
}

// askAs creates an inquiry and fails the test on an error.
func askAs(t *testing.T, e *engine.Engine, p *hitl.Principal, req hitl.InquiryRequest) *hitl.Inquiry {
	t.Helper()
	inq, _, err := e.CreateInquiry(ctx, p, &req, "")
	if err != nil {
		t.Fatalf("%s asks: %v", p.Name, err)
	}
	return inq
}

func eventTypes(t *testing.T, e *engine.Engine, id int64) []string {
	t.Helper()
	evs, err := e.Events(ctx, admin, hitl.EventFilter{InquiryID: id, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	return types
}

// TestDedupAnswerReachesEveryAsker: three agents ask one question with one key; people see
// one inquiry, its answer reaches the three waits, each with its own event and its own
// tool result; the joined ones cannot be answered themselves.
func TestDedupAnswerReachesEveryAsker(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		req := hitl.InquiryRequest{Prompt: "Restart the payments database?", RequestType: hitl.RequestApproval,
			AssignedTo: []string{"ann"}, DedupKey: "restart payments-db", TimeoutSeconds: seconds(3600)}
		var askers []*hitl.Inquiry
		for i, name := range []string{"bot1", "bot2", "bot3"} {
			r := req
			r.ToolCall = &hitl.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "restart", Arguments: json.RawMessage(`{"db":"payments"}`)}
			askers = append(askers, askAs(t, n.e, askerNamed(name), r))
		}
		primary := askers[0]
		if primary.Joined != nil || primary.DedupKey != "restart payments-db" {
			t.Fatalf("the first asker's inquiry: joined %v, key %q", primary.Joined, primary.DedupKey)
		}
		for _, j := range askers[1:] {
			if j.Joined == nil || *j.Joined != primary.ID || j.ID == primary.ID || j.CreatedBy == primary.CreatedBy {
				t.Fatalf("a later asker's inquiry: %+v", j)
			}
		}
		// People see the question once.
		ann := &hitl.Principal{Name: "ann", Roles: []string{hitl.RoleResponder}}
		listed, _, err := n.e.Inquiries(ctx, ann, hitl.InquiryFilter{Status: hitl.StatusPending})
		if err != nil || len(listed) != 1 || listed[0].ID != primary.ID {
			t.Fatalf("ann's pending list: %v %v", listed, err)
		}
		_, err = n.e.Respond(ctx, ann, askers[1].ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`)})
		if hitl.ErrorCode(err) != hitl.EConflict || !strings.Contains(err.Error(), fmt.Sprintf("answer inquiry %d", primary.ID)) {
			t.Fatalf("answering a joined inquiry: %v, want a conflict naming %d", err, primary.ID)
		}
		// Each asker waits for its own inquiry.
		var wg sync.WaitGroup
		got := make([]*hitl.Inquiry, len(askers))
		waiting := make(chan struct{}, len(askers))
		for i, inq := range askers {
			wg.Go(func() {
				waiting <- struct{}{}
				got[i], _ = n.e.Wait(ctx, askerNamed(inq.CreatedBy), inq.ID, engine.MaxWait)
			})
		}
		for range askers {
			<-waiting
		}
		if _, err := n.e.Respond(ctx, ann, primary.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`), Comment: "go"}); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		for i, inq := range got {
			if inq == nil || inq.Status != hitl.StatusResponded || string(inq.Response) != `{"approved":true,"comment":"go"}` && string(inq.Response) != `{"approved":true}` ||
				inq.RespondedBy == nil || *inq.RespondedBy != "ann" || inq.ToolResult == nil || inq.ToolResult.ToolCallID != fmt.Sprintf("call_%d", i) {
				t.Fatalf("asker %d's wait returned %+v", i, inq)
			}
			if types := eventTypes(t, n.e, inq.ID); !slices.Contains(types, hitl.EventInquiryResponded) {
				t.Fatalf("asker %d's events: %v", i, types)
			}
		}
		n.signs(t, "after the answer reached every asker")
	})
}

// TestDedupRefusesAnotherQuestionAndBadKeys: one key, another question, is a conflict; keys
// too long or with control characters, and dedup with nothing to make a key of, are invalid.
func TestDedupRefusesAnotherQuestionAndBadKeys(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		askAs(t, n.e, askerNamed("bot1"), hitl.InquiryRequest{Prompt: "Ship 1.2?", DedupKey: "ship"})
		for _, other := range []hitl.InquiryRequest{
			{Prompt: "Ship 1.3?", DedupKey: "ship"},
			{Prompt: "Ship 1.2?", DedupKey: "ship", AssignedTo: []string{"bob"}},
			{Prompt: "Ship 1.2?", DedupKey: "ship", RequestType: hitl.RequestApproval},
		} {
			_, _, err := n.e.CreateInquiry(ctx, askerNamed("bot2"), &other, "")
			if hitl.ErrorCode(err) != hitl.EConflict || !strings.Contains(err.Error(), "different question") {
				t.Fatalf("%+v: %v, want a conflict", other, err)
			}
		}
		for _, bad := range []struct {
			req  hitl.InquiryRequest
			path string
		}{
			{hitl.InquiryRequest{Prompt: "x", DedupKey: strings.Repeat("k", hitl.MaxDedupKey+1)}, "/dedup_key"},
			{hitl.InquiryRequest{Prompt: "x", DedupKey: "a\nb"}, "/dedup_key"},
			{hitl.InquiryRequest{Prompt: "x", Dedup: true}, "/dedup"},
		} {
			_, _, err := n.e.CreateInquiry(ctx, askerNamed("bot2"), &bad.req, "")
			var he *hitl.Error
			if hitl.ErrorCode(err) != hitl.EInvalid || !asError(err, &he) || len(he.Fields) != 1 || he.Fields[0].Path != bad.path {
				t.Fatalf("%q: %v, want invalid at %s", bad.req.DedupKey, err, bad.path)
			}
		}
		// A key of 200 characters, in any script, is fine.
		askAs(t, n.e, askerNamed("bot2"), hitl.InquiryRequest{Prompt: "x", DedupKey: strings.Repeat("é", hitl.MaxDedupKey)})
	})
}

// TestDedupEndingWithoutAnAnswerPromotesTheOldest: the primary's asker cancels; the oldest
// joined becomes the one people see (and are told of), the other joins it; a joined asker
// that cancels ends only its own; the answer then reaches who is left.
func TestDedupEndingWithoutAnAnswerPromotesTheOldest(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		req := hitl.InquiryRequest{Prompt: "Which region?", Options: []hitl.Option{{Value: "eu"}, {Value: "us"}}, DedupKey: "region"}
		a := askAs(t, n.e, askerNamed("bot1"), req)
		b := askAs(t, n.e, askerNamed("bot2"), req)
		c := askAs(t, n.e, askerNamed("bot3"), req)
		d := askAs(t, n.e, askerNamed("bot4"), req)
		if _, err := n.e.Cancel(ctx, askerNamed("bot1"), a.ID, "not needed"); err != nil {
			t.Fatal(err)
		}
		b2, _ := n.e.Inquiry(ctx, admin, b.ID)
		c2, _ := n.e.Inquiry(ctx, admin, c.ID)
		if b2.Status != hitl.StatusPending || b2.Joined != nil || c2.Joined == nil || *c2.Joined != b.ID {
			t.Fatalf("after the primary was cancelled: b %+v, c joined %v", b2, c2.Joined)
		}
		if types := eventTypes(t, n.e, b.ID); !slices.Contains(types, hitl.EventInquiryPromoted) {
			t.Fatalf("b's events: %v", types)
		}
		listed, _, _ := n.e.Inquiries(ctx, human, hitl.InquiryFilter{Status: hitl.StatusPending})
		if len(listed) != 1 || listed[0].ID != b.ID {
			t.Fatalf("the pending list after the promotion: %v", listed)
		}
		// A joined asker withdraws: its inquiry alone ends.
		if _, err := n.e.Cancel(ctx, askerNamed("bot3"), c.ID, ""); err != nil {
			t.Fatal(err)
		}
		if b3, _ := n.e.Inquiry(ctx, admin, b.ID); b3.Status != hitl.StatusPending {
			t.Fatalf("cancelling a joined inquiry ended the primary: %s", b3.Status)
		}
		if _, err := n.e.Respond(ctx, human, b.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"eu"`)}); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[int64]hitl.Status{a.ID: hitl.StatusCancelled, b.ID: hitl.StatusResponded, c.ID: hitl.StatusCancelled, d.ID: hitl.StatusResponded} {
			got, _ := n.e.Inquiry(ctx, admin, id)
			if got.Status != want || (want == hitl.StatusResponded && string(got.Response) != `"eu"`) {
				t.Fatalf("inquiry %d: %s %s, want %s", id, got.Status, got.Response, want)
			}
		}
		n.signs(t, "after a promotion and an answer")
	})
}

// TestDedupDeadlines: the primary's fallback at its deadline answers every asker; a joined
// asker's own deadline ends only its inquiry; a primary that times out with no fallback hands
// the question on.
func TestDedupDeadlines(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		withFallback := hitl.InquiryRequest{Prompt: "Proceed?", DedupKey: "proceed", TimeoutSeconds: seconds(60),
			FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`"no"`)}
		p := askAs(t, n.e, askerNamed("bot1"), withFallback)
		short := withFallback
		short.TimeoutSeconds, short.FallbackPolicy, short.FallbackValue = seconds(30), "", nil
		j1 := askAs(t, n.e, askerNamed("bot2"), short)
		long := short
		long.TimeoutSeconds = seconds(3600)
		j2 := askAs(t, n.e, askerNamed("bot3"), long)
		n.clock.Advance(31 * time.Second)
		waitStatus(t, n.e, j1.ID, hitl.StatusTimeout)
		if got, _ := n.e.Inquiry(ctx, admin, p.ID); got.Status != hitl.StatusPending {
			t.Fatalf("a joined inquiry's deadline ended the primary: %s", got.Status)
		}
		n.clock.Advance(30 * time.Second)
		waitStatus(t, n.e, j2.ID, hitl.StatusTimeout)
		got, _ := n.e.Inquiry(ctx, admin, j2.ID)
		if !got.FallbackApplied || string(got.Response) != `"no"` {
			t.Fatalf("the joined inquiry after the primary's fallback: %+v", got)
		}

		// Without a fallback, the next asker takes over when the primary's deadline passes.
		q := askAs(t, n.e, askerNamed("bot1"), hitl.InquiryRequest{Prompt: "Retry?", DedupKey: "retry", TimeoutSeconds: seconds(60)})
		r := askAs(t, n.e, askerNamed("bot2"), hitl.InquiryRequest{Prompt: "Retry?", DedupKey: "retry", TimeoutSeconds: seconds(3600)})
		n.clock.Advance(61 * time.Second)
		waitStatus(t, n.e, q.ID, hitl.StatusTimeout)
		if got, _ := n.e.Inquiry(ctx, admin, r.ID); got.Status != hitl.StatusPending || got.Joined != nil {
			t.Fatalf("the joined inquiry after the primary timed out: %+v", got)
		}
		n.signs(t, "after the deadlines")
	})
}

// TestDedupWithoutAKey: dedup joins equal tool calls (their arguments in any order) and
// nothing else; without dedup, equal questions are asked apart, as before; an idempotency key
// replays its own inquiry rather than joining.
func TestDedupWithoutAKey(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		call := func(id, args string, dedup bool) hitl.InquiryRequest {
			return hitl.InquiryRequest{Prompt: "Run delete_user?", RequestType: hitl.RequestApproval, Dedup: dedup,
				ToolCall: &hitl.ToolCall{ID: id, Name: "delete_user", Arguments: json.RawMessage(args)}}
		}
		a := askAs(t, n.e, askerNamed("bot1"), call("c1", `{"id":7,"hard":false}`, true))
		b := askAs(t, n.e, askerNamed("bot2"), call("c2", `{"hard":false,"id":7.0}`, true))
		c := askAs(t, n.e, askerNamed("bot3"), call("c3", `{"hard":true,"id":7}`, true))
		d := askAs(t, n.e, askerNamed("bot4"), call("c4", `{"id":7,"hard":false}`, false))
		if b.Joined == nil || *b.Joined != a.ID || c.Joined != nil || d.Joined != nil || d.DedupKey != "" {
			t.Fatalf("joined: b %v, c %v, d %v", b.Joined, c.Joined, d.Joined)
		}
		req := call("c5", `{"id":7,"hard":false}`, true)
		first, created, err := n.e.CreateInquiry(ctx, askerNamed("bot5"), &req, "retry-1")
		if err != nil || !created || first.Joined == nil {
			t.Fatalf("first create with an idempotency key: %+v %v %v", first, created, err)
		}
		again, created, err := n.e.CreateInquiry(ctx, askerNamed("bot5"), &req, "retry-1")
		if err != nil || created || again.ID != first.ID {
			t.Fatalf("the retry: %+v %v %v, want inquiry %d again", again, created, err, first.ID)
		}
	})
}

// TestDedupConcurrentAskers: askers that ask at once make one primary, the others join it.
func TestDedupConcurrentAskers(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		const askers = 12
		inqs := make([]*hitl.Inquiry, askers)
		errs := make([]error, askers)
		var wg sync.WaitGroup
		for i := range askers {
			wg.Go(func() {
				inqs[i], _, errs[i] = n.e.CreateInquiry(ctx, askerNamed(fmt.Sprintf("bot%d", i)), &hitl.InquiryRequest{Prompt: "Same?", DedupKey: "same"}, "")
			})
		}
		wg.Wait()
		checkOnePrimary(t, inqs, errs)
	})
}

// checkOnePrimary fails unless exactly one of inqs is the primary and the others joined it.
func checkOnePrimary(t *testing.T, inqs []*hitl.Inquiry, errs []error) {
	t.Helper()
	var primaries []int64
	for i, inq := range inqs {
		if errs[i] != nil {
			t.Fatalf("asker %d: %v", i, errs[i])
		}
		if inq.Joined == nil {
			primaries = append(primaries, inq.ID)
		}
	}
	if len(primaries) != 1 {
		t.Fatalf("%d primaries: %v", len(primaries), primaries)
	}
	for _, inq := range inqs {
		if inq.Joined != nil && *inq.Joined != primaries[0] {
			t.Fatalf("inquiry %d joined %d, not the primary %d", inq.ID, *inq.Joined, primaries[0])
		}
	}
}

// TestDedupQuorumVerdictAndDecline: a quorum's verdict on the primary ends the joined inquiry
// with it; a person may not decline a joined inquiry (they decline the one they see), and
// declining the primary hands the question to the next asker.
func TestDedupQuorumVerdictAndDecline(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		vote := hitl.InquiryRequest{Prompt: "Open the firewall?", RequestType: hitl.RequestApproval, AssignedTo: []string{"alice", "bob"},
			Quorum: &hitl.Quorum{Required: 2}, DedupKey: "firewall"}
		p := askAs(t, n.e, askerNamed("bot1"), vote)
		j := askAs(t, n.e, askerNamed("bot2"), vote)
		for _, who := range []*hitl.Principal{alice, bob} {
			if _, err := n.e.Respond(ctx, who, p.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`)}); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := n.e.Inquiry(ctx, admin, j.ID)
		want, _ := n.e.Inquiry(ctx, admin, p.ID)
		if got.Status != hitl.StatusResponded || string(got.Response) != string(want.Response) || len(got.Votes) != 2 {
			t.Fatalf("the joined inquiry after the verdict: %+v", got)
		}

		plain := hitl.InquiryRequest{Prompt: "Page the on-call?", AssignedTo: []string{"alice"}, DedupKey: "page"}
		a := askAs(t, n.e, askerNamed("bot1"), plain)
		b := askAs(t, n.e, askerNamed("bot2"), plain)
		if _, err := n.e.Decline(ctx, alice, b.ID, "not mine"); hitl.ErrorCode(err) != hitl.EConflict {
			t.Fatalf("declining a joined inquiry: %v, want a conflict", err)
		}
		if _, err := n.e.Decline(ctx, alice, a.ID, "not mine"); err != nil {
			t.Fatal(err)
		}
		if got, _ := n.e.Inquiry(ctx, admin, b.ID); got.Status != hitl.StatusPending || got.Joined != nil {
			t.Fatalf("the joined inquiry after the primary was declined: %+v", got)
		}
		n.signs(t, "after a verdict and a decline")
	})
}

// TestDedupDeadlinesAtOneMoment: a primary and the inquiries that joined it time out in one
// batch of timers: with a fallback all end with it; without, each ends alone and the one with
// a later deadline is promoted, not left joined to an ended inquiry.
func TestDedupDeadlinesAtOneMoment(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		withFallback := hitl.InquiryRequest{Prompt: "Keep the canary?", DedupKey: "canary", TimeoutSeconds: seconds(60),
			FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`"yes"`)}
		p := askAs(t, n.e, askerNamed("bot1"), withFallback)
		j := askAs(t, n.e, askerNamed("bot2"), withFallback)
		plain := hitl.InquiryRequest{Prompt: "Scale down?", DedupKey: "scale", TimeoutSeconds: seconds(60)}
		q := askAs(t, n.e, askerNamed("bot1"), plain)
		r := askAs(t, n.e, askerNamed("bot2"), plain)
		long := plain
		long.TimeoutSeconds = seconds(3600)
		s := askAs(t, n.e, askerNamed("bot3"), long)
		n.clock.Advance(61 * time.Second)
		for _, id := range []int64{p.ID, j.ID, q.ID, r.ID} {
			waitStatus(t, n.e, id, hitl.StatusTimeout)
		}
		for _, id := range []int64{p.ID, j.ID} {
			if got, _ := n.e.Inquiry(ctx, admin, id); !got.FallbackApplied || string(got.Response) != `"yes"` {
				t.Fatalf("inquiry %d after the fallback: %+v", id, got)
			}
		}
		if got, _ := n.e.Inquiry(ctx, admin, s.ID); got.Status != hitl.StatusPending || got.Joined != nil {
			t.Fatalf("the inquiry with the later deadline: %+v, want pending and promoted", got)
		}
		n.signs(t, "after deadlines at one moment")
	})
}

// TestDedupEachAskerHasItsOwnReceipt: the answer that ends a primary ends its joined inquiries
// each with a receipt of its own (its own sub and jti) naming the same person; a fallback
// value's receipts say the fallback decided.
func TestDedupEachAskerHasItsOwnReceipt(t *testing.T) {
	onEachStore(t, func(t *testing.T, n *auditNode) {
		req := hitl.InquiryRequest{Prompt: "Rotate the TLS keys?", RequestType: hitl.RequestApproval, DedupKey: "rotate-tls"}
		a := askAs(t, n.e, askerNamed("bot1"), req)
		b := askAs(t, n.e, askerNamed("bot2"), req)
		if _, err := n.e.Respond(ctx, human, a.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`)}); err != nil {
			t.Fatal(err)
		}
		jtis := map[string]bool{}
		for _, id := range []int64{a.ID, b.ID} {
			inq, _ := n.e.Inquiry(ctx, admin, id)
			c := verified(t, n.e, inq, n.clock.Now(), nil)
			if c.Decision != "approve" || len(c.DecidedBy) != 1 || c.DecidedBy[0].Name != "ann" || jtis[c.ID] {
				t.Fatalf("inquiry %d's receipt: %+v", id, c)
			}
			jtis[c.ID] = true
		}

		fallback := hitl.InquiryRequest{Prompt: "Keep the canary?", DedupKey: "canary", TimeoutSeconds: seconds(60),
			FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`"yes"`)}
		p := askAs(t, n.e, askerNamed("bot1"), fallback)
		j := askAs(t, n.e, askerNamed("bot2"), fallback)
		n.clock.Advance(61 * time.Second)
		for _, id := range []int64{p.ID, j.ID} {
			// Each times out at its own deadline, in a batch of its own or the same one.
			waitStatus(t, n.e, id, hitl.StatusTimeout)
			inq, _ := n.e.Inquiry(ctx, admin, id)
			if c := verified(t, n.e, inq, n.clock.Now(), nil); !c.Fallback || c.DecidedBy[0].Name != "system" {
				t.Fatalf("inquiry %d's fallback receipt: %+v", id, c)
			}
		}
		n.signs(t, "after the receipts")
	})
}
