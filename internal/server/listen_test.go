package server_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/server"
)

// busyAddrError is what Open says when another process holds the address.
func busyAddrError(addr string) string {
	return addr + " is in use — is another hitl serve running? (--addr)"
}

// TestBusyAddressTouchesNoDatabase: with the address taken, Open fails with one line naming
// it, before it creates the database, starts the engine or writes the credentials file.
func TestBusyAddressTouchesNoDatabase(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer held.Close()
	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials.json")
	t.Setenv("HITL_CREDENTIALS", creds)
	var log bytes.Buffer
	addr := held.Addr().String()
	_, err = server.Open(ctx, server.Config{Addr: addr, DB: filepath.Join(dir, "data", "hitl.db"), WriteCredentials: true},
		slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Open on a busy address left %v in its directory (the database, the credentials file)", entries)
	}
	if log.Len() != 0 {
		t.Errorf("Open on a busy address logged:\n%s", log.String())
	}
	if err == nil || err.Error() != busyAddrError(addr) {
		t.Fatalf("Open on a busy address: %v, want %q", err, busyAddrError(addr))
	}
}

// TestSecondServerOnABusyAddress: a second server on the address and the database of a running
// one (another `hitl serve` started by mistake) changes nothing: not the admin token the first
// one was given, not the event log, and it starts no engine there.
func TestSecondServerOnABusyAddress(t *testing.T) {
	e := newEnv(t)
	before, err := e.Admin.EventPage(ctx, client.EventOptions{})
	must(t, err)
	addr := strings.TrimPrefix(e.URL, "http://")
	var log bytes.Buffer
	_, openErr := server.Open(ctx, server.Config{Addr: addr, DB: e.DB, AdminToken: "a-second-admin-token-0123456789"},
		slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if log.Len() != 0 {
		t.Errorf("the second server logged (it started on the shared database):\n%s", log.String())
	}
	after, err := e.Admin.EventPage(ctx, client.EventOptions{})
	if err != nil {
		t.Errorf("the first server's admin token no longer works: %v", err)
	} else if len(after.Data) != len(before.Data) {
		t.Errorf("%d events before the second server, %d after: it wrote to the shared database", len(before.Data), len(after.Data))
	}
	if openErr == nil || openErr.Error() != busyAddrError(addr) {
		t.Fatalf("a second server on %s: %v, want %q", addr, openErr, busyAddrError(addr))
	}
}

// TestStartSaysWhichChannelsAreOn: serve says at start how it reaches people, and how to turn
// on a channel that is off.
func TestStartSaysWhichChannelsAreOn(t *testing.T) {
	var log bytes.Buffer
	dir := t.TempDir()
	srv, err := server.Open(ctx, server.Config{Addr: "127.0.0.1:0", DB: filepath.Join(dir, "hitl.db")},
		slog.New(slog.NewTextHandler(&log, nil)))
	must(t, err)
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(sctx) }()
	cancel()
	must(t, <-done)
	want := `msg="reaching people by the inbox, chat webhooks, phones (web push, once a person turns it on); off: email (set --smtp-url), Slack (set --slack-bot-token)"`
	if !strings.Contains(log.String(), want) {
		t.Fatalf("the start's log does not say which channels are on (%s):\n%s", want, log.String())
	}
}
