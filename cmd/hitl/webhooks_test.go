package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

func TestWebhooksCommands(t *testing.T) {
	admin, _ := startServer(t)
	ctx := context.Background()
	got := make(chan string, 10)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("webhook-id")
	}))
	defer rc.Close()

	code, secret, errOut := cli(t, "webhooks", "create", rc.URL, "--event", "inquiry.created", "--description", "ops room")
	if code != 0 || !strings.HasPrefix(secret, "whsec_") || !strings.Contains(errOut, "shown only now") {
		t.Fatalf("webhooks create: %d %q %q", code, secret, errOut)
	}
	if code, _, errOut := cli(t, "webhooks", "create", rc.URL, "--event", "inquiry.lost"); code != exitError || !strings.Contains(errOut, "/events/0") {
		t.Fatalf("an unknown event: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "webhooks", "create", "ftp://example.com/"); code != exitError || !strings.Contains(errOut, "/url") {
		t.Fatalf("an ftp URL: %d %q", code, errOut)
	}
	code, out, _ := cli(t, "webhooks", "ls")
	if code != 0 || !strings.Contains(out, rc.URL) || !strings.Contains(out, "ops room") || strings.Contains(out, strings.TrimSpace(secret)) {
		t.Fatalf("webhooks ls: %d %q", code, out)
	}
	whs, err := admin.Webhooks(ctx)
	if err != nil || len(whs) != 1 {
		t.Fatal(whs, err)
	}
	if _, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Ship?"}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var msgID string
	select {
	case msgID = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery")
	}
	testserver.Eventually(t, 10*time.Second, "the delivery listed as delivered", func() bool {
		code, out, _ = cli(t, "webhooks", "deliveries", whs[0].ID, "--status", "delivered")
		return code == 0 && strings.Contains(out, msgID)
	})
	if !strings.Contains(out, "inquiry.created") || !strings.Contains(out, "200") {
		t.Fatalf("webhooks deliveries: %q", out)
	}
	if code, _, errOut := cli(t, "webhooks", "retry", msgID); code != 0 || !strings.Contains(errOut, "pending again") {
		t.Fatalf("webhooks retry: %d %q", code, errOut)
	}
	select {
	case again := <-got:
		if again != msgID {
			t.Fatalf("the retry came as %s, want %s", again, msgID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the retry was not sent")
	}
	if code, out, _ := cli(t, "webhooks", "callback-secret"); code != 0 || !strings.HasPrefix(out, "whsec_") {
		t.Fatalf("callback-secret: %d %q", code, out)
	}
	if code, _, errOut := cli(t, "webhooks", "rm", whs[0].ID); code != 0 || !strings.Contains(errOut, "deleted") {
		t.Fatalf("webhooks rm: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "webhooks", "rm", whs[0].ID); code != exitError || !strings.Contains(errOut, "not found") {
		t.Fatalf("webhooks rm again: %d %q", code, errOut)
	}
}

// A receiver that refuses a delivery: the list says what it said, not only its status.
func TestWebhookDeliveriesSayWhyTheReceiverRefused(t *testing.T) {
	admin, _ := startServer(t)
	ctx := context.Background()
	refused := make(chan struct{}, 10)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "the signature does not verify: check the secret", http.StatusUnauthorized)
		refused <- struct{}{}
	}))
	defer rc.Close()
	if code, _, errOut := cli(t, "webhooks", "create", rc.URL, "--event", "inquiry.created"); code != 0 {
		t.Fatalf("webhooks create: %d %q", code, errOut)
	}
	if _, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Ship?"}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-refused:
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery was attempted")
	}
	want := "401: the signature does not verify: check the secret"
	var out string
	testserver.Eventually(t, 10*time.Second, "the refusal listed", func() bool {
		var code int
		code, out, _ = cli(t, "webhooks", "deliveries")
		return code == 0 && strings.Contains(out, want)
	})
}
