package email

import (
	"net/mail"
	"strings"
)

// Authentication-Results (RFC 8601) is the header a receiving mail server adds to say what it
// found of a message's SPF, DKIM and DMARC. A reply's From header is only what the message
// claims: the reply token is the credential, and From is checked against the address the
// question went to without being proof of anything. When the receiving server reports the
// claim false, the reply is refused. The header can only refuse: a sender who adds one that
// says "pass" changes nothing, and one that says "fail" refuses only their own reply. That
// is why, unless told which server's header to read, the topmost header is taken: the one
// the last server, the receiving one, added on top.

// authResult is one result of the header: "dkim=pass header.d=example.com".
type authResult struct {
	method, result string            // lowercased: "dkim", "pass"
	props          map[string]string // "header.d": "example.com"
}

// unauthenticated says what in the receiving mail server's Authentication-Results shows that a
// message did not come from address: "dmarc=fail", or an SPF failure that no passing DKIM
// signature of the address's domain makes up for. It is "" when the results say nothing
// against the message (softfail, none, temperror and the like), and when there are none.
func unauthenticated(h mail.Header, authservID, address string) string {
	results, ok := receivedResults(h, authservID)
	if !ok {
		return ""
	}
	domain := strings.ToLower(address[strings.LastIndexByte(address, '@')+1:])
	var spfFailed, dkimPassed bool
	for _, r := range results {
		switch r.method {
		case "dmarc":
			if r.result == "fail" {
				return "dmarc=fail"
			}
		case "spf":
			spfFailed = spfFailed || r.result == "fail"
		case "dkim":
			dkimPassed = dkimPassed || r.result == "pass" && aligned(r.signer(), domain)
		}
	}
	if spfFailed && !dkimPassed {
		return "spf=fail, and no DKIM signature of " + domain + " passed"
	}
	return ""
}

// receivedResults reads the topmost Authentication-Results header, or with authservID the
// topmost one that server wrote; ok is false when there is none.
func receivedResults(h mail.Header, authservID string) (results []authResult, ok bool) {
	for _, v := range h["Authentication-Results"] {
		id, results := parseAuthResults(v)
		if authservID == "" || strings.EqualFold(id, authservID) {
			return results, true
		}
	}
	return nil, false
}

// signer is the domain whose DKIM signature a result is about: header.d, or the domain of
// header.i; "" when the server named neither.
func (r authResult) signer() string {
	if d := r.props["header.d"]; d != "" {
		return strings.ToLower(d)
	}
	i := r.props["header.i"]
	return strings.ToLower(i[strings.LastIndexByte(i, '@')+1:])
}

// aligned tells whether a DKIM signer speaks for the From domain: the same domain, or one a
// subdomain of the other (DMARC's relaxed alignment, without a public-suffix list: the parent
// must at least have a dot, so that "com" speaks for nobody). A server that named no signer
// is taken at its word.
func aligned(signer, domain string) bool {
	switch {
	case signer == "" || signer == domain:
		return true
	case strings.HasSuffix(domain, "."+signer):
		return strings.Contains(signer, ".")
	case strings.HasSuffix(signer, "."+domain):
		return strings.Contains(domain, ".")
	}
	return false
}

// parseAuthResults reads one header: "mx.example.com 1; spf=pass (sender ok)
// smtp.mailfrom=example.com; dkim=pass header.d=example.com". It reads what it can and skips
// the rest: comments, odd spacing and quoted values are all taken, and nothing it is given
// makes it fail.
func parseAuthResults(v string) (authservID string, results []authResult) {
	statements := splitOutsideQuotes(withoutComments(v), ';')
	if len(statements) == 0 {
		return "", nil
	}
	if id := authTokens(statements[0]); len(id) > 0 {
		authservID = id[0].text // an authserv-version may follow
	}
	for _, s := range statements[1:] {
		toks := authTokens(s)
		if len(toks) < 3 || toks[1].text != "=" || toks[1].quoted {
			continue // "none", or not a result
		}
		method, _, _ := strings.Cut(toks[0].text, "/") // "dkim/1": a method version
		r := authResult{method: strings.ToLower(method), result: strings.ToLower(toks[2].text), props: map[string]string{}}
		for i := 3; i+2 < len(toks); {
			if toks[i+1].text == "=" && !toks[i+1].quoted {
				r.props[strings.ToLower(toks[i].text)] = toks[i+2].text
				i += 3
			} else {
				i++
			}
		}
		results = append(results, r)
	}
	return authservID, results
}

// authToken is a word of the header, an "=", or a quoted string (undone).
type authToken struct {
	text   string
	quoted bool
}

func authTokens(s string) []authToken {
	var out []authToken
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			out = append(out, authToken{text: word.String()})
			word.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\r', '\n':
			flush()
		case '=':
			flush()
			out = append(out, authToken{text: "="})
		case '"':
			flush()
			var q strings.Builder
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				q.WriteByte(s[i])
			}
			out = append(out, authToken{text: q.String(), quoted: true})
		default:
			word.WriteByte(c)
		}
	}
	flush()
	return out
}

// withoutComments replaces the (comments) of a header, which nest, with a space; quoted
// strings keep their parentheses.
func withoutComments(s string) string {
	if !strings.ContainsRune(s, '(') {
		return s
	}
	var b strings.Builder
	depth, quoted := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && (quoted || depth > 0):
			if depth == 0 {
				b.WriteString(s[i : i+2])
			}
			i++
		case depth == 0 && c == '"':
			quoted = !quoted
			b.WriteByte(c)
		case !quoted && c == '(':
			if depth == 0 {
				b.WriteByte(' ')
			}
			depth++
		case depth > 0 && c == ')':
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// splitOutsideQuotes splits s at each sep that is not inside a quoted string.
func splitOutsideQuotes(s string, sep byte) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && quoted:
			i++
		case s[i] == '"':
			quoted = !quoted
		case s[i] == sep && !quoted:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
