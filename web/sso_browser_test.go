package web_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/oidcpeer"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

const (
	ssoClientID     = "hitl-inbox"
	ssoClientSecret = "s3cret-of-the-inbox-client"
)

var (
	ann   = oidcpeer.User{Subject: "ann", Email: "ann@example.com", Name: "Ann Lee", PreferredUsername: "ann", Groups: []string{"ops"}}
	root  = oidcpeer.User{Subject: "root", Email: "root@example.com", Name: "Ro Ot", PreferredUsername: "root", Groups: []string{"ops", "hitl-admins"}}
	nomad = oidcpeer.User{Subject: "nomad", Email: "nomad@example.com", Name: "No Mad", PreferredUsername: "nomad", Groups: []string{"ops"}}
)

// ssoSetup is a hitl server whose inbox signs people in with a provider the test runs.
type ssoSetup struct {
	srv *testserver.Server
	idp *oidcpeer.Provider
	bot *client.Client
}

func startIdP(t *testing.T, addr string) *oidcpeer.Provider {
	t.Helper()
	idp, err := oidcpeer.Start(addr, ann, root, nomad)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idp.Close() })
	return idp
}

func ssoServer(t *testing.T, idp *oidcpeer.Provider, more func(*server.Config)) *ssoSetup {
	t.Helper()
	srv := testserver.Start(t, testserver.Configure(func(c *server.Config) {
		c.SSO.Issuer, c.SSO.ClientID, c.SSO.ClientSecret = idp.Issuer, ssoClientID, ssoClientSecret
		c.SSO.Scopes = []string{"openid", "email", "profile", "groups"}
		c.SSO.AdminGroup, c.SSO.ProviderName = "hitl-admins", "Local IdP"
		if more != nil {
			more(c)
		}
	}))
	idp.Register(oidcpeer.Client{ID: ssoClientID, Secret: ssoClientSecret,
		RedirectURIs: []string{srv.URL + "/login/oidc/callback"}, LogoutURIs: []string{srv.URL + "/login"}})
	bot, _ := srv.Key(hitl.KeyRequest{Name: "deploy-bot", Roles: []string{hitl.RoleAgent}})
	return &ssoSetup{srv: srv, idp: idp, bot: bot}
}

// toProvider opens the sign-in page at loginURL, clicks its button and waits for the provider's login form.
func toProvider(t *testing.T, ctx context.Context, loginURL string) {
	t.Helper()
	do(t, ctx,
		chromedp.Navigate(loginURL),
		chromedp.WaitVisible(chromedp.CSS("#sso-sign-in")),
	)
	if b := text(t, ctx, "#sso-sign-in"); b != "Sign in with Local IdP" {
		t.Fatalf("the sign-in button says %q", b)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS("#sso-sign-in")), chromedp.WaitVisible(chromedp.CSS("#username")))
}

// atProvider types the user at the provider's form and signs in there; it returns the status
// of the page the browser ends on.
func atProvider(t *testing.T, ctx context.Context, user string) int64 {
	t.Helper()
	do(t, ctx, chromedp.SendKeys(chromedp.CSS("#username"), user))
	tctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	resp, err := chromedp.RunResponse(tctx, chromedp.Click(chromedp.CSS("#sign-in")))
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	return resp.Status
}

// signedIn is a new browser signed in as user through the provider, at the inbox.
func (s *ssoSetup) signedIn(t *testing.T, user string) context.Context {
	t.Helper()
	ctx := newBrowser(t)
	toProvider(t, ctx, s.srv.URL+"/login")
	atProvider(t, ctx, user)
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#tabs")))
	return ctx
}

func (s *ssoSetup) keysOf(t *testing.T, name string) []*hitl.Key {
	t.Helper()
	keys, err := s.srv.Admin.Keys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []*hitl.Key
	for _, k := range keys {
		if k.Name == name {
			out = append(out, k)
		}
	}
	return out
}

// nothingCreated checks that a failed sign-in left no key, no person and no inbox session.
func (s *ssoSetup) nothingCreated(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if keys := s.keysOf(t, name); len(keys) != 0 {
		t.Errorf("a failed sign-in made keys for %s: %+v", name, keys)
	}
	var missing *client.Error
	if _, err := s.srv.Admin.Person(context.Background(), name); !errors.As(err, &missing) || missing.StatusCode != http.StatusNotFound {
		t.Errorf("a failed sign-in made the person %s (%v)", name, err)
	}
	do(t, ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#sso-sign-in")))
	if u := get(t, ctx, chromedp.Location()); !strings.HasPrefix(u, s.srv.URL+"/login") {
		t.Errorf("after a failed sign-in the inbox opened at %s", u)
	}
}

func (s *ssoSetup) askOps(t *testing.T, title string) *hitl.Inquiry {
	t.Helper()
	inq, _, err := s.bot.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: title,
		RequestType: hitl.RequestApproval, AssignedTo: hitl.Assignees{"group:ops"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return inq
}

// From the sign-in button through the provider to the inbox, as the provider's person with
// the provider's groups; out again through the provider's end-session endpoint.
func TestSingleSignOnInABrowser(t *testing.T) {
	s := ssoServer(t, startIdP(t, ""), nil)
	s.askOps(t, "Restart the ops database?")
	ctx := newBrowser(t)

	toProvider(t, ctx, s.srv.URL+"/login")
	if status := atProvider(t, ctx, "ann"); status != http.StatusOK {
		t.Fatalf("signing in ended on a page with status %d", status)
	}
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#tabs")))
	waitText(t, ctx, ".who", "ann@example.com")
	waitText(t, ctx, "main", "Restart the ops database?")

	keys := s.keysOf(t, "ann@example.com")
	if len(keys) != 1 || !engine.IsSignInKey(keys[0].ID) || !slices.Equal(keys[0].Roles, []string{hitl.RoleResponder}) || !slices.Equal(keys[0].Groups, []string{"ops"}) {
		t.Fatalf("the sign-in key: %+v", keys)
	}
	person, err := s.srv.Admin.Person(context.Background(), "ann@example.com")
	if err != nil || person.DisplayName != "Ann Lee" || person.Email != "ann@example.com" {
		t.Fatalf("the person: %+v, %v", person, err)
	}

	do(t, ctx, chromedp.Click(chromedp.CSS(".who button")), chromedp.WaitVisible(chromedp.CSS("#sso-sign-in")))
	if u := get(t, ctx, chromedp.Location()); u != s.srv.URL+"/login" {
		t.Fatalf("sign-out ended at %s", u)
	}
	if ended := s.idp.Ended(); !slices.Equal(ended, []string{"ann"}) {
		t.Fatalf("the provider ended the sessions of %v", ended)
	}
	do(t, ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#sso-sign-in")))

	t.Run("groups from the token replace those of the last sign-in", func(t *testing.T) {
		moved := ann
		moved.Groups = []string{"finance"}
		s.idp.SetUser(moved)
		toProvider(t, ctx, s.srv.URL+"/login")
		atProvider(t, ctx, "ann")
		do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#tabs")))
		waitText(t, ctx, ".who", "ann@example.com")
		if body := text(t, ctx, "main"); strings.Contains(body, "Restart the ops database?") {
			t.Fatalf("out of ops, ann still sees its inquiry: %s", body)
		}
		var live []*hitl.Key
		for _, k := range s.keysOf(t, "ann@example.com") {
			if k.RevokedAt == nil {
				live = append(live, k)
			}
		}
		if len(live) != 1 || !slices.Equal(live[0].Groups, []string{"finance"}) {
			t.Fatalf("ann's keys after the groups changed: %+v", live)
		}
	})

	t.Run("a name only userinfo gives", func(t *testing.T) {
		s.idp.Misbehave(oidcpeer.Misbehaviour{UserinfoOnly: []string{"email"}})
		t.Cleanup(func() { s.idp.Misbehave(oidcpeer.Misbehaviour{}) })
		ctx := newBrowser(t)
		toProvider(t, ctx, s.srv.URL+"/login?next=/stats")
		atProvider(t, ctx, "root")
		// The sign-in started from a page that asked for /stats comes back to it.
		do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#nav-stats")))
		if u := get(t, ctx, chromedp.Location()); u != s.srv.URL+"/stats" {
			t.Fatalf("signed in at %s, not where the sign-in started", u)
		}
		waitText(t, ctx, ".who", "root@example.com")
	})

	t.Run("members of the admin group are admins", func(t *testing.T) {
		ctx := s.signedIn(t, "root")
		do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#nav-stats")))
		waitText(t, ctx, ".who .roles", "admin")
		keys := s.keysOf(t, "root@example.com")
		if len(keys) != 1 || !slices.Equal(keys[0].Roles, []string{hitl.RoleAdmin, hitl.RoleResponder}) {
			t.Fatalf("root's key: %+v", keys)
		}
	})

	t.Run("sign-out without the ID token", func(t *testing.T) {
		// A browser that lost the ID token (one too large for a cookie) still signs out at the
		// provider, by client id; a token's session signs out of hitl only.
		ctx := s.signedIn(t, "ann")
		if _, err := chromedp.Call(ctx, network.DeleteCookies, network.DeleteCookiesParams{Name: "hitl_oidc_id", URL: s.srv.URL + "/logout"}); err != nil {
			t.Fatal(err)
		}
		ended := len(s.idp.Ended())
		do(t, ctx, chromedp.Click(chromedp.CSS(".who button")), chromedp.WaitVisible(chromedp.CSS("#sso-sign-in")))
		if got := s.idp.Ended(); len(got) != ended+1 || got[ended] != "" {
			t.Fatalf("the provider's ends: %v", got)
		}
		_, token := s.srv.Key(hitl.KeyRequest{Name: "tess", Roles: []string{hitl.RoleResponder}})
		signInWithForm(t, ctx, s.srv.URL, token)
		do(t, ctx, chromedp.Click(chromedp.CSS(".who button")), chromedp.WaitVisible(chromedp.CSS("#sso-sign-in")))
		if got := s.idp.Ended(); len(got) != ended+1 {
			t.Fatalf("a token's sign-out went to the provider: %v", got)
		}
	})

	t.Run("revoking the key ends the session", func(t *testing.T) {
		ctx := s.signedIn(t, "nomad")
		for _, k := range s.keysOf(t, "nomad@example.com") {
			if err := s.srv.Admin.RevokeKey(context.Background(), k.ID); err != nil {
				t.Fatal(err)
			}
		}
		do(t, ctx, chromedp.Navigate(s.srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#sso-sign-in")))
	})
}

// ssoProblemSays waits for the page of a failed sign-in and checks it says want.
func ssoProblemSays(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#sso-problem")))
	if got := text(t, ctx, "#sso-problem"); !strings.Contains(got, want) {
		t.Fatalf("the page says %q, want %q in it", got, want)
	}
}

// refused signs user in through the provider in a new browser, expecting the sign-in to end on
// a page with status that says want; it returns the browser.
func (s *ssoSetup) refused(t *testing.T, user string, status int64, want string) context.Context {
	t.Helper()
	ctx := newBrowser(t)
	toProvider(t, ctx, s.srv.URL+"/login")
	if got := atProvider(t, ctx, user); got != status {
		t.Errorf("status %d, want %d", got, status)
	}
	ssoProblemSays(t, ctx, want)
	return ctx
}

// Each way a sign-in can go wrong shows why, with the status it stands for, and signs nobody in.
func TestSingleSignOnFailures(t *testing.T) {
	idp := startIdP(t, "")
	s := ssoServer(t, idp, nil)
	misbehaving := []struct {
		name   string
		m      oidcpeer.Misbehaviour
		status int64
		want   string
	}{
		{"an ID token from another issuer", oidcpeer.Misbehaviour{Issuer: "https://elsewhere.example"}, 401, "issued by another provider than " + idp.Issuer},
		{"an ID token for another audience", oidcpeer.Misbehaviour{Audience: "another-app"}, 401, "made for another client than hitl-inbox"},
		{"an ID token signed with an unknown key", oidcpeer.Misbehaviour{UnknownKey: true}, 401, "not signed with any of the provider's published keys"},
		{"a wrong nonce", oidcpeer.Misbehaviour{Nonce: "a-nonce-of-another-sign-in"}, 401, "its nonce is not the one this sign-in sent"},
		{"a refusal by the provider", oidcpeer.Misbehaviour{Refuse: "access_denied"}, 401, "The identity provider refused the sign-in (access_denied)"},
		{"a person without the name claim", oidcpeer.Misbehaviour{Omit: []string{"email"}}, 403, `no "email" claim`},
		{"a name from an email the provider has not verified", oidcpeer.Misbehaviour{UnverifiedEmail: true}, 403, "has not verified your email address ann@example.com"},
	}
	for _, c := range misbehaving {
		t.Run(c.name, func(t *testing.T) {
			idp.Misbehave(c.m)
			t.Cleanup(func() { idp.Misbehave(oidcpeer.Misbehaviour{}) })
			ctx := s.refused(t, "ann", c.status, c.want)
			s.nothingCreated(t, ctx, "ann@example.com")
		})
	}

	t.Run("a wrong state", func(t *testing.T) {
		ctx := newBrowser(t)
		toProvider(t, ctx, s.srv.URL+"/login")
		tctx, cancel := context.WithTimeout(ctx, step)
		defer cancel()
		resp, err := chromedp.RunResponse(tctx, chromedp.Navigate(s.srv.URL+"/login/oidc/callback?code=stolen&state=forged"))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != http.StatusBadRequest {
			t.Errorf("status %d", resp.Status)
		}
		ssoProblemSays(t, ctx, "its state does not match")
		s.nothingCreated(t, ctx, "ann@example.com")
	})

	t.Run("an expired code", func(t *testing.T) {
		idp.SetCodeLifetime(0)
		t.Cleanup(func() { idp.SetCodeLifetime(60e9) })
		ctx := s.refused(t, "ann", http.StatusUnauthorized, "has expired or was already used")
		s.nothingCreated(t, ctx, "ann@example.com")
	})

	t.Run("a replayed code", func(t *testing.T) {
		ctx := newBrowser(t)
		toProvider(t, ctx, s.srv.URL+"/login")
		// The flow cookie as it is before the provider returns, to bring it back after.
		cookies := cookiesOf(t, ctx, s.srv.URL+"/login/oidc/callback")
		atProvider(t, ctx, "nomad")
		do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#tabs")))
		redeemed := s.idp.Redeemed()
		sessionBefore := sessionCookie(t, ctx, s.srv.URL)
		for _, c := range cookies {
			if _, err := chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{Name: c.Name, Value: c.Value,
				URL: s.srv.URL + c.Path, Path: c.Path, HTTPOnly: &c.HTTPOnly}); err != nil {
				t.Fatal(err)
			}
		}
		tctx, cancel := context.WithTimeout(ctx, step)
		defer cancel()
		resp, err := chromedp.RunResponse(tctx, chromedp.Navigate(s.idp.LastReturn()))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != http.StatusUnauthorized {
			t.Errorf("status %d", resp.Status)
		}
		ssoProblemSays(t, ctx, "has expired or was already used")
		if s.idp.Redeemed() != redeemed {
			t.Errorf("the provider exchanged the code twice")
		}
		if after := sessionCookie(t, ctx, s.srv.URL); after != sessionBefore {
			t.Errorf("the replay started another inbox session")
		}
	})

}

// A client secret the provider does not accept is hitl's settings' fault, and the page says so
// instead of blaming the person's code.
func TestSingleSignOnWithAWrongClientSecret(t *testing.T) {
	s := ssoServer(t, startIdP(t, ""), func(c *server.Config) { c.SSO.ClientSecret = "not-" + ssoClientSecret })
	ctx := s.refused(t, "ann", http.StatusBadGateway, "does not accept hitl's client id and secret")
	s.nothingCreated(t, ctx, "ann@example.com")
}

// cookiesOf are the browser's cookies for a URL, HttpOnly ones too.
func cookiesOf(t *testing.T, ctx context.Context, u string) []*network.Cookie {
	t.Helper()
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{u}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Cookies
}

// sessionCookie is the inbox session cookie's value in the browser ("" : none).
func sessionCookie(t *testing.T, ctx context.Context, base string) string {
	t.Helper()
	for _, c := range cookiesOf(t, ctx, base+"/") {
		if c.Name == "hitl_session" {
			return c.Value
		}
	}
	return ""
}

// A provider that is down when the server starts, and at sign-in, keeps nobody from the API:
// the server starts, the inbox says the provider cannot be reached, API keys work; once the
// provider is back, signing in works without a restart.
func TestSingleSignOnWithTheProviderDown(t *testing.T) {
	idp := startIdP(t, "")
	addr := idp.Addr()
	idp.Close()
	s := ssoServer(t, idp, nil)
	ctx := newBrowser(t)
	do(t, ctx, chromedp.Navigate(s.srv.URL+"/login"), chromedp.WaitVisible(chromedp.CSS("#sso-sign-in")))
	tctx, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	resp, err := chromedp.RunResponse(tctx, chromedp.Click(chromedp.CSS("#sso-sign-in")))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusBadGateway {
		t.Errorf("status %d", resp.Status)
	}
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#sso-problem")))
	if got := text(t, ctx, "#sso-problem"); !strings.Contains(got, "cannot be reached") {
		t.Fatalf("the page says %q", got)
	}
	if _, err := s.srv.Admin.Keys(context.Background()); err != nil {
		t.Fatalf("with the provider down, an API key no longer works: %v", err)
	}
	if _, err := s.bot.Me(context.Background()); err != nil {
		t.Fatalf("with the provider down, the agent's key no longer works: %v", err)
	}
	s.nothingCreated(t, ctx, "ann@example.com")

	back := startIdP(t, addr)
	back.Register(oidcpeer.Client{ID: ssoClientID, Secret: ssoClientSecret,
		RedirectURIs: []string{s.srv.URL + "/login/oidc/callback"}, LogoutURIs: []string{s.srv.URL + "/login"}})
	toProvider(t, ctx, s.srv.URL+"/login")
	atProvider(t, ctx, "ann")
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#tabs")))
	waitText(t, ctx, ".who", "ann@example.com")
}

// With token sign-in off, the sign-in page has only the provider's button, and a token posted
// anyway signs nobody in.
func TestTokenSignInTurnedOff(t *testing.T) {
	s := ssoServer(t, startIdP(t, ""), func(c *server.Config) { c.NoTokenLogin = true })
	_, token := s.srv.Key(hitl.KeyRequest{Name: "ada", Roles: []string{hitl.RoleResponder}})
	ctx := newBrowser(t)
	do(t, ctx, chromedp.Navigate(s.srv.URL+"/login"), chromedp.WaitVisible(chromedp.CSS("#sso-sign-in")))
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#token').length`)); n != 0 {
		t.Fatalf("the sign-in page still asks for a token")
	}
	b := (&env{Server: s.srv, t: t}).browser()
	page := b.get("/login")
	r := b.post("/login", url.Values{"csrf": {page.csrf()}, "token": {token}})
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "turned off") {
		t.Fatalf("a posted token: %d %s", r.status, r.body)
	}
	if b.get("/").status == http.StatusOK && strings.Contains(b.get("/").body, "Signed in as") {
		t.Fatal("the token signed in")
	}
}

// Named by preferred_username: an email address the provider has not verified (one anyone
// could have typed) is not taken as the person's; a name an agent's key holds, or one that is
// no hitl name, signs nobody in and says why.
func TestSingleSignOnByUsername(t *testing.T) {
	idp := startIdP(t, "")
	s := ssoServer(t, idp, func(c *server.Config) { c.SSO.NameClaim = "preferred_username" })

	t.Run("an unverified email is no address", func(t *testing.T) {
		idp.Misbehave(oidcpeer.Misbehaviour{UnverifiedEmail: true})
		t.Cleanup(func() { idp.Misbehave(oidcpeer.Misbehaviour{}) })
		ctx := s.signedIn(t, "ann")
		waitText(t, ctx, ".who", "ann")
		person, err := s.srv.Admin.Person(context.Background(), "ann")
		if err != nil || person.DisplayName != "Ann Lee" || person.Email != "" {
			t.Fatalf("the person: %+v, %v", person, err)
		}
	})

	refused := map[string]struct {
		user   oidcpeer.User
		status int64
		want   string
	}{
		"the name of an agent's key": {oidcpeer.User{Subject: "impostor", PreferredUsername: "deploy-bot", Groups: []string{"ops"}}, 409, "deploy-bot already has an API key"},
		"an empty name":              {oidcpeer.User{Subject: "blank", Groups: []string{"ops"}}, 403, `has a "preferred_username" claim that is no name`},
		"no name hitl can use":       {oidcpeer.User{Subject: "spaced", PreferredUsername: "Sp Aced\nadmin", Groups: []string{"ops"}}, 400, "not a name hitl can use"},
	}
	counts := func(t *testing.T) (keys, people int) {
		t.Helper()
		k, err := s.srv.Admin.Keys(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.srv.Admin.People(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return len(k), len(p)
	}
	for name, c := range refused {
		t.Run(name, func(t *testing.T) {
			keysBefore, peopleBefore := counts(t)
			idp.SetUser(c.user)
			ctx := s.refused(t, c.user.Subject, c.status, c.want)
			if keys, people := counts(t); keys != keysBefore || people != peopleBefore {
				t.Errorf("a refused sign-in changed the keys (%d, were %d) or people (%d, were %d)", keys, keysBefore, people, peopleBefore)
			}
			if bot := s.keysOf(t, "deploy-bot"); len(bot) != 1 || bot[0].RevokedAt != nil {
				t.Errorf("the agent's key after a refused sign-in: %+v", bot)
			}
			if sessionCookie(t, ctx, s.srv.URL) != "" {
				t.Error("a refused sign-in left an inbox session cookie")
			}
		})
	}
}
