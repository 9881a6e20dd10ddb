// Package testserver runs real hitl servers for tests: the wiring of `hitl serve`
// (internal/server), on 127.0.0.1 at a free port, on a SQLite file in a temporary directory or
// on a PostgreSQL schema, with a known admin token. Only tests import it.
//
// It also has the one way tests wait for something to happen: Eventually (and WaitFor, for
// goroutines other than the test's) test a condition until it holds, within a bound. Tests
// do not sleep and hope.
package testserver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/pgtest"
	"github.com/hitl-dev/hitl/internal/server"
)

// AdminToken is the admin token of every test server.
const AdminToken = "test-admin-token-0123456789"

// Option tunes a test server.
type Option func(*settings)

type settings struct {
	cfg      server.Config
	postgres bool
}

// DB runs the server on a given database, a SQLite file or a postgres:// URL: several
// servers on one PostgreSQL database are the nodes of one cluster.
func DB(db string) Option { return func(s *settings) { s.cfg.DB = db } }

// Postgres runs the server on a fresh PostgreSQL schema of its own (internal/pgtest: skipped
// when HITL_TEST_POSTGRES_URL is not set, failed under CI). Not for Open, which has no test.
func Postgres() Option { return func(s *settings) { s.postgres = true } }

// Webhooks sets how webhooks and resume callbacks are delivered.
func Webhooks(w server.WebhookConfig) Option { return func(s *settings) { s.cfg.Webhooks = w } }

// AllowPrivate lets webhooks and callbacks reach loopback receivers (httptest servers).
func AllowPrivate() Option { return func(s *settings) { s.cfg.Webhooks.AllowPrivate = true } }

// PublicURL sets how others reach the server: the links it makes, the source of its events.
func PublicURL(url string) Option { return func(s *settings) { s.cfg.PublicURL = url } }

// MCPWaitBound sets how long a tool call at /mcp waits for the human.
func MCPWaitBound(d time.Duration) Option { return func(s *settings) { s.cfg.MCPWaitBound = d } }

// Configure changes anything else `hitl serve` can be told. The address, the database and the
// admin token take the test defaults when left empty.
func Configure(f func(*server.Config)) Option { return func(s *settings) { f(&s.cfg) } }

// Server is one test server. Its URL, token and data stay the same across Restart.
type Server struct {
	URL        string
	AdminToken string
	Admin      *client.Client // the admin's client
	DB         string         // the database, for another node on it
	Dir        string         // the temporary directory of the SQLite file; "" when DB or Postgres was given

	t   testing.TB // nil under Open
	cfg server.Config
	log *slog.Logger

	mu     sync.Mutex
	srv    *server.Server
	cancel context.CancelFunc
	done   chan error // Serve's result; nil when stopped
}

// Start runs a server until the test ends. The server's warnings and errors go to the test's log.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	st := apply(opts)
	dir := ""
	switch {
	case st.postgres:
		st.cfg.DB = pgtest.Schema(t)
	case st.cfg.DB == "":
		dir = t.TempDir()
		st.cfg.DB = filepath.Join(dir, "hitl.db")
	}
	s := &Server{t: t, cfg: st.cfg, Dir: dir,
		log: slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

// Open runs a server outside a test (runnable examples): it logs nothing, and what would fail
// a test under Start panics. It runs until Stop; then remove Dir.
func Open(opts ...Option) (*Server, error) {
	st := apply(opts)
	if st.postgres {
		return nil, errors.New("testserver: Postgres needs a test; use Start")
	}
	dir := ""
	if st.cfg.DB == "" {
		var err error
		if dir, err = os.MkdirTemp("", "hitl-test-"); err != nil {
			return nil, err
		}
		st.cfg.DB = filepath.Join(dir, "hitl.db")
	}
	s := &Server{cfg: st.cfg, Dir: dir, log: slog.New(slog.DiscardHandler)}
	if err := s.run(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

func apply(opts []Option) settings {
	var st settings
	for _, o := range opts {
		o(&st)
	}
	if st.cfg.Addr == "" {
		st.cfg.Addr = "127.0.0.1:0"
	}
	if st.cfg.AdminToken == "" {
		st.cfg.AdminToken = AdminToken
	}
	return st
}

// run opens the server on s.cfg and serves it.
func (s *Server) run() error {
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.Open(ctx, s.cfg, s.log)
	if err != nil {
		cancel()
		return err
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.srv, s.cancel, s.done = srv, cancel, done
	if s.URL == "" {
		s.URL, s.AdminToken, s.DB = srv.URL(), s.cfg.AdminToken, s.cfg.DB
		s.Admin = client.New(s.URL, s.AdminToken, nil)
		// A restart comes back at the same address, where clients (and browsers) look for it.
		s.cfg.Addr = strings.TrimPrefix(s.URL, "http://")
	}
	return nil
}

// Stop shuts the server down gracefully, as on SIGTERM, and waits until it has; stopping a
// stopped server does nothing. Under Start a failed shutdown also fails the test.
func (s *Server) Stop() error {
	s.mu.Lock()
	cancel, done := s.cancel, s.done
	s.cancel, s.done = nil, nil
	s.mu.Unlock()
	if done == nil {
		return nil
	}
	cancel()
	err := <-done
	if err != nil && s.t != nil {
		s.t.Errorf("the test server stopped with %v", err)
	}
	return err
}

// Restart stops the server if it runs and starts it again on the same data, at the same address.
func (s *Server) Restart() {
	if s.t != nil {
		s.t.Helper()
	}
	s.Stop()
	if err := s.run(); err != nil {
		s.fatal(fmt.Errorf("restarting the test server: %w", err))
	}
}

// Server is the running server (it changes at a restart).
func (s *Server) Server() *server.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.srv
}

// Engine is the running server's engine, whose gauges tell what has reached it: the waiters
// parked (Waiting), the streams open (Streams).
func (s *Server) Engine() *engine.Engine { return s.Server().Engine() }

// Client returns a client of the server with a token.
func (s *Server) Client(token string) *client.Client { return client.New(s.URL, token, nil) }

// Key creates an API key and returns a client with its token, and the token.
func (s *Server) Key(req hitl.KeyRequest) (*client.Client, string) {
	if s.t != nil {
		s.t.Helper()
	}
	k, err := s.Admin.CreateKey(context.Background(), &req)
	if err != nil {
		s.fatal(fmt.Errorf("creating the key %q: %w", req.Name, err))
	}
	return s.Client(k.Token), k.Token
}

func (s *Server) fatal(err error) {
	if s.t == nil {
		panic(err)
	}
	s.t.Helper()
	s.t.Fatal(err)
}

// testLog writes a server's log lines to the test's log.
type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// WaitFor's pauses between two tests of its condition: short at first, then longer, so that
// what holds soon is seen soon and a condition that queries the server does not load it.
const (
	firstPause = 2 * time.Millisecond
	maxPause   = 100 * time.Millisecond
)

// WaitFor tests cond at once and then again and again until it holds or timeout has passed,
// and reports whether it held. It calls no t.Fatal, so goroutines other than the test's may
// wait with it.
func WaitFor(timeout time.Duration, cond func() bool) bool {
	if cond() {
		return true
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	pause := firstPause
	next := time.NewTimer(pause)
	defer next.Stop()
	for {
		select {
		case <-next.C:
			if cond() {
				return true
			}
			pause = min(2*pause, maxPause)
			next.Reset(pause)
		case <-deadline.C:
			return cond()
		}
	}
}

// Eventually waits for cond as WaitFor does, and fails the test when it does not hold within
// timeout; what names it in the message.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !WaitFor(timeout, cond) {
		t.Fatalf("still waiting for %s after %s", what, timeout)
	}
}

// Receive waits for a value on ch, and fails the test when none comes within timeout or ch
// is closed; what names the value in the message.
func Receive[T any](t testing.TB, ch <-chan T, timeout time.Duration, what string) T {
	t.Helper()
	select {
	case v, ok := <-ch:
		if !ok {
			t.Fatalf("no %s: the channel was closed", what)
		}
		return v
	case <-time.After(timeout):
		t.Fatalf("still waiting for %s after %s", what, timeout)
	}
	var zero T
	return zero
}

// RawDB opens a database as hitl's servers take it (a SQLite file, or a postgres:// URL of a
// schema), to read or change it behind hitl's back, as someone with access to it could. The
// caller closes it.
func RawDB(t testing.TB, db string) *sql.DB {
	t.Helper()
	driver, dsn := "sqlite", "file:"+db+"?_pragma=busy_timeout(10000)"
	if server.IsPostgres(db) {
		driver, dsn = "pgx", db
	}
	conn, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}
