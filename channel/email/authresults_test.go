package email

import (
	"net/mail"
	"reflect"
	"strings"
	"testing"
)

func TestParseAuthResults(t *testing.T) {
	type res = authResult
	for _, c := range []struct {
		header  string
		id      string
		results []authResult
	}{
		{"mx.example.com; spf=pass smtp.mailfrom=example.com; dkim=pass header.d=example.com header.s=s1",
			"mx.example.com", []res{{"spf", "pass", map[string]string{"smtp.mailfrom": "example.com"}},
				{"dkim", "pass", map[string]string{"header.d": "example.com", "header.s": "s1"}}}},
		{"  mx.example.com  1 ; none", "mx.example.com", nil},
		{"(a comment (nested; with = signs)) mx.example.com;\r\n\tDKIM/1 = PASS (good) reason=\"sig ok; really\" header.i=@Example.COM",
			"mx.example.com", []res{{"dkim", "pass", map[string]string{"reason": "sig ok; really", "header.i": "@Example.COM"}}}},
		{`"quoted.example" ; dmarc=fail header.from=ex\"ample.com`, "quoted.example",
			[]res{{"dmarc", "fail", map[string]string{"header.from": `ex\`}}}}, // outside quotes a backslash is a character
		{"", "", nil},
		{";;;", "", nil},
		{"x; =; dkim; spf=; =pass; dmarc = fail = x", "x", []res{{"dmarc", "fail", map[string]string{}}}},
		{"x; spf=fail (unclosed comment", "x", []res{{"spf", "fail", map[string]string{}}}},
		{`x; spf="unclosed`, "x", []res{{"spf", "unclosed", map[string]string{}}}},
		{"x; dkim=pass header.d=\\", "x", []res{{"dkim", "pass", map[string]string{"header.d": "\\"}}}},
	} {
		id, results := parseAuthResults(c.header)
		if id != c.id || !reflect.DeepEqual(results, c.results) {
			t.Errorf("parseAuthResults(%q) = %q, %+v; want %q, %+v", c.header, id, results, c.id, c.results)
		}
	}
}

func TestUnauthenticated(t *testing.T) {
	for _, c := range []struct {
		headers    []string
		authservID string
		want       string
	}{
		{nil, "", ""},
		{[]string{"mx; dmarc=fail"}, "", "dmarc=fail"},
		{[]string{"mx; spf=fail; dkim=pass header.d=example.com"}, "", ""},
		{[]string{"mx; spf=fail; dkim=pass header.d=mail.example.com"}, "", ""},
		{[]string{"mx; spf=fail; dkim=pass header.d=com"}, "", "spf=fail, and no DKIM signature of example.com passed"},
		{[]string{"mx; spf=fail; dkim=fail header.d=example.com"}, "", "spf=fail, and no DKIM signature of example.com passed"},
		{[]string{"mx; spf=fail; dkim=pass"}, "", ""}, // a server that names no signer is taken at its word
		{[]string{"mx; spf=softfail; dkim=none"}, "", ""},
		{[]string{"other; dmarc=fail", "MX; dmarc=pass"}, "mx", ""},
		{[]string{"other; dmarc=pass", "mx; dmarc=fail"}, "mx", "dmarc=fail"},
		{[]string{"other; dmarc=fail"}, "mx", ""},
	} {
		h := mail.Header{}
		if c.headers != nil {
			h["Authentication-Results"] = c.headers
		}
		if got := unauthenticated(h, c.authservID, "Ada@Example.com"); got != c.want {
			t.Errorf("unauthenticated(%q, %q) = %q; want %q", c.headers, c.authservID, got, c.want)
		}
	}
}

func FuzzParseAuthResults(f *testing.F) {
	for _, seed := range []string{
		`mx.example.com 1 (c (n)); spf=pass smtp.mailfrom=a@example.com; dkim=pass header.d="example.com"; dmarc=FAIL`,
		`x; dkim = pass reason="a; b \" c" header.i=@x`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, header string) {
		_, results := parseAuthResults(header)
		for _, r := range results {
			// The verdict compares lowercase words: a result that is not lowercased would slip by.
			if r.method != strings.ToLower(r.method) || r.result != strings.ToLower(r.result) {
				t.Errorf("%q: the result %q=%q is not lowercased", header, r.method, r.result)
			}
		}
	})
}
