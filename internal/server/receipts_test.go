package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/receipt"
)

// answeredWithReceipt asks (as the admin) an approval of a tool call, answers it as a
// responder, and returns the answered inquiry.
func answeredWithReceipt(t *testing.T, s *testserver.Server, responder *client.Client) *hitl.Inquiry {
	t.Helper()
	ctx := context.Background()
	inq, _, err := s.Admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval,
		ToolCall:         &hitl.ToolCall{ID: "c1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod"}`)},
		AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionReject}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := responder.Respond(ctx, inq.ID, json.RawMessage(`{"decision":"approve"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if out.Receipt == "" {
		t.Fatal("the answer carries no receipt")
	}
	return out
}

func jwksOf(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url + "/.well-known/jwks.json") // no credentials
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "public, max-age=300" {
		t.Fatalf("GET /.well-known/jwks.json: %s, Cache-Control %q", resp.Status, resp.Header.Get("Cache-Control"))
	}
	var doc json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestReceipts(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testReceipts(t) })
	t.Run("postgres", func(t *testing.T) { testReceipts(t, testserver.Postgres()) })
}

// testReceipts: the receipt of an answer is the same in the answer, GET, the wait and the
// event; it verifies against the public JWKS with the server's URL as issuer; redeem is 200
// once, then 409; an unknown receipt 404; no credentials 401.
func testReceipts(t *testing.T, opts ...testserver.Option) {
	s := testserver.Start(t, append(opts, testserver.Webhooks(fastWebhooks))...)
	ctx := context.Background()
	rc := newReceiver(t, func(int, received) int { return http.StatusOK })
	_, err := s.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: rc.URL + "/hook", Events: []string{hitl.EventInquiryResponded}})
	must(t, err)
	ann, _ := s.Key(hitl.KeyRequest{Name: "ann", Roles: []string{hitl.RoleResponder}})
	out := answeredWithReceipt(t, s, ann)
	// The webhook of the answer carries the same receipt.
	eventually(t, "the webhook of the answer", func() bool { return len(rc.requests()) == 1 })
	var hooked hitl.Inquiry
	if err := json.Unmarshal(rc.requests()[0].event(t).Data, &hooked); err != nil || hooked.Receipt != out.Receipt {
		t.Fatalf("the webhook's receipt differs: %v", err)
	}
	got, err := s.Admin.Inquiry(ctx, out.ID)
	if err != nil || got.Receipt != out.Receipt {
		t.Fatalf("GET: %v, receipt differs", err)
	}
	waited, err := s.Admin.Wait(ctx, out.ID, time.Second)
	if err != nil || waited.Receipt != out.Receipt {
		t.Fatalf("wait: %v, receipt differs", err)
	}
	page, err := s.Admin.EventPage(ctx, client.EventOptions{InquiryID: out.ID, Types: []string{hitl.EventInquiryResponded}})
	if err != nil || len(page.Data) != 1 {
		t.Fatalf("the inquiry.responded event: %v", err)
	}
	var data hitl.Inquiry // what webhooks, callbacks and streams deliver
	if err := json.Unmarshal(page.Data[0].Data, &data); err != nil || data.Receipt != out.Receipt {
		t.Fatalf("the inquiry.responded event's receipt differs: %v", err)
	}
	c, err := receipt.Verify(out.Receipt, jwksOf(t, s.URL), receipt.Options{Issuer: s.URL, Args: json.RawMessage(`{"env":"prod"}`)})
	if err != nil || c.Decision != receipt.DecisionApprove || c.DecidedBy[0].Name != "ann" || c.Tool != "deploy" {
		t.Fatalf("verify: %+v, %v", c, err)
	}
	if c, err := ann.VerifyReceipt(ctx, out.Receipt, receipt.Options{}); err != nil || c.ID != out.ReceiptID() {
		t.Fatalf("client.VerifyReceipt: %+v, %v", c, err)
	}

	r, err := ann.RedeemReceipt(ctx, c.ID)
	if err != nil || r.RedeemedBy != "ann" || r.InquiryID != out.ID {
		t.Fatalf("first redeem: %+v, %v", r, err)
	}
	wantStatus(t, func() error { _, err := s.Admin.RedeemReceipt(ctx, c.ID); return err }, http.StatusConflict, "already redeemed at")
	wantStatus(t, func() error { _, err := s.Admin.RedeemReceipt(ctx, "rcpt_unknown"); return err }, http.StatusNotFound, "rcpt_unknown")
	wantStatus(t, func() error { _, err := s.Client("").RedeemReceipt(ctx, c.ID); return err }, http.StatusUnauthorized, "")
	wantStatus(t, func() error { _, err := ann.RotateSigningKey(ctx); return err }, http.StatusForbidden, "")

	// A bad receipt_valid_for is refused at its path.
	_, _, err = s.Admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "ok?", ReceiptValidFor: "forever"}, client.CreateOptions{})
	var ce *client.Error
	if !errors.As(err, &ce) || ce.StatusCode != http.StatusBadRequest || ce.Code != hitl.EInvalid || !strings.Contains(err.Error(), "/receipt_valid_for") {
		t.Fatalf("receipt_valid_for forever: %v", err)
	}
}

func wantStatus(t *testing.T, call func() error, status int, contains string) {
	t.Helper()
	err := call()
	var ce *client.Error
	if !errors.As(err, &ce) || ce.StatusCode != status || !strings.Contains(err.Error(), contains) {
		t.Fatalf("got %v, want %d containing %q", err, status, contains)
	}
}

// TestReceiptsAcrossNodes: two nodes on one PostgreSQL database. A rotation on node A is
// picked up by node B: B signs with the new key, and a receipt A signed after the rotation
// verifies against B's JWKS. Redeems racing on both nodes: exactly one succeeds.
func TestReceiptsAcrossNodes(t *testing.T) {
	a := testserver.Start(t, testserver.Postgres())
	b := testserver.Start(t, testserver.DB(a.DB))
	ctx := context.Background()
	_, token := a.Key(hitl.KeyRequest{Name: "ann", Roles: []string{hitl.RoleResponder}})
	annA, annB := a.Client(token), b.Client(token)

	rotated, err := a.Admin.RotateSigningKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	testserver.Eventually(t, 10*time.Second, "node B serving the rotated key", func() bool {
		var set receipt.JWKS
		return json.Unmarshal(jwksOf(t, b.URL), &set) == nil && len(set.Keys) == 2 && set.Keys[0].Kid == rotated.Kid
	})
	signedOnA := answeredWithReceipt(t, a, annA)
	if _, err := receipt.Verify(signedOnA.Receipt, jwksOf(t, b.URL), receipt.Options{}); err != nil {
		t.Fatalf("A's receipt against B's JWKS: %v", err)
	}
	signedOnB := answeredWithReceipt(t, b, annB)
	header, _, _ := strings.Cut(signedOnB.Receipt, ".")
	if !strings.Contains(decodeSegment(t, header), rotated.Kid) {
		t.Fatalf("node B signs with %s, not the new key %s", decodeSegment(t, header), rotated.Kid)
	}

	jti := signedOnB.ReceiptID()
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		ok, taken int
	)
	for i := range 8 {
		c := annA
		if i%2 == 1 {
			c = annB
		}
		wg.Go(func() {
			_, err := c.RedeemReceipt(ctx, jti)
			var ce *client.Error
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.As(err, &ce) && ce.StatusCode == http.StatusConflict && strings.Contains(ce.Detail, "already redeemed"):
				taken++
			default:
				t.Errorf("redeem: %v", err)
			}
		})
	}
	wg.Wait()
	if ok != 1 || taken != 7 {
		t.Fatalf("racing redeems: %d succeeded, %d refused; want 1 and 7", ok, taken)
	}
}

func decodeSegment(t *testing.T, s string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
