package web_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/server"
)

const adminToken = "web-test-admin-token-0123456789"

// env is one real hitl server on a temporary SQLite database, with an agent and a responder.
type env struct {
	t         *testing.T
	url       string
	admin     *client.Client
	agent     *client.Client
	responder *client.Client
	// responderToken signs the responder in to the inbox.
	responderToken string
}

func start(t *testing.T) *env {
	t.Helper()
	url, _ := serve(t, filepath.Join(t.TempDir(), "hitl.db"), "127.0.0.1:0")
	e := &env{t: t, url: url, admin: client.New(url, adminToken, nil)}
	e.agent = e.key("deploy-bot", hitl.RoleAgent)
	var tok string
	e.responder, tok = e.keyToken("ada", hitl.RoleResponder)
	e.responderToken = tok
	return e
}

// serve runs a server on the database at addr until the test ends or stop is called; it
// returns the server's URL.
func serve(t *testing.T, db, addr string) (url string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.Open(ctx, server.Config{Addr: addr, DB: db, AdminToken: adminToken}, log)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("server stopped with %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return srv.URL(), stop
}

func (e *env) key(name string, roles ...string) *client.Client {
	c, _ := e.keyToken(name, roles...)
	return c
}

func (e *env) keyToken(name string, roles ...string) (*client.Client, string) {
	e.t.Helper()
	k, err := e.admin.CreateKey(context.Background(), &hitl.KeyRequest{Name: name, Roles: roles})
	if err != nil {
		e.t.Fatal(err)
	}
	return client.New(e.url, k.Token, nil), k.Token
}

// ask creates an inquiry as the agent.
func (e *env) ask(req *hitl.InquiryRequest) *hitl.Inquiry {
	e.t.Helper()
	inq, _, err := e.agent.CreateInquiry(context.Background(), req, client.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return inq
}

func (e *env) inquiry(id int64) *hitl.Inquiry {
	e.t.Helper()
	inq, err := e.admin.Inquiry(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return inq
}

// browser is a plain HTTP client with cookies, for what the pages answer to bad input.
type browser struct {
	t    *testing.T
	base string
	http *http.Client
}

func (e *env) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: e.t, base: e.url, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// response is one answer: its status, headers and body.
type response struct {
	status int
	header http.Header
	body   string
}

func (b *browser) get(path string) response {
	b.t.Helper()
	return b.do(http.MethodGet, path, nil)
}

func (b *browser) post(path string, form url.Values) response {
	b.t.Helper()
	return b.do(http.MethodPost, path, form)
}

func (b *browser) do(method, path string, form url.Values) response {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, b.base+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := b.http.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: string(data)}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the CSRF token of the last form on a page.
func (p response) csrf() string {
	m := csrfField.FindAllStringSubmatch(p.body, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1][1]
}

// signIn signs in with a token through the sign-in form.
func (b *browser) signIn(token string) {
	b.t.Helper()
	login := b.get("/login")
	res := b.post("/login", url.Values{"csrf": {login.csrf()}, "token": {token}, "next": {"/"}})
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/" {
		b.t.Fatalf("sign-in: %d %s", res.status, res.body)
	}
}

func mustJSON(t *testing.T, raw json.RawMessage, want string) {
	t.Helper()
	var a, b any
	if json.Unmarshal(raw, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		t.Fatalf("not JSON: %s or %s", raw, want)
	}
	ga, _ := json.Marshal(a)
	gb, _ := json.Marshal(b)
	if string(ga) != string(gb) {
		t.Fatalf("got %s, want %s", ga, gb)
	}
}
