package engine_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/receipt"
)

// verified checks inq's receipt against e's JWKS as an executor would, with args when given,
// and that what it says is what the inquiry says.
func verified(t *testing.T, e *engine.Engine, inq *hitl.Inquiry, now time.Time, args json.RawMessage) *receipt.Claims {
	t.Helper()
	if inq.Receipt == "" {
		t.Fatalf("inquiry %d (%s) has no receipt", inq.ID, inq.Status)
	}
	jwks, _ := json.Marshal(e.JWKS())
	c, err := receipt.Verify(inq.Receipt, jwks, receipt.Options{Issuer: "urn:hitl", Now: now, Args: args})
	if err != nil {
		t.Fatalf("inquiry %d's receipt: %v", inq.ID, err)
	}
	if want, _ := receipt.SHA256Hex(inq.Response); c.ResponseSHA256 != want {
		t.Fatalf("response_sha256 %s, want %s of %s", c.ResponseSHA256, want, inq.Response)
	}
	if c.Subject != jsonID(inq.ID) {
		t.Fatalf("sub %s for inquiry %d", c.Subject, inq.ID)
	}
	return c
}

func names(ds []receipt.Decider) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Name)
	}
	return out
}

// TestReceiptOfEachToolDecision: approve, edit and reject each get a receipt naming the
// decision, the tool and the hash of the arguments as decided; an executor holding other
// arguments is refused.
func TestReceiptOfEachToolDecision(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	proposed := json.RawMessage(`{"env":"prod","replicas":3}`)
	ask := func() *hitl.Inquiry {
		inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "deploy?", RequestType: hitl.RequestApproval,
			ToolCall: &hitl.ToolCall{ID: "c1", Name: "deploy", Arguments: proposed,
				ParametersSchema: json.RawMessage(`{"type":"object","properties":{"env":{"type":"string"},"replicas":{"type":"integer"}}}`)},
			AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionEdit, hitl.DecisionReject}, ReceiptValidFor: "30m"}, "")
		if err != nil {
			t.Fatal(err)
		}
		return inq
	}
	for _, tc := range []struct {
		answer, decision string
		args             json.RawMessage
	}{
		{`{"decision":"approve"}`, receipt.DecisionApprove, proposed},
		{`{"decision":"edit","args":{"env":"prod","replicas":2}}`, receipt.DecisionEdit, json.RawMessage(`{"replicas":2.0,"env":"prod"}`)},
		{`{"decision":"reject","message":"not today"}`, receipt.DecisionReject, proposed},
	} {
		out, err := e.Respond(ctx, human, ask().ID, &hitl.ResponseRequest{Response: json.RawMessage(tc.answer)})
		if err != nil {
			t.Fatal(err)
		}
		claims := verified(t, e, out, c.Now(), tc.args)
		if claims.Decision != tc.decision || claims.Tool != "deploy" || claims.Fallback || !slices.Equal(names(claims.DecidedBy), []string{"ann"}) {
			t.Fatalf("%s: claims %+v", tc.answer, claims)
		}
		if got := claims.Expiry().Sub(time.Unix(claims.IssuedAt, 0)); got != 30*time.Minute {
			t.Fatalf("valid for %v, want the inquiry's 30m", got)
		}
		if _, err := receipt.Verify(out.Receipt, mustJSON(e.JWKS()), receipt.Options{Now: c.Now(), Args: json.RawMessage(`{"env":"prod","replicas":300}`)}); !isReason(err, receipt.ReasonArgsMismatch) {
			t.Fatalf("other arguments: %v", err)
		}
		// The stored inquiry carries the same receipt as the answer returned.
		stored, err := e.Inquiry(ctx, agent, out.ID)
		if err != nil || stored.Receipt != out.Receipt {
			t.Fatalf("stored receipt differs: %v", err)
		}
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func isReason(err error, reason string) bool {
	e, ok := err.(*receipt.Error)
	return ok && e.Reason == reason
}

// TestReceiptOfAnswersVerdictsAndFallbacks: a plain answer, an approval's rejection, a
// delegate's and a relay's answers, a quorum's verdict (each voter on the winning side), and a
// fallback value each have a receipt; a cancellation and a timeout without fallback none.
func TestReceiptOfAnswersVerdictsAndFallbacks(t *testing.T) {
	e, c := away(t, "alice", "bob", "carol", "dan")
	relay := &hitl.Principal{Name: "slack-relay", Roles: []string{hitl.RoleResponder, hitl.RoleRelay}}
	keyFor(t, e, relay)

	plain, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Which region?", Template: ""}, "")
	must(t, err)
	out, err := e.Respond(ctx, responder("alice"), plain.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"eu-west"`)})
	must(t, err)
	if cl := verified(t, e, out, c.Now(), nil); cl.Decision != receipt.DecisionAnswer || cl.Tool != "" || cl.ArgsSHA256 != "" {
		t.Fatalf("plain answer: %+v", cl)
	}
	if _, err := receipt.Verify(out.Receipt, mustJSON(e.JWKS()), receipt.Options{Now: c.Now(), Args: json.RawMessage(`{}`)}); !isReason(err, receipt.ReasonNoArgsHash) {
		t.Fatalf("arguments against a plain answer: %v", err)
	}

	rejected := approval(t, e, agent, &hitl.InquiryRequest{})
	out, err = e.Respond(ctx, responder("bob"), rejected.ID, approve(false, "no"))
	must(t, err)
	if cl := verified(t, e, out, c.Now(), nil); cl.Decision != receipt.DecisionReject {
		t.Fatalf("rejection: %+v", cl)
	}

	relayed := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"carol"}})
	out, err = e.Respond(ctx, relay, relayed.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`), RespondedBy: "carol"})
	must(t, err)
	if cl := verified(t, e, out, c.Now(), nil); cl.Decision != receipt.DecisionApprove || cl.DecidedBy[0] != (receipt.Decider{Name: "carol", RelayedBy: "slack-relay"}) {
		t.Fatalf("relayed: %+v", cl)
	}

	absent(t, e, c, "alice", "bob", 0, time.Hour)
	delegated := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"alice"}})
	out, err = e.Respond(ctx, responder("bob"), delegated.ID, approve(true, ""))
	must(t, err)
	if cl := verified(t, e, out, c.Now(), nil); cl.DecidedBy[0] != (receipt.Decider{Name: "bob", OnBehalfOf: "alice"}) {
		t.Fatalf("delegate: %+v", cl)
	}

	quorum := approval(t, e, agent, &hitl.InquiryRequest{AssignedTo: []string{"carol", "dan", "bob"}, Quorum: &hitl.Quorum{Required: 2, Reject: hitl.RejectRule{Majority: true}}})
	must2(t, e, responder("dan"), quorum.ID, approve(true, ""))
	must2(t, e, responder("carol"), quorum.ID, approve(true, ""))
	got, err := e.Inquiry(ctx, agent, quorum.ID)
	must(t, err)
	if cl := verified(t, e, got, c.Now(), nil); cl.Decision != receipt.DecisionApprove || !slices.Equal(names(cl.DecidedBy), []string{"dan", "carol"}) {
		t.Fatalf("quorum: %+v", cl)
	}

	cancelled := approval(t, e, agent, &hitl.InquiryRequest{})
	out, err = e.Cancel(ctx, agent, cancelled.ID, "changed my mind")
	must(t, err)
	if out.Receipt != "" {
		t.Fatal("a cancelled inquiry has a receipt")
	}

	fallback := approval(t, e, agent, &hitl.InquiryRequest{TimeoutSeconds: seconds(60), FallbackPolicy: hitl.FallbackCompleteWithFallback, FallbackValue: json.RawMessage(`{"approved":false}`)})
	silent := approval(t, e, agent, &hitl.InquiryRequest{TimeoutSeconds: seconds(60)})
	c.Advance(2 * time.Minute)
	got, err = e.Wait(ctx, agent, fallback.ID, 5*time.Second)
	must(t, err)
	if cl := verified(t, e, got, c.Now(), nil); !got.FallbackApplied || !cl.Fallback || cl.Decision != receipt.DecisionReject || !slices.Equal(names(cl.DecidedBy), []string{"system"}) {
		t.Fatalf("fallback: %+v", cl)
	}
	got, err = e.Wait(ctx, agent, silent.ID, 5*time.Second)
	must(t, err)
	if got.Status != hitl.StatusTimeout || got.Receipt != "" {
		t.Fatalf("timeout without fallback: %s, receipt %q", got.Status, got.Receipt)
	}
}

func must2(t *testing.T, e *engine.Engine, p *hitl.Principal, id int64, req *hitl.ResponseRequest) {
	t.Helper()
	if _, err := e.Respond(ctx, p, id, req); err != nil {
		t.Fatal(err)
	}
}

// TestReceiptValidForIsChecked: receipt_valid_for is a duration above 0 and at most the
// server's maximum; each bad value is invalid at its path.
func TestReceiptValidForIsChecked(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	for _, v := range []string{"soon", "0s", "-5m", "31d", "1.5s"} {
		_, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", ReceiptValidFor: v}, "")
		var he *hitl.Error
		if !asError(err, &he) || he.Code != hitl.EInvalid || len(he.Fields) != 1 || he.Fields[0].Path != "/receipt_valid_for" {
			t.Fatalf("receipt_valid_for %q: %v", v, err)
		}
	}
	if _, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", ReceiptValidFor: "30d"}, ""); err != nil {
		t.Fatalf("30d: %v", err)
	}
}

// TestRotatedSigningKey: after a rotation receipts are signed with the new key, those of the
// old key still verify, those of the key before no longer do (unknown_key); only admins rotate.
func TestRotatedSigningKey(t *testing.T) {
	c := clock.NewManual(time.Now())
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	answered := func() *hitl.Inquiry {
		inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?"}, "")
		must(t, err)
		out, err := e.Respond(ctx, human, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"yes"`)})
		must(t, err)
		return out
	}
	first := answered()
	if _, err := e.RotateSigningKey(ctx, human); hitl.ErrorCode(err) != hitl.EForbidden {
		t.Fatalf("a responder rotates: %v", err)
	}
	kid, err := e.RotateSigningKey(ctx, admin)
	must(t, err)
	second := answered()
	if ks := e.JWKS().Keys; len(ks) != 2 || ks[0].Kid != kid {
		t.Fatalf("JWKS after a rotation: %+v", ks)
	}
	verified(t, e, first, c.Now(), nil)
	verified(t, e, second, c.Now(), nil)
	if _, err := e.RotateSigningKey(ctx, admin); err != nil {
		t.Fatal(err)
	}
	if _, err := receipt.Verify(first.Receipt, mustJSON(e.JWKS()), receipt.Options{Now: c.Now()}); !isReason(err, receipt.ReasonUnknownKey) {
		t.Fatalf("a receipt of the key rotated out: %v", err)
	}
	verified(t, e, second, c.Now(), nil)
}

// TestRedeemOnce: a receipt is redeemed once; again is a conflict that says when and by
// whom; an unknown one is not found; an expired one a conflict.
func TestRedeemOnce(t *testing.T) {
	c := clock.NewManual(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), c)
	defer stop()
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", ReceiptValidFor: "10m"}, "")
	must(t, err)
	out, err := e.Respond(ctx, human, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"yes"`)})
	must(t, err)
	jti := out.ReceiptID()
	r, err := e.RedeemReceipt(ctx, agent, jti)
	if err != nil || r.ID != jti || r.InquiryID != inq.ID || r.RedeemedBy != "bot" {
		t.Fatalf("redeem: %+v, %v", r, err)
	}
	_, err = e.RedeemReceipt(ctx, human, jti)
	wantCode(t, err, hitl.EConflict, "already redeemed at 2026-12-01T09:00:00Z by bot")
	_, err = e.RedeemReceipt(ctx, agent, "rcpt_nope")
	wantCode(t, err, hitl.ENotFound, "")
	inq2, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "ok?", ReceiptValidFor: "10m"}, "")
	must(t, err)
	out2, err := e.Respond(ctx, human, inq2.ID, &hitl.ResponseRequest{Response: json.RawMessage(`"yes"`)})
	must(t, err)
	c.Advance(11 * time.Minute)
	_, err = e.RedeemReceipt(ctx, agent, out2.ReceiptID())
	wantCode(t, err, hitl.EConflict, "expired at 2026-12-01T09:10:00Z")
}
