package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl/internal/testskip"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// TestMain says, without -v, which suites were skipped and how to run them.
func TestMain(m *testing.M) { os.Exit(testskip.Main(m)) }

const adminToken = testserver.AdminToken

// env is one real hitl server on a temporary SQLite database, with an agent and a responder.
type env struct {
	*testserver.Server
	t         *testing.T
	agent     *client.Client
	responder *client.Client
	// responderToken signs the responder in to the inbox.
	responderToken string
}

func start(t *testing.T, opts ...testserver.Option) *env {
	t.Helper()
	s := testserver.Start(t, opts...)
	e := &env{Server: s, t: t}
	e.agent = e.key("deploy-bot", hitl.RoleAgent)
	e.responder, e.responderToken = e.keyToken("ada", hitl.RoleResponder)
	return e
}

func (e *env) key(name string, roles ...string) *client.Client {
	c, _ := e.keyToken(name, roles...)
	return c
}

func (e *env) keyToken(name string, roles ...string) (*client.Client, string) {
	e.t.Helper()
	return e.Key(hitl.KeyRequest{Name: name, Roles: roles})
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
	inq, err := e.Admin.Inquiry(context.Background(), id)
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
	return &browser{t: e.t, base: e.URL, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
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
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8") // what browsers send
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
