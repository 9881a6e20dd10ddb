package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/ratelimit"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// rateGet sends one authenticated GET and returns its status, Retry-After and body.
func rateGet(t *testing.T, url, token string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("GET %s: %v", url, err)
		return 0, "", ""
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Retry-After"), string(body)
}

func rateLimited(l ratelimit.Options) testserver.Option {
	return testserver.Configure(func(cfg *server.Config) { cfg.RateLimit = l })
}

// Many concurrent clients of one key get no more than the bucket allows; the others get 429
// with a Retry-After after which a request goes through.
func TestRateLimitUnderConcurrentClients(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, rateLimited(ratelimit.Options{Default: ratelimit.Limit{Count: 20, Per: time.Second, Burst: 10}}))
	_, token := s.Key(hitl.KeyRequest{Name: "bot", Roles: []string{hitl.RoleAgent}})

	var mu sync.Mutex
	ok, limited, retryAfter, message := 0, 0, "", ""
	start := time.Now()
	deadline := start.Add(time.Second)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				status, ra, body := rateGet(t, s.URL+"/v1/me", token)
				mu.Lock()
				switch status {
				case http.StatusOK:
					ok++
				case http.StatusTooManyRequests:
					limited++
					retryAfter, message = ra, body
				default:
					t.Errorf("status %d: %s", status, body)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if most := 10 + int(20*elapsed.Seconds()) + 2; ok > most || ok < 10 {
		t.Fatalf("%d requests went through in %s; at most %d may (burst 10 + 20/s), at least the burst", ok, elapsed, most)
	}
	if limited == 0 {
		t.Fatal("no request was refused")
	}
	var problem struct{ Code, Detail string }
	_ = json.Unmarshal([]byte(message), &problem)
	want := "too many requests from key bot: at most 20 per second, 10 at once; try again in 1 s"
	if problem.Code != hitl.ERateLimited || !strings.Contains(message, want) {
		t.Fatalf("refusal: %s; want code %s and %q", message, hitl.ERateLimited, want)
	}
	secs, err := strconv.Atoi(retryAfter)
	if err != nil || secs < 1 {
		t.Fatalf("Retry-After %q: want whole seconds, at least 1", retryAfter)
	}
	// Spend what the bucket has, then come back when told to.
	for {
		status, ra, _ := rateGet(t, s.URL+"/v1/me", token)
		if status == http.StatusTooManyRequests {
			secs, _ = strconv.Atoi(ra)
			break
		}
	}
	<-time.After(time.Duration(secs) * time.Second)
	if status, _, body := rateGet(t, s.URL+"/v1/me", token); status != http.StatusOK {
		t.Fatalf("after Retry-After: %d %s", status, body)
	}
	metric := fmt.Sprintf(`hitl_rate_limited_total{role="default"} %d`, limited+1)
	if _, _, m := rateGet(t, s.URL+"/metrics", ""); !strings.Contains(m, metric) {
		t.Fatalf("metrics lack %s", metric)
	}
}

// A role's limit overrides the default for keys holding it, and the metric names that role.
func TestRateLimitPerRole(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, rateLimited(ratelimit.Options{
		Default: ratelimit.Limit{Count: 1, Per: time.Minute, Burst: 1},
		Roles:   map[string]ratelimit.Limit{hitl.RoleAgent: {Count: 2, Per: time.Minute, Burst: 5}, hitl.RoleAdmin: {}}, // the admin: no limit
	}))
	_, agent := s.Key(hitl.KeyRequest{Name: "bot", Roles: []string{hitl.RoleAgent}})
	_, responder := s.Key(hitl.KeyRequest{Name: "ann", Roles: []string{hitl.RoleResponder}})
	for i := range 5 {
		if status, _, body := rateGet(t, s.URL+"/v1/me", agent); status != http.StatusOK {
			t.Fatalf("agent request %d: %d %s", i+1, status, body)
		}
	}
	if status, ra, body := rateGet(t, s.URL+"/v1/me", agent); status != http.StatusTooManyRequests || ra != "30" {
		t.Fatalf("agent request 6: %d, Retry-After %q (want 30): %s", status, ra, body)
	}
	if status, _, body := rateGet(t, s.URL+"/v1/me", responder); status != http.StatusOK {
		t.Fatalf("responder request 1: %d %s", status, body)
	}
	if status, ra, body := rateGet(t, s.URL+"/v1/me", responder); status != http.StatusTooManyRequests || ra != "60" {
		t.Fatalf("responder request 2: %d, Retry-After %q (want 60): %s", status, ra, body)
	}
	_, _, m := rateGet(t, s.URL+"/metrics", "")
	for _, want := range []string{`hitl_rate_limited_total{role="agent"} 1`, `hitl_rate_limited_total{role="default"} 1`} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// A long poll is one request, however long it waits.
func TestRateLimitCountsALongPollOnce(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, rateLimited(ratelimit.Options{Default: ratelimit.Limit{Count: 1, Per: time.Minute, Burst: 2}}))
	agent, token := s.Key(hitl.KeyRequest{Name: "bot", Roles: []string{hitl.RoleAgent}})
	alice, _ := s.Key(hitl.KeyRequest{Name: "alice", Roles: []string{hitl.RoleResponder}})
	ctx := context.Background()
	inq, _, err := agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval, AssignedTo: []string{"alice"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		status, _, _ := rateGet(t, fmt.Sprintf("%s/v1/inquiries/%d/wait?timeout=20s", s.URL, inq.ID), token)
		done <- status
	}()
	testserver.Eventually(t, 5*time.Second, "the agent waiting", func() bool { return s.Engine().Waiting() > 0 })
	if _, err := alice.Respond(ctx, inq.ID, json.RawMessage(`{"approved":true}`), ""); err != nil {
		t.Fatal(err)
	}
	if status := testserver.Receive(t, done, 5*time.Second, "the wait's answer"); status != http.StatusOK {
		t.Fatalf("wait: %d", status)
	}
	if status, _, body := rateGet(t, s.URL+"/v1/me", token); status != http.StatusTooManyRequests {
		t.Fatalf("third request: %d %s; want 429 (the create and the wait took the burst of 2)", status, body)
	}
}

// An event stream is one request, however many events it carries.
func TestRateLimitCountsAStreamOnce(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, rateLimited(ratelimit.Options{Default: ratelimit.Limit{Count: 1, Per: time.Minute, Burst: 4}}))
	agent, token := s.Key(hitl.KeyRequest{Name: "bot", Roles: []string{hitl.RoleAgent}})
	req, _ := http.NewRequest("GET", s.URL+"/v1/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("stream: %v %v", res, err)
	}
	defer res.Body.Close()
	lines := bufio.NewScanner(res.Body)
	for i := range 2 {
		if _, _, err := agent.CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: fmt.Sprintf("Ship %d?", i), RequestType: hitl.RequestApproval}, client.CreateOptions{}); err != nil {
			t.Fatalf("request %d after the stream: %v", i+2, err)
		}
	}
	for events := 0; events < 2 && lines.Scan(); {
		if strings.HasPrefix(lines.Text(), "data:") {
			events++
		}
	}
	if lines.Err() != nil {
		t.Fatal(lines.Err())
	}
	if status, _, body := rateGet(t, s.URL+"/v1/me", token); status != http.StatusOK {
		t.Fatalf("fourth request, after the stream's events: %d %s; want 200 (the events took nothing)", status, body)
	}
	if status, _, body := rateGet(t, s.URL+"/v1/me", token); status != http.StatusTooManyRequests {
		t.Fatalf("fifth request: %d %s; want 429 (the stream, two creates and one read took the burst of 4)", status, body)
	}
}
