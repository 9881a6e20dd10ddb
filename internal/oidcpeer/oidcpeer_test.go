package oidcpeer

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The provider checks what a provider checks: PKCE is required and its verifier must match,
// codes are single use and expire, the client must authenticate, codes go only to registered
// redirect URIs.
func TestProviderChecks(t *testing.T) {
	p, err := Start("", User{Subject: "ann", Email: "ann@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const back = "http://127.0.0.1:1/cb"
	p.Register(Client{ID: "app", Secret: "secret", RedirectURIs: []string{back}})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	verifier := "a-verifier-that-is-long-enough-0123456789-abcdefghij"
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])

	authorize := func(t *testing.T, q url.Values) *http.Response {
		t.Helper()
		res, err := noRedirect.Get(p.Issuer + "/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	request := func() url.Values {
		return url.Values{"client_id": {"app"}, "redirect_uri": {back}, "response_type": {"code"}, "scope": {"openid email"},
			"state": {"st"}, "nonce": {"n"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	}
	// code signs ann in at the login form and returns the code the provider sends back.
	code := func(t *testing.T) string {
		t.Helper()
		res, err := http.Get(p.Issuer + "/authorize?" + request().Encode())
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		_, rest, _ := strings.Cut(string(page), `name="request" value="`)
		id, _, _ := strings.Cut(rest, `"`)
		res, err = noRedirect.PostForm(p.Issuer+"/login", url.Values{"request": {id}, "username": {"ann"}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		loc, _ := url.Parse(res.Header.Get("Location"))
		if c := loc.Query().Get("code"); c != "" && loc.Query().Get("state") == "st" {
			return c
		}
		t.Fatalf("no code: %s", res.Header.Get("Location"))
		return ""
	}
	// exchange answers the token endpoint's status and its error, or "id_token" when it gave one.
	exchange := func(t *testing.T, code, secret, verifier string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, p.Issuer+"/token", strings.NewReader(url.Values{"grant_type": {"authorization_code"},
			"code": {code}, "redirect_uri": {back}, "code_verifier": {verifier}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth("app", secret)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body struct {
			Error   string `json:"error"`
			IDToken string `json:"id_token"`
		}
		json.NewDecoder(res.Body).Decode(&body)
		if body.IDToken != "" {
			return res.StatusCode, "id_token"
		}
		return res.StatusCode, body.Error
	}

	t.Run("an unregistered redirect URI gets no redirect", func(t *testing.T) {
		q := request()
		q.Set("redirect_uri", "http://evil.example/cb")
		if res := authorize(t, q); res.StatusCode != http.StatusBadRequest {
			t.Fatalf("status %d", res.StatusCode)
		}
	})
	t.Run("no PKCE is refused", func(t *testing.T) {
		q := request()
		q.Del("code_challenge")
		res := authorize(t, q)
		if loc := res.Header.Get("Location"); !strings.Contains(loc, "error=invalid_request") {
			t.Fatalf("went to %q", loc)
		}
	})
	t.Run("a wrong client secret", func(t *testing.T) {
		if status, e := exchange(t, code(t), "guess", verifier); status != http.StatusUnauthorized || e != "invalid_client" {
			t.Fatalf("%d %s", status, e)
		}
	})
	t.Run("a wrong PKCE verifier", func(t *testing.T) {
		if status, e := exchange(t, code(t), "secret", "another-verifier-0123456789-0123456789-abcdefghij"); status != http.StatusBadRequest || e != "invalid_grant" {
			t.Fatalf("%d %s", status, e)
		}
	})
	t.Run("a code is used once", func(t *testing.T) {
		c := code(t)
		if status, got := exchange(t, c, "secret", verifier); status != http.StatusOK || got != "id_token" {
			t.Fatalf("first use: %d %s", status, got)
		}
		if status, e := exchange(t, c, "secret", verifier); status != http.StatusBadRequest || e != "invalid_grant" {
			t.Fatalf("second use: %d %s", status, e)
		}
	})
	t.Run("a code expires", func(t *testing.T) {
		p.SetCodeLifetime(0)
		defer p.SetCodeLifetime(defaultCodeLifetime)
		if status, e := exchange(t, code(t), "secret", verifier); status != http.StatusBadRequest || e != "invalid_grant" {
			t.Fatalf("%d %s", status, e)
		}
	})
}
