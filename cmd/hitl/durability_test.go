package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// serverProcess runs `hitl serve` as a child process (this test binary standing in for hitl).
func serverProcess(t *testing.T, addr, db string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "serve", "--addr", addr, "--db", db, "--log-level", "warn")
	cmd.Env = append(os.Environ(), "HITL_TEST_RUN_MAIN=1", "HITL_ADMIN_TOKEN="+adminToken,
		"HITL_CREDENTIALS="+filepath.Join(filepath.Dir(db), "credentials.json"))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := client.New("http://"+addr, adminToken, nil)
	for range 500 {
		if c.Ready(context.Background()) == nil {
			return cmd
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Kill()
	t.Fatal("server process did not become ready")
	return nil
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestSIGKILLLosesNothingAcknowledged kills the server while clients stream answers, restarts it
// on the same database, and checks every acknowledged answer, every row and the event log.
func TestSIGKILLLosesNothingAcknowledged(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "hitl.db")
	addr := freeAddr(t)
	proc := serverProcess(t, addr, db)
	defer func() { proc.Process.Kill(); proc.Wait() }()
	url := "http://" + addr
	admin := client.New(url, adminToken, nil)
	agentKey, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "bot", Roles: []string{"agent"}})
	if err != nil {
		t.Fatal(err)
	}
	humanKey, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "pat", Roles: []string{"responder"}})
	if err != nil {
		t.Fatal(err)
	}
	agent, human := client.New(url, agentKey.Token, nil), client.New(url, humanKey.Token, nil)

	const total, withDeadline = 400, 40
	var ids []int64
	for i := range total {
		req := &hitl.InquiryRequest{Prompt: fmt.Sprintf("question %d", i), Session: fmt.Sprintf("run-%d", i%10)}
		if i < withDeadline {
			req.TimeoutSeconds = new(int64)
			*req.TimeoutSeconds = 2
		}
		inq, _, err := agent.CreateInquiry(ctx, req, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, inq.ID)
	}

	// Stream answers from 8 clients; kill the server in the middle of it.
	var (
		mu    sync.Mutex
		acked = map[int64]string{}
		wg    sync.WaitGroup
	)
	next := make(chan int64, len(ids))
	for _, id := range ids[withDeadline:] {
		next <- id
	}
	close(next)
	killed := make(chan struct{})
	for range 8 {
		wg.Go(func() {
			for id := range next {
				answer := fmt.Sprintf(`"answer to %d"`, id)
				if _, err := human.Respond(ctx, id, json.RawMessage(answer), ""); err == nil {
					mu.Lock()
					acked[id] = answer
					n := len(acked)
					mu.Unlock()
					if n == 150 {
						proc.Process.Signal(syscall.SIGKILL)
						close(killed)
					}
				}
			}
		})
	}
	wg.Wait()
	<-killed
	proc.Wait()
	if len(acked) < 150 {
		t.Fatalf("only %d answers acknowledged before the kill", len(acked))
	}
	time.Sleep(2 * time.Second) // the short deadlines pass while the server is down

	proc = serverProcess(t, addr, db)
	// Overdue deadlines time out right after the start.
	for _, id := range ids[:withDeadline] {
		inq, err := agent.Wait(ctx, id, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if inq.Status != hitl.StatusTimeout {
			t.Fatalf("overdue inquiry %d is %s after the restart", id, inq.Status)
		}
	}
	// Every acknowledged answer is there, as sent.
	final := map[int64]*hitl.Inquiry{}
	for _, id := range ids {
		inq, err := admin.Inquiry(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		final[id] = inq
		if want, ok := acked[id]; ok && (inq.Status != hitl.StatusResponded || string(inq.Response) != want) {
			t.Fatalf("acknowledged answer to %d lost: %s %s", id, inq.Status, inq.Response)
		}
	}
	// The event log has no gap, and agrees with every row: one created event each, and one
	// final event exactly for the inquiries that are final.
	created, finals := map[int64]int{}, map[int64]string{}
	var last int64
	for {
		page, err := admin.EventPage(ctx, client.EventOptions{After: last, Limit: 500})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range page.Data {
			if ev.Seq != last+1 {
				t.Fatalf("event log gap: %d after %d", ev.Seq, last)
			}
			last = ev.Seq
			if ev.InquiryID == nil {
				continue
			}
			switch ev.Type {
			case hitl.EventInquiryCreated:
				created[*ev.InquiryID]++
			default:
				if prev, dup := finals[*ev.InquiryID]; dup {
					t.Fatalf("inquiry %d has two final events: %s and %s", *ev.InquiryID, prev, ev.Type)
				}
				finals[*ev.InquiryID] = ev.Type
			}
		}
		if len(page.Data) < 500 {
			break
		}
	}
	for _, id := range ids {
		inq := final[id]
		if created[id] != 1 {
			t.Fatalf("inquiry %d has %d created events", id, created[id])
		}
		if typ, ok := finals[id]; ok != inq.Status.Final() || (ok && typ != "inquiry."+string(inq.Status)) {
			t.Fatalf("inquiry %d is %s but its final event is %q", id, inq.Status, typ)
		}
	}
	// The restarted server goes on working: the pending ones can still be answered.
	for _, id := range ids {
		if final[id].Status == hitl.StatusPending {
			if _, err := human.Respond(ctx, id, json.RawMessage(`"after restart"`), ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	proc.Process.Signal(syscall.SIGTERM)
	if err := proc.Wait(); err != nil {
		t.Fatalf("graceful stop: %v", err)
	}
}
