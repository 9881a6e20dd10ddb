package web_test

import (
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/pushpeer"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// TestTheAppIsInstallable: the manifest names the app, opens it standalone at / and lists
// icons that are served, the PNGs at their sizes; the layout links them.
func TestTheAppIsInstallable(t *testing.T) {
	e := start(t)
	b := e.browser()
	res := b.get("/manifest.webmanifest")
	var m struct {
		Name       string `json:"name"`
		StartURL   string `json:"start_url"`
		Display    string `json:"display"`
		ThemeColor string `json:"theme_color"`
		Icons      []struct{ Src, Sizes, Type, Purpose string }
	}
	if res.status != 200 || res.header.Get("Content-Type") != "application/manifest+json" || json.Unmarshal([]byte(res.body), &m) != nil {
		t.Fatalf("manifest: %d %v %s", res.status, res.header, res.body)
	}
	if m.Name != "hitl inbox" || m.Display != "standalone" || m.StartURL != "/" || m.ThemeColor == "" || len(m.Icons) < 3 {
		t.Fatalf("manifest: %+v", m)
	}
	for _, icon := range m.Icons {
		got := b.get(icon.Src)
		if got.status != 200 || got.header.Get("Content-Type") != icon.Type {
			t.Fatalf("%s: %d %s", icon.Src, got.status, got.header.Get("Content-Type"))
		}
		if icon.Type != "image/png" {
			continue
		}
		img, err := png.Decode(strings.NewReader(got.body))
		if err != nil {
			t.Fatalf("%s is no PNG: %v", icon.Src, err)
		}
		if size := img.Bounds().Size(); icon.Sizes != fmt.Sprintf("%dx%d", size.X, size.Y) {
			t.Fatalf("%s is %v, the manifest says %s", icon.Src, img.Bounds(), icon.Sizes)
		}
	}
	if res := b.get("/icons/icon-13.png"); res.status != http.StatusNotFound {
		t.Fatalf("an icon of no size: %d", res.status)
	}
	login := b.get("/login")
	for _, want := range []string{`<link rel="manifest" href="/manifest.webmanifest">`, `<link rel="apple-touch-icon" href="/icons/icon-192.png">`} {
		if !strings.Contains(login.body, want) {
			t.Errorf("the layout lacks %s", want)
		}
	}
	if csp := login.header.Get("Content-Security-Policy"); !strings.Contains(csp, "manifest-src 'self'") || !strings.Contains(csp, "worker-src 'self'") {
		t.Errorf("CSP: %s", csp)
	}
}

var pushToggle = regexp.MustCompile(`id="push-toggle" hidden data-key="([^"]+)" data-csrf="([^"]+)"`)

// TestTurningOnNotificationsFromTheInbox: the page's control carries the VAPID key and the
// CSRF token; the subscription it posts is stored for the person signed in; without the
// token, or with a subscription that is not one, nothing is stored.
func TestTurningOnNotificationsFromTheInbox(t *testing.T) {
	peer := pushpeer.New()
	t.Cleanup(peer.Close)
	e := start(t, testserver.AllowPrivate())
	b := e.browser()
	b.signIn(e.responderToken)
	page := b.get("/")
	m := pushToggle.FindStringSubmatch(page.body)
	if m == nil {
		t.Fatalf("no notifications control on the inbox page")
	}
	if m[1] != e.Engine().VAPIDPublicKey() {
		t.Fatalf("the control's key %q is not the server's", m[1])
	}
	csrf := m[2]
	dev := peer.Subscribe()

	if res := b.post("/push/subscriptions", url.Values{"subscription": {dev.JSON()}}); res.status != http.StatusForbidden {
		t.Fatalf("without the CSRF token: %d", res.status)
	}
	if res := b.post("/push/subscriptions", url.Values{"csrf": {csrf}, "subscription": {`{"endpoint":`}}); res.status != http.StatusBadRequest || !strings.Contains(res.body, "cannot be read") {
		t.Fatalf("a broken subscription: %d %s", res.status, res.body)
	}
	bad := strings.Replace(dev.JSON(), dev.Auth, "c2hvcnQ", 1)
	if res := b.post("/push/subscriptions", url.Values{"csrf": {csrf}, "subscription": {bad}}); res.status != http.StatusBadRequest || !strings.Contains(res.body, "/keys/auth") {
		t.Fatalf("a short auth secret: %d %s", res.status, res.body)
	}
	if _, err := e.Engine().PushDevice(t.Context(), dev.Endpoint); err == nil {
		t.Fatal("a refused subscription was stored")
	}
	if res := b.post("/push/subscriptions", url.Values{"csrf": {csrf}, "subscription": {dev.JSON()}}); res.status != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", res.status, res.body)
	}
	if got, err := e.Engine().PushDevice(t.Context(), dev.Endpoint); err != nil || got.Person != "ada" {
		t.Fatalf("stored: %+v %v", got, err)
	}
	if res := b.post("/push/unsubscribe", url.Values{"csrf": {csrf}, "endpoint": {dev.Endpoint}}); res.status != http.StatusNoContent {
		t.Fatalf("unsubscribe: %d %s", res.status, res.body)
	}
	if _, err := e.Engine().PushDevice(t.Context(), dev.Endpoint); err == nil {
		t.Fatal("still stored after turning it off")
	}
	// Signed out: refused.
	if res := e.browser().post("/push/subscriptions", url.Values{"csrf": {csrf}, "subscription": {dev.JSON()}}); res.status != http.StatusUnauthorized {
		t.Fatalf("signed out: %d", res.status)
	}
}

// TestSigningOutTurnsTheDeviceOff: the sign-out form names the device's subscription (the
// page's script adds it), and the server forgets that device of the person who signs out, so
// that a shared phone stops getting their notifications and their buttons stop answering; a
// device of someone else named there is not theirs to forget, and the sign-out happens anyway.
func TestSigningOutTurnsTheDeviceOff(t *testing.T) {
	peer := pushpeer.New()
	t.Cleanup(peer.Close)
	e := start(t, testserver.AllowPrivate())
	_, bobToken := e.keyToken("bob", hitl.RoleResponder)
	bobsPhone, adasPhone := peer.Subscribe(), peer.Subscribe()
	e.subscribeDevice(bobToken, bobsPhone)
	e.subscribeDevice(e.responderToken, adasPhone)

	b := e.browser()
	b.signIn(e.responderToken)
	csrf := pushToggle.FindStringSubmatch(b.get("/").body)[2]
	if res := b.post("/logout", url.Values{"csrf": {csrf}, "push_endpoint": {bobsPhone.Endpoint}}); res.status != http.StatusSeeOther && res.status != http.StatusOK {
		t.Fatalf("sign-out naming bob's device: %d %s", res.status, res.body)
	}
	if got, err := e.Engine().PushDevice(t.Context(), bobsPhone.Endpoint); err != nil || got.Person != "bob" {
		t.Fatalf("ada's sign-out forgot bob's device: %+v %v", got, err)
	}
	if res := b.get("/"); res.status != http.StatusSeeOther || !strings.HasPrefix(res.header.Get("Location"), "/login") {
		t.Fatalf("ada is still signed in: %d", res.status)
	}

	b.signIn(e.responderToken)
	csrf = pushToggle.FindStringSubmatch(b.get("/").body)[2]
	b.post("/logout", url.Values{"csrf": {csrf}, "push_endpoint": {adasPhone.Endpoint}})
	if _, err := e.Engine().PushDevice(t.Context(), adasPhone.Endpoint); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("ada's phone after she signed out on it: %v", err)
	}
}

// subscribeDevice turns on notifications for the token's person on a device, by the API.
func (e *env) subscribeDevice(token string, dev *pushpeer.Subscription) {
	e.t.Helper()
	if code, body := call(e.t, "POST", e.URL+"/v1/me/push-subscriptions", token, dev.JSON()); code != http.StatusCreated {
		e.t.Fatalf("subscribe: %d %s", code, body)
	}
}
