package notify

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// The test vector published with the Standard Webhooks specification: a receiver's
// library accepts what we send only if we reproduce it exactly.
func TestSignMatchesTheStandardWebhooksVector(t *testing.T) {
	got, err := Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("signature %s, want %s", got, want)
	}
}

func TestHeadersVerifyAndTamperingFails(t *testing.T) {
	secret := NewSecret()
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q", secret)
	}
	now := time.Now()
	body := []byte(`{"specversion":"1.0"}`)
	h, err := Headers(secret, "msg_1", now, body)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(secret, h, body, now, 5*time.Minute); err != nil {
		t.Fatalf("own signature does not verify: %v", err)
	}
	if err := Verify(secret, h, []byte(`{"specversion":"1.1"}`), now, 5*time.Minute); err == nil {
		t.Fatal("a changed body verified")
	}
	if err := Verify(NewSecret(), h, body, now, 5*time.Minute); err == nil {
		t.Fatal("another secret verified")
	}
	if err := Verify(secret, h, body, now.Add(time.Hour), 5*time.Minute); err == nil {
		t.Fatal("an old timestamp verified")
	}
	if _, err := Sign("whsec_not base64!", "id", now, body); err == nil {
		t.Fatal("a malformed secret signed")
	}
}

func TestCloudEvent(t *testing.T) {
	id := int64(42)
	ev := &hitl.Event{ID: "ev-1", Type: hitl.EventInquiryResponded, Time: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), InquiryID: &id}
	b, err := json.Marshal(NewCloudEvent(ev, "http://hitl.example", json.RawMessage(`{"id":42}`)))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for k, want := range map[string]any{"specversion": "1.0", "id": "ev-1", "source": "http://hitl.example", "type": "hitl.inquiry.responded",
		"subject": "inquiries/42", "datacontenttype": "application/json", "time": "2026-11-22T10:00:00Z"} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
	if d, _ := m["data"].(map[string]any); d["id"] != float64(42) {
		t.Errorf("data = %v", m["data"])
	}
}

func TestPublicAddresses(t *testing.T) {
	for addr, public := range map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true, "127.0.0.1": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false,
		"192.168.1.1": false, "169.254.169.254": false, "fe80::1": false, "fd00:ec2::254": false, "0.0.0.0": false,
		"100.64.0.1": false, "::ffff:127.0.0.1": false, "224.0.0.1": false,
	} {
		if got := publicAddr(netip.MustParseAddr(addr)); got != public {
			t.Errorf("publicAddr(%s) = %v, want %v", addr, got, public)
		}
	}
}

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	for _, raw := range []string{"ftp://example.com/x", "/relative", "http://", "http://user:pw@example.com/"} {
		if err := CheckURL(ctx, raw, true); err == nil {
			t.Errorf("%s was accepted", raw)
		}
	}
	for _, raw := range []string{"http://127.0.0.1:8080/hook", "http://localhost/hook", "https://[::1]/hook", "http://169.254.169.254/latest/meta-data"} {
		if err := CheckURL(ctx, raw, false); !errors.Is(err, ErrPrivateAddress) {
			t.Errorf("%s: %v, want refused as private", raw, err)
		}
		if err := CheckURL(ctx, raw, true); err != nil {
			t.Errorf("%s with private addresses allowed: %v", raw, err)
		}
	}
	if err := CheckURL(ctx, "https://93.184.215.14/hook", false); err != nil {
		t.Errorf("a public address: %v", err)
	}
}

func TestClientRefusesPrivateAddressesAtDialAndFollowsNoRedirects(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		w.Write([]byte(strings.Repeat("x", 2*ResponseLimit)))
	}))
	defer srv.Close()
	// By name, so only the dial-time check can catch it (as with DNS rebinding).
	byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	if _, err := NewClient(false, DefaultAttemptTimeout).Get(byName); !errors.Is(err, ErrPrivateAddress) {
		t.Fatalf("a connection to loopback by name: %v", err)
	}
	resp, err := NewClient(true, DefaultAttemptTimeout).Get(byName + "/redirect")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("a redirect was followed: %d", resp.StatusCode)
	}
	resp, err = NewClient(true, DefaultAttemptTimeout).Get(byName)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if body := ReadLimited(resp.Body); len(body) != ResponseLimit {
		t.Fatalf("read %d bytes of the answer, want %d", len(body), ResponseLimit)
	}
}

// TestBackoff: the wait doubles from the base, within ±25 % jitter, up to the ceiling, and is
// at least what the receiver asked for (never beyond the ceiling).
func TestBackoff(t *testing.T) {
	d := NewDispatcher(nil, nil, DispatchOptions{RetryBase: 5 * time.Second, RetryMax: time.Hour})
	for n := 1; n <= 40; n++ {
		want := min(5*time.Second<<min(n-1, 20), time.Hour)
		for range 20 {
			got := d.backoff(n, 0)
			if got < want*3/4 || got > min(want*5/4, time.Hour) {
				t.Fatalf("attempt %d: waited %s, want %s ±25%% and at most 1h", n, got, want)
			}
		}
	}
	if got := d.backoff(1, 10*time.Minute); got != 10*time.Minute {
		t.Fatalf("Retry-After 10m after the first attempt: %s", got)
	}
	if got := d.backoff(1, 3*time.Hour); got != time.Hour {
		t.Fatalf("Retry-After beyond the ceiling: %s", got)
	}
}
