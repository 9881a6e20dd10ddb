package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// serverProcess runs `hitl serve` as a child process (this test binary standing in for hitl),
// killed when the test ends if it still runs, and waits until it is ready.
func serverProcess(t *testing.T, addr, db string, flags ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--addr", addr, "--db", db, "--log-level", "warn"}, flags...)...)
	cmd.Env = append(os.Environ(), "HITL_TEST_RUN_MAIN=1", "HITL_ADMIN_TOKEN="+adminToken,
		"HITL_CREDENTIALS="+filepath.Join(filepath.Dir(db), "credentials.json"))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil { // not waited for by the test
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	c := client.New("http://"+addr, adminToken, nil)
	testserver.Eventually(t, 10*time.Second, "the server process to be ready", func() bool {
		return c.Ready(context.Background()) == nil
	})
	return cmd
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
	var lastDeadline time.Time
	for i := range total {
		req := &hitl.InquiryRequest{Prompt: fmt.Sprintf("question %d", i), Session: fmt.Sprintf("run-%d", i%10)}
		if i < withDeadline {
			// Outside any session: a deadline that passes with no answer fails its session,
			// which would end the session's other questions.
			req.TimeoutSeconds, req.Session = new(int64(2)), ""
		}
		inq, _, err := agent.CreateInquiry(ctx, req, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, inq.ID)
		if inq.TimeoutAt != nil && inq.TimeoutAt.After(lastDeadline) {
			lastDeadline = *inq.TimeoutAt
		}
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
	testserver.Eventually(t, 10*time.Second, "the short deadlines to pass while the server is down", func() bool {
		return time.Now().After(lastDeadline)
	})

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
			case hitl.EventInquiryResumed: // the agent's receipt of the final state, not a state
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

// TestDeliveriesSurviveSIGKILL kills the server between two attempts of a delivery, and again
// during an attempt: after each restart the delivery is sent again, with the same webhook-id,
// until the receiver takes it.
func TestDeliveriesSurviveSIGKILL(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, addr := filepath.Join(dir, "hitl.db"), freeAddr(t)
	flags := []string{"--webhook-allow-private", "--webhook-timeout", "1s", "--webhook-retry-base", "200ms", "--webhook-retry-max", "200ms"}
	proc := serverProcess(t, addr, db, flags...)

	var (
		mu     sync.Mutex
		answer = http.StatusInternalServerError // 0: never answer
		got    = map[string][]int{}             // webhook-id → the statuses it was answered with
		seen   = make(chan struct{}, 100)
		stop   = make(chan struct{})
	)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		status := answer
		got[r.Header.Get("webhook-id")] = append(got[r.Header.Get("webhook-id")], status)
		mu.Unlock()
		select {
		case seen <- struct{}{}:
		default:
		}
		if status == 0 {
			select {
			case <-r.Context().Done():
			case <-stop:
			}
			return
		}
		w.WriteHeader(status)
	}))
	defer rc.Close()
	defer close(stop)
	setAnswer := func(status int) {
		mu.Lock()
		answer = status
		mu.Unlock()
	}

	admin := client.New("http://"+addr, adminToken, nil)
	wh, err := admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: rc.URL, Events: []string{"inquiry.created"}})
	if err != nil {
		t.Fatal(err)
	}
	delivered := func(n int) {
		t.Helper()
		testserver.Eventually(t, 20*time.Second, fmt.Sprintf("%d deliveries delivered after the restart", n), func() bool {
			p, err := admin.Deliveries(ctx, client.DeliveryOptions{WebhookID: wh.ID, Status: "delivered"})
			return err == nil && len(p.Data) == n
		})
	}
	restart := func() {
		proc.Process.Signal(syscall.SIGKILL)
		proc.Wait()
		proc = serverProcess(t, addr, db, flags...)
		admin = client.New("http://"+addr, adminToken, nil)
	}

	// Between two attempts: the first one failed and is recorded.
	if _, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "one"}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	<-seen
	testserver.Eventually(t, 10*time.Second, "the failed attempt recorded", func() bool {
		p, err := admin.Deliveries(ctx, client.DeliveryOptions{WebhookID: wh.ID})
		return err == nil && len(p.Data) == 1 && p.Data[0].Attempts >= 1
	})
	restart()
	setAnswer(http.StatusOK)
	delivered(1)

	// During an attempt: the receiver holds the request when the server dies. The claim's
	// lease ends (attempt timeout + 5 s) and the restarted server sends it again.
	setAnswer(0)
	if _, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "two"}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for len(seen) > 0 {
		<-seen
	}
	<-seen
	restart()
	setAnswer(http.StatusOK)
	delivered(2)

	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 {
		t.Fatalf("%d webhook-ids, want 2 (one per event, kept across restarts): %v", len(got), got)
	}
	for id, statuses := range got {
		if len(statuses) < 2 || statuses[len(statuses)-1] != http.StatusOK {
			t.Fatalf("webhook-id %s was answered %v: want a failed or cut attempt, then a success", id, statuses)
		}
	}
}
