package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/brokertest"
)

// TestBrokerEventsSurviveSIGKILL kills the server while it publishes a burst of events to
// RabbitMQ: after the restart every event arrives, a repeat only with the same message_id.
func TestBrokerEventsSurviveSIGKILL(t *testing.T) {
	r := brokertest.NewRabbit(t)
	ctx := context.Background()
	dir := t.TempDir()
	db, addr := filepath.Join(dir, "hitl.db"), freeAddr(t)
	flags := []string{"--amqp-url", r.URL, "--amqp-exchange", r.Exchange, "--webhook-timeout", "1s",
		"--webhook-retry-base", "100ms", "--webhook-retry-max", "200ms"}
	proc := serverProcess(t, addr, db, flags...)
	admin := client.New("http://"+addr, adminToken, nil)
	const n = 60
	for i := range n {
		if i == n/2 {
			proc.Process.Signal(syscall.SIGKILL) // mid-burst: some events published, some not yet
			proc.Wait()
			proc = serverProcess(t, addr, db, flags...)
		}
		if _, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: fmt.Sprintf("q%d", i)}, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	seen := r.Drain(t, n, 30*time.Second)
	if len(seen) != n {
		t.Errorf("%d distinct events arrived, want %d", len(seen), n)
	}
	proc.Process.Signal(syscall.SIGTERM)
	if err := proc.Wait(); err != nil {
		t.Fatalf("graceful stop: %v", err)
	}
}

func TestServeRefusesBadBrokerURLs(t *testing.T) {
	db := filepath.Join(t.TempDir(), "never.db")
	code, _, stderr := cli(t, "serve", "--addr", "127.0.0.1:0", "--db", db,
		"--amqp-url", "rabbit:5672", "--nats-url", "http://nats:4222")
	if code == 0 || !strings.Contains(stderr, `--amqp-url "rabbit:5672" is not a RabbitMQ URL`) || !strings.Contains(stderr, `--nats-url "http://nats:4222" is not a NATS URL`) {
		t.Errorf("exit %d, stderr %q; want a refusal naming both URLs", code, stderr)
	}
	if _, err := os.Stat(db); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the database was opened before the settings were checked: %v", err)
	}
}
