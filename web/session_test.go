package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/httpapi"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/store/sqlite"
	"github.com/hitl-dev/hitl/web"
)

// Inbox sessions live on the server: the cookie holds a random session id, never the API
// token, and a session ends for every browser and node at sign-out, at expiry, or when its
// key is revoked. The event stream, which takes the cookie too, follows the same rules.

// browserAt is a browser with a cookie jar of its own, pointed at base.
func browserAt(t *testing.T, base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: base, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// session is the value of the browser's session cookie ("" for none).
func (b *browser) session() string {
	u, _ := url.Parse(b.base)
	for _, c := range b.http.Jar.Cookies(u) {
		if c.Name == httpapi.SessionCookie {
			return c.Value
		}
	}
	return ""
}

// holdSession puts a session id in the browser's jar, as a copied cookie (or another node
// behind the same name) would.
func (b *browser) holdSession(id string) {
	u, _ := url.Parse(b.base)
	b.http.Jar.SetCookies(u, []*http.Cookie{{Name: httpapi.SessionCookie, Value: id, Path: "/"}})
}

// streamStatus opens the event stream with the browser's cookie and returns the status.
func (b *browser) streamStatus() int {
	b.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.base+"/v1/events/stream", nil)
	res, err := b.http.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	return res.StatusCode
}

// signedIn checks that the browser's cookie opens the inbox and the stream, or that neither
// takes it: the inbox sends to the sign-in page, a form gets 401, the stream 401.
func (b *browser) signedIn(want bool) {
	b.t.Helper()
	inbox, stream := b.get("/"), b.streamStatus()
	if want {
		if inbox.status != http.StatusOK || stream != http.StatusOK {
			b.t.Fatalf("signed in: inbox %d, stream %d; want 200 and 200", inbox.status, stream)
		}
		return
	}
	if inbox.status != http.StatusSeeOther || !strings.HasPrefix(inbox.header.Get("Location"), "/login") || stream != http.StatusUnauthorized {
		b.t.Fatalf("signed out: inbox %d to %q, stream %d; want 303 to /login and 401", inbox.status, inbox.header.Get("Location"), stream)
	}
	if res := b.post("/logout", url.Values{"csrf": {"anything"}}); res.status != http.StatusUnauthorized {
		b.t.Fatalf("signed out: a form got %d, want 401", res.status)
	}
}

// openStream opens the event stream with the browser's cookie and reads its first message.
func (b *browser) openStream() *http.Response {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	b.t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.base+"/v1/events/stream", nil)
	res, err := b.http.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		b.t.Fatalf("stream: %v %v", res, err)
	}
	b.t.Cleanup(func() { res.Body.Close() })
	first := make([]byte, len("event: start"))
	if _, err := io.ReadFull(res.Body, first); err != nil || string(first) != "event: start" {
		b.t.Fatalf("stream began with %q, %v", first, err)
	}
	return res
}

// ended waits for the server to end an open stream (within the stream's 20 s).
func ended(t *testing.T, stream *http.Response, why string) {
	t.Helper()
	if _, err := io.Copy(io.Discard, stream.Body); err != nil {
		t.Fatalf("the open stream did not end when %s: %v", why, err)
	}
}

func (b *browser) signOut() {
	b.t.Helper()
	res := b.post("/logout", url.Values{"csrf": {b.get("/").csrf()}})
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/login" {
		b.t.Fatalf("sign-out: %d %s", res.status, res.body)
	}
}

func TestSessionCookieIsNotTheToken(t *testing.T) {
	e := start(t)
	b := e.browser()
	b.signIn(e.responderToken)
	id := b.session()
	sum := sha256.Sum256([]byte(e.responderToken))
	for _, derived := range []string{e.responderToken, hex.EncodeToString(sum[:]), base64.RawURLEncoding.EncodeToString(sum[:])} {
		if id == "" || strings.Contains(id, derived) {
			t.Fatalf("the session cookie %q holds the token or its hash", id)
		}
	}
	// It is random, not computed from the token: each sign-in gets another.
	again := e.browser()
	again.signIn(e.responderToken)
	if again.session() == id {
		t.Fatalf("two sign-ins with one token got the same session id")
	}
	// And it is no API credential: only the inbox and the stream take it, as a cookie.
	var ce *client.Error
	if _, err := client.New(e.URL, id, nil).Me(context.Background()); !errors.As(err, &ce) || ce.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the session id as a bearer token: %v, want unauthorized", err)
	}
	b.signedIn(true)
}

func TestSignOutEndsTheSessionOnEveryNode(t *testing.T) {
	db := filepath.Join(t.TempDir(), "hitl.db")
	node1 := testserver.Start(t, testserver.DB(db)).URL
	node2 := testserver.Start(t, testserver.DB(db)).URL
	k, err := client.New(node1, adminToken, nil).CreateKey(context.Background(), &hitl.KeyRequest{Name: "ada", Roles: []string{hitl.RoleResponder}})
	if err != nil {
		t.Fatal(err)
	}
	here := browserAt(t, node1)
	here.signIn(k.Token)
	// The same session in another browser (a copied cookie), on the other node.
	id := here.session()
	there := browserAt(t, node2)
	there.holdSession(id)
	there.signedIn(true)
	// Another sign-in with the same key is a session of its own.
	other := browserAt(t, node2)
	other.signIn(k.Token)
	streamHere, streamThere := here.openStream(), there.openStream()

	here.signOut()
	ended(t, streamHere, "the session signed out")
	ended(t, streamThere, "the session signed out on another node")
	here.signedIn(false)
	here.holdSession(id) // the browser dropped the cookie; the id itself is dead too
	here.signedIn(false)
	there.signedIn(false)
	other.signedIn(true) // signing out ends that session, not every session of the key
}

func TestRevokingTheKeyEndsItsSessions(t *testing.T) {
	e := start(t)
	k, err := e.Admin.CreateKey(context.Background(), &hitl.KeyRequest{Name: "ada", Roles: []string{hitl.RoleResponder}})
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	b.signIn(k.Token)
	b.signedIn(true)
	stream := b.openStream()

	if err := e.Admin.RevokeKey(context.Background(), k.ID); err != nil {
		t.Fatal(err)
	}
	ended(t, stream, "its key was revoked")
	b.signedIn(false)
}

func TestExpiredSessionIsRefused(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hitl.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := clock.NewManual(time.Now())
	eng := engine.New(st, engine.Options{Clock: c})
	if _, err := eng.Bootstrap(ctx, adminToken); err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(ctx); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", web.New(eng, web.Config{}))
	mux.Handle("/v1/", httpapi.New(eng, nil, nil, httpapi.Config{}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { eng.Stop(ctx) }) // streams end before the server closes

	b := browserAt(t, srv.URL)
	b.signIn(adminToken)
	expired := b.session()
	c.Advance(engine.InboxSessionTTL - time.Second)
	b.signedIn(true)
	stream := b.openStream()
	c.Advance(time.Second)
	ended(t, stream, "the session expired")
	b.signedIn(false)

	// Signing in again starts a new session, and sweeps away the expired one.
	b.signIn(adminToken)
	b.signedIn(true)
	sum := sha256.Sum256([]byte(expired))
	if _, err := st.InboxSessionKey(ctx, hex.EncodeToString(sum[:]), c.Now().Add(-time.Hour)); hitl.ErrorCode(err) != hitl.ENotFound {
		t.Fatalf("the expired session is still stored: %v", err)
	}
}
