package server_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/server"
)

const adminToken = "test-admin-token-0123456789"

// env is one real server on a temporary database, driven over loopback HTTP.
type env struct {
	t     *testing.T
	dir   string
	url   string
	admin *client.Client
	stop  func()
}

// start runs a server on dir's database at addr ("" for any free port) until the test ends.
func start(t *testing.T, dir, addr string) *env {
	t.Helper()
	e := startDB(t, filepath.Join(dir, "hitl.db"), addr)
	e.dir = dir
	return e
}

// startDB runs a server on a database (a SQLite file or a postgres:// URL) until the test ends.
func startDB(t *testing.T, db, addr string) *env {
	t.Helper()
	return startConfig(t, server.Config{Addr: addr, DB: db})
}

// startConfig runs a server with cfg (any free port when cfg.Addr is empty, the test's admin token).
func startConfig(t *testing.T, cfg server.Config) *env {
	t.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	cfg.AdminToken = adminToken
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := server.Open(ctx, cfg, log)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server stopped with %v", err)
		}
	}
	t.Cleanup(stop)
	return &env{t: t, url: srv.URL(), admin: client.New(srv.URL(), adminToken, nil), stop: stop}
}

func newEnv(t *testing.T) *env {
	t.Parallel()
	return start(t, t.TempDir(), "")
}

// testLog shows a server's warnings and errors in the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// principal creates a key and returns a client with its token.
func (e *env) principal(name string, roles []string, groups ...string) *client.Client {
	e.t.Helper()
	k, err := e.admin.CreateKey(context.Background(), &hitl.KeyRequest{Name: name, Roles: roles, Groups: groups})
	if err != nil {
		e.t.Fatal(err)
	}
	return client.New(e.url, k.Token, nil)
}

func (e *env) token(name string, roles ...string) string {
	e.t.Helper()
	k, err := e.admin.CreateKey(context.Background(), &hitl.KeyRequest{Name: name, Roles: roles})
	if err != nil {
		e.t.Fatal(err)
	}
	return k.Token
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
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
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
func clientFor(e *env, token string) *client.Client { return client.New(e.url, token, nil) }

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
