package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl/internal/oidcpeer"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// Without --oidc-issuer there is no single sign-on: no button, and its paths are the inbox's 404.
func TestNoSingleSignOnWithoutAnIssuer(t *testing.T) {
	e := start(t)
	b := e.browser()
	if page := b.get("/login"); page.status != http.StatusOK || strings.Contains(page.body, "sso-sign-in") || !strings.Contains(page.body, `id="token"`) {
		t.Fatalf("the sign-in page: %d %s", page.status, page.body)
	}
	for _, path := range []string{"/login/oidc", "/login/oidc/callback?code=c&state=s"} {
		if r := b.get(path); r.status != http.StatusNotFound {
			t.Errorf("%s: %d", path, r.status)
		}
	}
}

// The button carries where the sign-in was asked from, kept on this site; a return from the
// provider without this browser's flow cookie is refused and leaves no session.
func TestSingleSignOnStartAndStrayReturns(t *testing.T) {
	idp, err := oidcpeer.Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer idp.Close()
	srv := testserver.Start(t, testserver.Configure(func(c *server.Config) {
		c.SSO.Issuer, c.SSO.ClientID, c.SSO.ClientSecret, c.SSO.ProviderName = idp.Issuer, ssoClientID, ssoClientSecret, "Acme <ID>"
	}))
	b := (&env{Server: srv, t: t}).browser()
	page := b.get("/login?next=" + url.QueryEscape("//evil.example/x"))
	if !strings.Contains(page.body, `href="/login/oidc?next=%2F"`) || !strings.Contains(page.body, "Sign in with Acme &lt;ID&gt;") || !strings.Contains(page.body, `id="token"`) {
		t.Fatalf("the sign-in page: %s", page.body)
	}
	start := b.get("/login/oidc?next=" + url.QueryEscape("/inquiries/7"))
	loc, err := url.Parse(start.header.Get("Location"))
	if start.status != http.StatusSeeOther || err != nil || !strings.HasPrefix(loc.String(), idp.Issuer+"/authorize?") {
		t.Fatalf("the start: %d %s", start.status, start.header.Get("Location"))
	}
	q := loc.Query()
	for _, param := range []string{"state", "nonce", "code_challenge"} {
		if len(q.Get(param)) < 40 {
			t.Errorf("%s is %q, not a fresh random value", param, q.Get(param))
		}
	}
	if q.Get("code_challenge_method") != "S256" || q.Get("redirect_uri") != srv.URL+"/login/oidc/callback" || q.Get("client_id") != ssoClientID {
		t.Errorf("the authorization request: %v", q)
	}

	stray := (&env{Server: srv, t: t}).browser() // another browser: no flow cookie
	r := stray.get("/login/oidc/callback?" + url.Values{"code": {"c"}, "state": {q.Get("state")}}.Encode())
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, "started in another browser") {
		t.Fatalf("a return to another browser: %d %s", r.status, r.body)
	}
	for _, c := range r.header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "hitl_session=") && !strings.Contains(c, "Max-Age=0") {
			t.Fatalf("a refused return set a session: %s", c)
		}
	}

	// The right browser with the right state but no code (or an empty one first among
	// repeated ones): refused in words, without asking the provider to exchange nothing.
	for _, more := range []string{"", "&code=&code=stolen"} {
		start := b.get("/login/oidc")
		loc, err := url.Parse(start.header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		r := b.get("/login/oidc/callback?state=" + url.QueryEscape(loc.Query().Get("state")) + more)
		if r.status != http.StatusBadRequest || !strings.Contains(r.body, "carries no code") {
			t.Fatalf("a return without a code (%q): %d %s", more, r.status, r.body)
		}
		if b.get("/").status != http.StatusSeeOther {
			t.Fatalf("a return without a code signed the browser in")
		}
	}
}
