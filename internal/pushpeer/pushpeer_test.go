package pushpeer

import (
	"net/http"
	"strings"
	"testing"

	webpushlib "github.com/SherClockHolmes/webpush-go"
)

// send posts a message as an application server does, with the library hitl sends with.
func send(t *testing.T, endpoint string, keys *Subscription, private, public, msg string) int {
	t.Helper()
	resp, err := webpushlib.SendNotification([]byte(msg), &webpushlib.Subscription{Endpoint: endpoint,
		Keys: webpushlib.Keys{P256dh: keys.P256DH, Auth: keys.Auth}},
		&webpushlib.Options{Subscriber: "ops@example.com", VAPIDPrivateKey: private, VAPIDPublicKey: public, TTL: 60})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestThePeerChecksWhatItIsSent: a message signed and encrypted right is taken and decrypted;
// one signed with another key than k=, for another audience, or encrypted for another device
// is refused; failures on demand and forgotten subscriptions answer as a push service does.
func TestThePeerChecksWhatItIsSent(t *testing.T) {
	p := New()
	defer p.Close()
	a, b := p.Subscribe(), p.Subscribe()
	private, public, err := webpushlib.GenerateVAPIDKeys()
	if err != nil {
		t.Fatal(err)
	}
	if code := send(t, a.Endpoint, a, private, public, `{"hello":"a"}`); code != http.StatusCreated {
		t.Fatalf("a right message: %d %v", code, p.Rejected())
	}
	m := <-p.Received()
	if m.Subscription != a.ID || string(m.Plaintext) != `{"hello":"a"}` || m.VAPIDKey != public || m.Subject != "mailto:ops@example.com" || m.TTL != "60" {
		t.Fatalf("received: %+v", m)
	}

	_, otherPublic, _ := webpushlib.GenerateVAPIDKeys()
	for _, c := range []struct {
		name, endpoint string
		keys           *Subscription
		public         string
		code           int
		says           string
	}{
		{"signed with another key than k=", a.Endpoint, a, otherPublic, http.StatusUnauthorized, "does not verify"},
		{"for another audience", strings.Replace(a.Endpoint, "127.0.0.1", "localhost", 1), a, public, http.StatusUnauthorized, "aud is"},
		{"encrypted for another device", a.Endpoint, b, public, http.StatusBadRequest, "does not open"},
	} {
		if code := send(t, c.endpoint, c.keys, private, c.public, "x"); code != c.code {
			t.Errorf("%s: %d, want %d", c.name, code, c.code)
		}
		if r := p.Rejected(); len(r) == 0 || !strings.Contains(r[len(r)-1], c.says) {
			t.Errorf("%s: refused for %v, want %q", c.name, r, c.says)
		}
	}
	p.FailNext(a, http.StatusServiceUnavailable, http.StatusNotFound)
	for _, want := range []int{http.StatusServiceUnavailable, http.StatusNotFound, http.StatusCreated} {
		if code := send(t, a.Endpoint, a, private, public, "y"); code != want {
			t.Fatalf("on demand: %d, want %d", code, want)
		}
	}
	<-p.Received()
	// Restricted to one server's key, a message signed (rightly) with another key is refused.
	otherPrivate, otherPublic2, _ := webpushlib.GenerateVAPIDKeys()
	p.RestrictTo(public)
	if code := send(t, a.Endpoint, a, otherPrivate, otherPublic2, "w"); code != http.StatusForbidden {
		t.Fatalf("another server's key: %d", code)
	}
	if r := p.Rejected(); !strings.Contains(r[len(r)-1], "not the key the subscription was made with") {
		t.Fatalf("refused for %v", r)
	}
	p.Forget(a)
	if code := send(t, a.Endpoint, a, private, public, "z"); code != http.StatusGone {
		t.Fatalf("a forgotten subscription: %d", code)
	}
	if len(p.Received()) != 0 {
		t.Fatal("a refused message was received")
	}
}
