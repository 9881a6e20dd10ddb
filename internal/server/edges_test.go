package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
)

// The HTTP edges: slow bodies, the connection cap, errors in the API's format, and the limit
// on failed authentications. Where the standard client would hide what is tested, the tests
// speak HTTP/1.1 over their own TCP connections.

// patience is how long a test waits for what must happen.
const patience = 10 * time.Second

// rawConn is one TCP connection to the server.
type rawConn struct {
	net.Conn
	t *testing.T
	r *bufio.Reader
}

func (e *env) dial() *rawConn {
	e.t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(e.URL, "http://"))
	must(e.t, err)
	e.t.Cleanup(func() { c.Close() })
	return &rawConn{Conn: c, t: e.t, r: bufio.NewReader(c)}
}

func (c *rawConn) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.Conn, s); err != nil {
		c.t.Fatal(err)
	}
}

// reply reads one whole response.
func (c *rawConn) reply() (*http.Response, string) {
	c.t.Helper()
	c.SetReadDeadline(time.Now().Add(patience))
	res, err := http.ReadResponse(c.r, nil)
	if err != nil {
		c.t.Fatalf("no answer: %v", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatalf("reading the answer: %v", err)
	}
	return res, string(b)
}

// closed waits for the server to close the connection.
func (c *rawConn) closed() {
	c.t.Helper()
	c.SetReadDeadline(time.Now().Add(patience))
	_, err := io.Copy(io.Discard, c.r)
	if isTimeout(err) {
		c.t.Fatal("the server kept the connection open")
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func startEdges(t *testing.T, cfg server.Config) *env {
	t.Helper()
	t.Parallel()
	cfg.DB = filepath.Join(t.TempDir(), "hitl.db")
	return startConfig(t, cfg)
}

// A request with bad credentials is answered before its body, which is never waited for.
func TestBadCredentialsAreAnsweredBeforeTheBody(t *testing.T) {
	e := startEdges(t, server.Config{BodyReadTimeout: time.Hour})
	for _, tc := range []struct{ name, head, contentType string }{
		{"bad token", "POST /v1/inquiries HTTP/1.1\r\nAuthorization: Bearer not-a-token\r\n", "application/problem+json"},
		{"no token", "POST /v1/inquiries HTTP/1.1\r\n", "application/problem+json"},
		{"bad answer link", "POST /a/not-a-link HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\n", "text/html; charset=utf-8"},
	} {
		c := e.dial()
		// 100 kB promised, a few bytes sent: the server must not wait for the rest.
		c.send(tc.head + "Host: hitl\r\nContent-Length: 100000\r\n\r\n{\"prompt\":")
		res, body := c.reply()
		if res.StatusCode != http.StatusUnauthorized || res.Header.Get("Content-Type") != tc.contentType {
			t.Fatalf("%s: %d %s %s", tc.name, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		c.closed()
	}
}

// A body that arrives too slowly, or stops, is cut off at the body deadline.
func TestSlowBodiesAreCutOff(t *testing.T) {
	e := startEdges(t, server.Config{BodyReadTimeout: 300 * time.Millisecond})
	agent := e.token("bot", hitl.RoleAgent)
	api := "POST /v1/inquiries HTTP/1.1\r\nHost: hitl\r\nAuthorization: Bearer " + agent + "\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{\"prompt\":\""
	form := "POST /login HTTP/1.1\r\nHost: hitl\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\ntoken="
	for _, tc := range []struct {
		name, request string
		trickle       bool
		contentType   string
	}{
		{"API, one byte at a time", api, true, "application/problem+json"},
		{"API, stalled", api, false, "application/problem+json"},
		{"sign-in form, one byte at a time", form, true, "text/html; charset=utf-8"},
		{"sign-in form, stalled", form, false, "text/html; charset=utf-8"},
	} {
		c := e.dial()
		c.send(tc.request)
		stop := make(chan struct{})
		var trickled sync.WaitGroup
		if tc.trickle {
			trickled.Go(func() {
				tick := time.NewTicker(20 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						if _, err := c.Write([]byte("x")); err != nil {
							return
						}
					}
				}
			})
		}
		res, body := c.reply()
		close(stop)
		trickled.Wait()
		if res.StatusCode != http.StatusRequestTimeout || res.Header.Get("Content-Type") != tc.contentType {
			t.Fatalf("%s: %d %s %s", tc.name, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		if tc.contentType == "application/problem+json" && !strings.Contains(body, `"code":"request_timeout"`) {
			t.Fatalf("%s: %s", tc.name, body)
		}
		c.closed()
	}
}

// The body deadline ends with the body: a request that then waits for the human, a long poll
// and a stream run on past it.
func TestBodyDeadlineSparesWaitsAndStreams(t *testing.T) {
	e := startEdges(t, server.Config{BodyReadTimeout: 200 * time.Millisecond})
	agent := e.token("bot", hitl.RoleAgent)

	stream := e.dial()
	stream.send("GET /v1/events/stream?type=inquiry.created HTTP/1.1\r\nHost: hitl\r\nAuthorization: Bearer " + agent + "\r\nContent-Length: 2\r\n\r\n{}")
	stream.SetReadDeadline(time.Now().Add(patience))
	res, err := http.ReadResponse(stream.r, nil)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("stream: %v %v", res, err)
	}
	events := bufio.NewScanner(res.Body)
	// next reads the stream up to a line with that prefix and text.
	next := func(prefix, text string) {
		t.Helper()
		for events.Scan() {
			if strings.HasPrefix(events.Text(), prefix) && strings.Contains(events.Text(), text) {
				return
			}
		}
		t.Fatalf("the stream ended before %q: %v", prefix+"…"+text, events.Err())
	}
	next("event: start", "")

	began := time.Now()
	r := e.do("POST", "/v1/inquiries?wait=1s", agent, `{"prompt":"Anyone?"}`)
	if r.status != http.StatusCreated || r.body["status"] != "pending" || time.Since(began) < time.Second {
		t.Fatalf("create and wait 1 s: %d after %v: %s", r.status, time.Since(began), r.text)
	}
	id := r.body["id"]

	poll := e.dial()
	began = time.Now()
	poll.send(fmt.Sprintf("GET /v1/inquiries/%v/wait?timeout=1s HTTP/1.1\r\nHost: hitl\r\nAuthorization: Bearer %s\r\nContent-Length: 2\r\n\r\n{}", id, agent))
	res, body := poll.reply()
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `"status":"pending"`) || time.Since(began) < time.Second {
		t.Fatalf("long poll of 1 s sent with a body: %d after %v: %s", res.StatusCode, time.Since(began), body)
	}

	// The stream goes on, long after its deadline.
	ask(t, clientFor(e, agent), hitl.InquiryRequest{Prompt: "Still there?"})
	next("data: ", "Still there?")
}

// Beyond the cap, a connection waits until one of those open closes.
func TestConnectionCap(t *testing.T) {
	e := startEdges(t, server.Config{MaxConns: 2})
	const healthz = "GET /healthz HTTP/1.1\r\nHost: hitl\r\n\r\n"
	held := []*rawConn{e.dial(), e.dial()}
	for _, c := range held {
		c.send(healthz)
		if res, _ := c.reply(); res.StatusCode != http.StatusOK {
			t.Fatal(res.Status)
		}
	}
	third := e.dial()
	third.send(healthz)
	third.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := third.r.Peek(1); !isTimeout(err) {
		t.Fatalf("a third connection was served while two were open (%v)", err)
	}
	held[0].Close()
	if res, _ := third.reply(); res.StatusCode != http.StatusOK {
		t.Fatal(res.Status)
	}
}

// Errors of the API are problem+json on every API path; the inbox's are its pages.
func TestErrorsStayInTheirFormat(t *testing.T) {
	e := startEdges(t, server.Config{})
	agent := e.token("bot", hitl.RoleAgent)
	for _, path := range []string{"/static/%ff", "/static/%c0%af", "/static/", "/static/nope.css", "/static/..%2fserver.go"} {
		r := e.do("GET", path, "", "")
		if r.status != http.StatusNotFound || r.header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(r.text, "There is no page here.") {
			t.Errorf("GET %s: %d %s %s", path, r.status, r.header.Get("Content-Type"), r.text)
		}
	}
	if r := e.do("GET", "/static/app.css", "", ""); r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/css") {
		t.Errorf("GET /static/app.css: %d %s", r.status, r.header.Get("Content-Type"))
	}
	for _, tc := range []struct {
		method, path, body, contentType string
		status                          int
		code                            string
	}{
		{"GET", "/v1/ws", "", "", http.StatusUpgradeRequired, "upgrade_required"},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "text/plain", http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "application/json", http.StatusBadRequest, hitl.EInvalid}, // no Accept
		{"GET", "/v1/nope", "", "", http.StatusNotFound, hitl.ENotFound},
		{"GET", "/v1", "", "", http.StatusNotFound, hitl.ENotFound},
		{"GET", "/api/x", "", "", http.StatusNotFound, hitl.ENotFound},
		{"POST", "/api", "", "", http.StatusNotFound, hitl.ENotFound},
		{"GET", "/mcp/x", "", "", http.StatusNotFound, hitl.ENotFound},
		{"GET", "/v1%2fnope", "", "", http.StatusNotFound, hitl.ENotFound},
	} {
		r := e.do(tc.method, tc.path, agent, tc.body, "Content-Type", tc.contentType)
		if r.status != tc.status || r.header.Get("Content-Type") != "application/problem+json" || r.code() != tc.code || r.body["status"] != float64(tc.status) {
			t.Errorf("%s %s: %d %s %s, want %d %s", tc.method, tc.path, r.status, r.header.Get("Content-Type"), r.text, tc.status, tc.code)
		}
	}
}

// A path nothing serves is the inbox's HTML page only for a browser loading a page; a program
// (another method, an Accept without text/html, a JSON body), most likely one that mistyped an
// API path, gets a problem+json that names the path and where the API is.
func TestNotFoundIsProblemUnlessABrowserLoadsAPage(t *testing.T) {
	e := startEdges(t, server.Config{})
	agent := e.token("bot", hitl.RoleAgent)
	for _, tc := range []struct {
		method, path string
		headers      []string
	}{
		{"POST", "/MCP", []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}},
		{"POST", "/v2/inquiries", []string{"Content-Type", "application/json", "Accept", "application/json"}},
		{"POST", "/v2/x", nil},
		{"GET", "/nowhere", []string{"Accept", "application/json"}},
		{"GET", "/nowhere", nil},
		{"GET", "/nowhere", []string{"Accept", "text/html", "Content-Type", "application/json"}},
		{"DELETE", "/nowhere", []string{"Accept", "text/html"}},
	} {
		r := e.do(tc.method, tc.path, agent, "{}", tc.headers...)
		if r.status != http.StatusNotFound || r.header.Get("Content-Type") != "application/problem+json" || r.code() != hitl.ENotFound ||
			!strings.Contains(r.text, tc.method+" "+tc.path) || !strings.Contains(r.text, "/v1") {
			t.Errorf("%s %s %v: %d %s %s", tc.method, tc.path, tc.headers, r.status, r.header.Get("Content-Type"), r.text)
		}
	}
	for _, accept := range []string{"text/html", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"} {
		r := e.do("GET", "/nowhere", "", "", "Accept", accept)
		if r.status != http.StatusNotFound || r.header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(r.text, "There is no page here.") {
			t.Errorf("GET /nowhere, Accept %s: %d %s %s", accept, r.status, r.header.Get("Content-Type"), r.text)
		}
	}
}

// webClient is a browser of sorts: cookies, no redirects followed, and a source address.
func webClient(t *testing.T, from string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	return &http.Client{Jar: jar, Transport: &http.Transport{DialContext: dialer.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// signIn posts the sign-in form with a token, as a browser does after loading it.
func (e *env) signIn(hc *http.Client, token string) reply {
	e.t.Helper()
	page := e.doWith(hc, "GET", "/login", "", "")
	m := csrfField.FindStringSubmatch(page.text)
	if m == nil {
		e.t.Fatalf("no sign-in form: %d %s", page.status, page.text)
	}
	form := url.Values{"csrf": {m[1]}, "token": {token}, "next": {"/"}}
	return e.doWith(hc, "POST", "/login", "", form.Encode(), "Content-Type", "application/x-www-form-urlencoded")
}

// Failed authentications are counted per client address, on the API, the sign-in form and
// answer links together: past the limit, that address gets 429 until its minute is up, even
// with good credentials; other addresses are not affected.
func TestFailedAuthenticationIsRateLimited(t *testing.T) {
	clk := clock.NewManual(time.Now())
	e := startEdges(t, server.Config{AuthFailuresPerMinute: 3, LimiterClock: clk.Now})
	agent := e.token("bot", hitl.RoleAgent)
	inq := ask(t, clientFor(e, agent), hitl.InquiryRequest{Prompt: "Ship it?", AssignedTo: []string{"ann"}})
	e.token("ann", hitl.RoleResponder)
	link := e.do("POST", fmt.Sprintf("/v1/inquiries/%d/links", inq.ID), adminToken, `{"for":"ann"}`, "Content-Type", "application/json")
	if link.status != http.StatusCreated {
		t.Fatalf("link: %d %s", link.status, link.text)
	}
	linkPath := strings.TrimPrefix(link.body["url"].(string), e.URL)
	here, elsewhere := webClient(t, "127.0.0.1"), webClient(t, "127.0.0.2")
	if r := e.doWith(elsewhere, "GET", "/healthz", "", ""); r.status != http.StatusOK {
		t.Skipf("cannot connect from 127.0.0.2: %d", r.status)
	}

	// limited checks a 429 with its Retry-After in seconds.
	limited := func(t *testing.T, what string, r reply, retryAfter int, contentType string) {
		t.Helper()
		ra, err := strconv.Atoi(r.header.Get("Retry-After"))
		if r.status != http.StatusTooManyRequests || err != nil || ra != retryAfter || r.header.Get("Content-Type") != contentType {
			t.Fatalf("%s: %d, Retry-After %q (want %d), %s: %s", what, r.status, r.header.Get("Retry-After"), retryAfter, r.header.Get("Content-Type"), r.text)
		}
		if contentType == "application/problem+json" && (r.code() != hitl.ERateLimited || r.body["status"] != float64(429)) {
			t.Fatalf("%s: %s", what, r.text)
		}
	}
	const problem, page = "application/problem+json", "text/html; charset=utf-8"

	t.Run("API", func(t *testing.T) {
		for i := range 3 {
			if r := e.doWith(here, "GET", "/v1/me", "bad-token", ""); r.status != http.StatusUnauthorized {
				t.Fatalf("failure %d: %d %s", i, r.status, r.text)
			}
		}
		limited(t, "a good token after 3 failures", e.doWith(here, "GET", "/v1/me", agent, ""), 60, problem)
		limited(t, "a POST with a body", e.doWith(here, "POST", "/v1/inquiries", agent, `{"prompt":"x"}`), 60, problem)
		if r := e.doWith(elsewhere, "GET", "/v1/me", agent, ""); r.status != http.StatusOK {
			t.Fatalf("another address: %d %s", r.status, r.text)
		}
		if r := e.doWith(here, "GET", "/healthz", "", ""); r.status != http.StatusOK {
			t.Fatalf("a public route: %d %s", r.status, r.text)
		}
		clk.Advance(45 * time.Second)
		limited(t, "15 s before the minute is up", e.doWith(here, "GET", "/v1/me", agent, ""), 15, problem)
		clk.Advance(15 * time.Second)
		if r := e.doWith(here, "GET", "/v1/me", agent, ""); r.status != http.StatusOK {
			t.Fatalf("after the minute: %d %s", r.status, r.text)
		}
	})

	t.Run("sign-in form", func(t *testing.T) {
		clk.Advance(time.Minute)
		for i := range 3 {
			if r := e.signIn(here, "bad-token"); r.status != http.StatusUnauthorized {
				t.Fatalf("failure %d: %d %s", i, r.status, r.text)
			}
		}
		r := e.signIn(here, adminToken)
		limited(t, "a good token after 3 failures", r, 60, page)
		if !strings.Contains(r.text, "Too many failed attempts") {
			t.Fatalf("the page does not say why: %s", r.text)
		}
		if r := e.signIn(elsewhere, adminToken); r.status != http.StatusSeeOther {
			t.Fatalf("another address: %d %s", r.status, r.text)
		}
		clk.Advance(time.Minute)
		if r := e.signIn(here, adminToken); r.status != http.StatusSeeOther {
			t.Fatalf("after the minute: %d %s", r.status, r.text)
		}
	})

	t.Run("answer links", func(t *testing.T) {
		clk.Advance(time.Minute)
		for i, bad := range []string{"/a/not-a-link", "/a/v1.forged.sig", linkPath + "x"} {
			if r := e.doWith(here, "GET", bad, "", ""); r.status != http.StatusUnauthorized {
				t.Fatalf("failure %d: %d %s", i, r.status, r.text)
			}
		}
		limited(t, "a good link after 3 failures", e.doWith(here, "GET", linkPath, "", ""), 60, page)
		limited(t, "a posted answer", e.doWith(here, "POST", linkPath, "", "approved=true", "Content-Type", "application/x-www-form-urlencoded"), 60, page)
		if r := e.doWith(elsewhere, "GET", linkPath, "", ""); r.status != http.StatusOK {
			t.Fatalf("another address: %d %s", r.status, r.text)
		}
		clk.Advance(time.Minute)
		if r := e.doWith(here, "GET", linkPath, "", ""); r.status != http.StatusOK {
			t.Fatalf("after the minute: %d %s", r.status, r.text)
		}
	})

	// The tabs left open after a sign-out knock on the event stream with a session that has
	// ended: that is no guess at a credential, and must not lock the person out.
	t.Run("ended inbox sessions do not count", func(t *testing.T) {
		clk.Advance(time.Minute)
		_, token := e.Key(hitl.KeyRequest{Name: "rita", Roles: []string{hitl.RoleResponder}})
		tab := webClient(t, "127.0.0.1")
		if r := e.signIn(tab, token); r.status != http.StatusSeeOther {
			t.Fatalf("sign-in: %d %s", r.status, r.text)
		}
		keys, err := e.Admin.Keys(context.Background())
		must(t, err)
		for _, k := range keys {
			if k.Name == "rita" {
				must(t, e.Admin.RevokeKey(context.Background(), k.ID))
			}
		}
		for i := range 6 {
			if r := e.doWith(tab, "GET", "/v1/events/stream", "", ""); r.status != http.StatusUnauthorized {
				t.Fatalf("stream %d with the ended session: %d %s", i, r.status, r.text)
			}
		}
		if r := e.doWith(here, "GET", "/v1/me", agent, ""); r.status != http.StatusOK {
			t.Fatalf("the API after the ended session's knocks: %d %s", r.status, r.text)
		}
	})

	t.Run("one count for all three", func(t *testing.T) {
		clk.Advance(time.Minute)
		e.doWith(here, "GET", "/v1/me", "bad-token", "")
		e.signIn(here, "bad-token")
		e.doWith(here, "GET", "/a/not-a-link", "", "")
		limited(t, "the API after one failure on each", e.doWith(here, "GET", "/v1/me", agent, ""), 60, problem)
	})
}

// The size of a body is no business of a caller who is not known: a bad token with a large
// body hears 401, a known caller 413.
func TestBodySizeIsToldOnlyToKnownCallers(t *testing.T) {
	e := startEdges(t, server.Config{MaxBodyBytes: 1024})
	big := `{"prompt":"` + strings.Repeat("x", 2048) + `"}`
	if r := e.do("POST", "/v1/inquiries", "not-a-token", big); r.status != http.StatusUnauthorized {
		t.Fatalf("a bad token with a large body: %d %s", r.status, r.text)
	}
	if r := e.do("POST", "/v1/inquiries", adminToken, big); r.status != http.StatusRequestEntityTooLarge || r.code() != hitl.ETooLarge {
		t.Fatalf("the admin with a large body: %d %s", r.status, r.text)
	}
}
