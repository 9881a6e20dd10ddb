package main

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// The docs' way to try webhooks locally: `hitl webhooks listen` subscribes itself, prints
// each delivery once its signature holds, refuses a forged one, and unsubscribes when stopped.
func TestWebhooksListenReceivesSignedDeliveries(t *testing.T) {
	admin, _ := startServer(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"webhooks", "listen", "127.0.0.1:0", "--event", "inquiry.created", "--event", "inquiry.responded"}, strings.NewReader(""), &out, &errOut)
	}()
	var url string
	testserver.Eventually(t, 10*time.Second, "the listener subscribed", func() bool {
		url = regexp.MustCompile(`http://127\.0\.0\.1:\d+/hitl`).FindString(errOut.String())
		return url != ""
	})
	if !strings.Contains(errOut.String(), "for inquiry.created, inquiry.responded") {
		t.Errorf("the listener does not say what it listens for: %q", errOut.String())
	}
	inq, _, err := admin.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Respond(context.Background(), inq.ID, []byte(`{"approved":true}`), ""); err != nil {
		t.Fatal(err)
	}
	testserver.Eventually(t, 10*time.Second, "both deliveries printed", func() bool {
		return strings.Count(out.String(), "signature verified") == 2
	})
	for _, want := range []string{`hitl.inquiry.created  inquiries/1  msg_`, `"Ship it?" (pending)`, `hitl.inquiry.responded  inquiries/1`, `"Ship it?" (responded)`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the listener printed %q; want %q in it", out.String(), want)
		}
	}

	// A delivery that is not signed with the webhook's secret is refused, and said so.
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"type":"hitl.inquiry.responded"}`))
	req.Header.Set("webhook-id", "msg_forged")
	req.Header.Set("webhook-timestamp", strconv.FormatInt(time.Now().Unix(), 10))
	req.Header.Set("webhook-signature", "v1,Zm9yZ2Vk")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(errOut.String(), "Refused a delivery") || strings.Contains(out.String(), "msg_forged") {
		t.Errorf("a forged delivery: %d, stderr %q, stdout %q", resp.StatusCode, errOut.String(), out.String())
	}

	stop()
	select {
	case code := <-done:
		if code != 0 || !strings.Contains(errOut.String(), "deleted") {
			t.Errorf("stopping the listener: exit %d, %q", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the listener did not stop")
	}
	if whs, err := admin.Webhooks(context.Background()); err != nil || len(whs) != 0 {
		t.Errorf("the listener's webhook is left behind: %v %v", whs, err)
	}
}

// A server that delivers to public addresses only cannot reach the listener: it says how to
// start one that can, and subscribes nothing.
func TestWebhooksListenNeedsAServerThatDeliversLocally(t *testing.T) {
	s := testserver.Start(t)
	t.Setenv("HITL_URL", s.URL)
	t.Setenv("HITL_TOKEN", s.AdminToken)
	code, _, errOut := cli(t, "webhooks", "listen", "127.0.0.1:0")
	if code != exitError || !strings.Contains(errOut, "start it with --webhook-allow-private") {
		t.Fatalf("listen against a server for public addresses: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "webhooks", "listen", "256.0.0.1:1"); code != exitError || !strings.Contains(errOut, "cannot listen on 256.0.0.1:1") {
		t.Fatalf("listen on a bad address: %d %q", code, errOut)
	}
}
