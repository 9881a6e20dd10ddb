package notify

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl/internal/outbound"
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
	secret := outbound.NewSecret()
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
	if err := Verify(outbound.NewSecret(), h, body, now, 5*time.Minute); err == nil {
		t.Fatal("another secret verified")
	}
	if err := Verify(secret, h, body, now.Add(time.Hour), 5*time.Minute); err == nil {
		t.Fatal("an old timestamp verified")
	}
	if _, err := Sign("whsec_not base64!", "id", now, body); err == nil {
		t.Fatal("a malformed secret signed")
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
	if _, err := NewClient(false, DefaultAttemptTimeout).Get(byName); !errors.Is(err, outbound.ErrNotPublic) {
		t.Fatalf("a connection to loopback by name: %v", err)
	}
	// The delivery log says which kind of address was refused. (Refused before connecting.)
	_, err := NewClient(false, DefaultAttemptTimeout).Post("http://192.0.2.1/hook", "text/plain", nil)
	if err := attemptError(err, DefaultAttemptTimeout); !strings.HasPrefix(err.Error(), "192.0.2.1 is a documentation address (RFC 5737); ") {
		t.Fatalf("a connection to a documentation address: %v", err)
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

// VerifyRequest reads the three headers from a request's, and names the one that is missing.
func TestVerifyRequestNamesAMissingHeader(t *testing.T) {
	secret := outbound.NewSecret()
	now := time.Now()
	body := []byte(`{"specversion":"1.0"}`)
	h, err := Headers(secret, "msg_1", now, body)
	if err != nil {
		t.Fatal(err)
	}
	header := http.Header{}
	for name, v := range h {
		header.Set(name, v)
	}
	if err := VerifyRequest(secret, header, body, now); err != nil {
		t.Fatalf("a signed request does not verify: %v", err)
	}
	if err := VerifyRequest(secret, header, []byte(`{}`), now); err == nil {
		t.Fatal("a changed body verified")
	}
	header.Del("webhook-timestamp")
	if err := VerifyRequest(secret, header, body, now); err == nil || !strings.Contains(err.Error(), "no webhook-timestamp header") {
		t.Fatalf("without webhook-timestamp: %v", err)
	}
}
