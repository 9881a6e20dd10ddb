package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl/internal/testskip"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// TestMain says, without -v, which suites were skipped and how to run them.
func TestMain(m *testing.M) { os.Exit(testskip.Main(m)) }

const adminToken = testserver.AdminToken

// env is one real server on a temporary database, driven over loopback HTTP.
type env struct {
	*testserver.Server
	t *testing.T
}

// startServer runs a server until the test ends: SQLite in a temporary directory unless an
// option says otherwise.
func startServer(t *testing.T, opts ...testserver.Option) *env {
	t.Helper()
	s := testserver.Start(t, opts...)
	return &env{Server: s, t: t}
}

// newEnv is startServer for a test that runs in parallel with others.
func newEnv(t *testing.T, opts ...testserver.Option) *env {
	t.Parallel()
	return startServer(t, opts...)
}

// startConfig runs a server with cfg (the test defaults where it leaves the address, the
// database or the admin token empty).
func startConfig(t *testing.T, cfg server.Config) *env {
	t.Helper()
	return startServer(t, testserver.Configure(func(c *server.Config) { *c = cfg }))
}

// stop shuts the server down gracefully; Restart brings it back on the same data.
func (e *env) stop() { e.Stop() }

// eventually polls cond until it holds, for at most 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testserver.Eventually(t, 10*time.Second, what, cond)
}

// principal creates a key and returns a client with its token.
func (e *env) principal(name string, roles []string, groups ...string) *client.Client {
	e.t.Helper()
	c, _ := e.Key(hitl.KeyRequest{Name: name, Roles: roles, Groups: groups})
	return c
}

// token creates a key and returns its token.
func (e *env) token(name string, roles ...string) string {
	e.t.Helper()
	_, tok := e.Key(hitl.KeyRequest{Name: name, Roles: roles})
	return tok
}

// reply is a raw HTTP answer.
type reply struct {
	status int
	header http.Header
	body   map[string]any
	text   string
}

// do sends a raw request, for what the typed client cannot send (bad JSON, odd headers).
func (e *env) do(method, path, token, body string, headers ...string) reply {
	e.t.Helper()
	return e.doWith(http.DefaultClient, method, path, token, body, headers...)
}

// doWith is do through another HTTP client (another source address, say).
func (e *env) doWith(hc *http.Client, method, path, token, body string, headers ...string) reply {
	e.t.Helper()
	req, err := http.NewRequest(method, e.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := hc.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header, text: string(b)}
	json.Unmarshal(b, &r.body)
	return r
}

func (r reply) code() string {
	c, _ := r.body["code"].(string)
	return c
}

// unlisted is the first of paths that the problem's errors do not list, "" when all are.
func (r reply) unlisted(paths []string) string {
	listed := map[string]bool{}
	if errs, ok := r.body["errors"].([]any); ok {
		for _, fe := range errs {
			listed[fe.(map[string]any)["path"].(string)] = true
		}
	}
	for _, p := range paths {
		if !listed[p] {
			return p
		}
	}
	return ""
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantCode checks that err is a server problem with the code.
func wantCode(t *testing.T, err error, code string) *client.Error {
	t.Helper()
	var ce *client.Error
	if err == nil {
		t.Fatalf("got success, want %s", code)
	}
	ce, ok := err.(*client.Error)
	if !ok || ce.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
	return ce
}

func ask(t *testing.T, c *client.Client, req hitl.InquiryRequest) *hitl.Inquiry {
	t.Helper()
	inq, created, err := c.CreateInquiry(context.Background(), &req, client.CreateOptions{})
	must(t, err)
	if !created {
		t.Fatal("CreateInquiry did not create")
	}
	return inq
}

// clientFor returns a client of the server with a token.
func clientFor(e *env, token string) *client.Client { return e.Client(token) }

// answerRace sends n answers to one inquiry at the same moment, answer i through respond(i),
// and counts how they ended: successes, conflicts, and any other error.
func answerRace(n int, respond func(i int) error) (ok, conflicts int, other []error) {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		start = make(chan struct{})
	)
	for i := range n {
		wg.Go(func() {
			<-start
			err := respond(i)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case client.ErrorCode(err) == hitl.EConflict:
				conflicts++
			default:
				other = append(other, err)
			}
		})
	}
	close(start)
	wg.Wait()
	return ok, conflicts, other
}
