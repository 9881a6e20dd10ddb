package web_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"testing"
)

var nextField = regexp.MustCompile(`name="next" value="([^"]*)"`)

// TestSignInRedirectStaysOnThisSite: after sign-in, next is followed only when it is a path
// on this site; anything a browser could read as another host (or cannot read) goes to /.
func TestSignInRedirectStaysOnThisSite(t *testing.T) {
	t.Parallel()
	e := start(t)
	for _, tc := range []struct{ next, want string }{
		{"/inquiries/7", "/inquiries/7"},
		{"/ok?x=1", "/ok?x=1"},
		{"/sessions/deploy-42?tab=open#top", "/sessions/deploy-42?tab=open#top"},
		{"/%09/evil.example", "/%09/evil.example"}, // still encoded: a path
		{"/\t/evil.example", "/"},                  // what the form carries for next=/%09/evil.example
		{"/\n/evil.example", "/"},
		{"/\r/evil.example", "/"},
		{"/x\ny", "/"},
		{"/x y", "/"},
		{"/\u00a0/evil.example", "/"},
		{"/\u200b/evil.example", "/"},
		{"/\x00/evil.example", "/"},
		{"//evil.example", "/"},
		{"///evil.example", "/"},
		{`/\evil.example`, "/"},
		{`/x\y`, "/"},
		{"https://evil.example/", "/"},
		{"javascript:alert(1)", "/"},
		{"evil.example", "/"},
		{" /x", "/"},
		{"\t/x", "/"},
		{"", "/"},
		{"/\xff", "/"},
		{"/%zz", "/"}, // does not parse as a URL
	} {
		b := e.browser()
		login := b.get("/login?" + url.Values{"next": {tc.next}}.Encode())
		m := nextField.FindStringSubmatch(login.body)
		if m == nil || html.UnescapeString(m[1]) != tc.want {
			t.Errorf("next %q: the form carries %v, want %q", tc.next, m, tc.want)
		}
		res := b.post("/login", url.Values{"csrf": {login.csrf()}, "token": {e.responderToken}, "next": {tc.next}})
		if res.status != http.StatusSeeOther || res.header.Get("Location") != tc.want {
			t.Errorf("next %q: %d to %q, want %q", tc.next, res.status, res.header.Get("Location"), tc.want)
		}
	}
}
