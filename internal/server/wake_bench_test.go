package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// BenchmarkWakeParked measures what one wake costs with many long polls parked: 10,000
// agents wait on their own inquiries over loopback HTTP, and b.N of them (at most all) are
// answered one after another. It reports, per wake, the time from the answer's response to
// the waiter's return (after_respond) and from sending the answer (after_send). The waiters
// run in a second process (TestWakeParkedWaiters) so that neither side runs out of file
// descriptors, as they would in one process under a limit of 20,000.
//
// HITL_WAKE_CPUPROFILE=cpu.out profiles the wakes alone.
//
//	go test -run '^$' -bench WakeParked -benchtime 5000x ./internal/server/
func BenchmarkWakeParked(b *testing.B) {
	const parked = 10000
	s := testserver.Start(b)
	key := func(name, role string) (*client.Client, string) {
		return s.Key(hitl.KeyRequest{Name: name, Roles: []string{role}})
	}
	agent, agentToken := key("agent", hitl.RoleAgent)
	human, _ := key("human", hitl.RoleResponder)
	ctx := context.Background()

	ids := make([]int64, parked)
	sem := make(chan struct{}, 32)
	var wg sync.WaitGroup
	for i := range ids {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			inq, _, err := agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Go?"}, client.CreateOptions{})
			if err != nil {
				b.Error(err)
				return
			}
			ids[i] = inq.ID
		})
	}
	wg.Wait()
	if b.Failed() {
		return
	}
	idList := make([]string, parked)
	for i, id := range ids {
		idList[i] = strconv.FormatInt(id, 10)
	}
	idFile := b.TempDir() + "/ids"
	if err := os.WriteFile(idFile, []byte(strings.Join(idList, "\n")), 0o600); err != nil {
		b.Fatal(err)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestWakeParkedWaiters$")
	cmd.Env = append(os.Environ(), "HITL_WAKE_URL="+s.URL, "HITL_WAKE_TOKEN="+agentToken, "HITL_WAKE_IDS="+idFile)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	returned := make(map[int64]chan time.Time, parked)
	for _, id := range ids {
		returned[id] = make(chan time.Time, 1)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var id, at int64
			if _, err := fmt.Sscanf(sc.Text(), "returned %d %d", &id, &at); err == nil && returned[id] != nil {
				returned[id] <- time.Unix(0, at)
			}
		}
	}()
	if !testserver.WaitFor(2*time.Minute, func() bool { return s.Engine().Waiting() >= parked }) {
		b.Fatalf("only %d of %d waiters parked", s.Engine().Waiting(), parked)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.Logf("parked: %d bytes of stack per waiter", (after.StackInuse-before.StackInuse)/parked)
	n := min(b.N, parked)
	afterRespond := make([]time.Duration, n)
	afterSend := make([]time.Duration, n)
	if f := os.Getenv("HITL_WAKE_CPUPROFILE"); f != "" { // the wakes alone, without the set-up
		out, err := os.Create(f)
		if err != nil {
			b.Fatal(err)
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			b.Fatal(err)
		}
	}
	respond := make([]time.Duration, n)
	bucketsBefore := wakeBuckets(b, s.URL)
	b.ResetTimer()
	for i := range n {
		sent := time.Now()
		if _, err := human.Respond(ctx, ids[i], json.RawMessage(`"go"`), ""); err != nil {
			b.Fatal(err)
		}
		answered := time.Now()
		respond[i] = answered.Sub(sent)
		var back time.Time
		select {
		case back = <-returned[ids[i]]:
		case <-time.After(10 * time.Second):
			b.Fatalf("the waiter of %d did not return within 10 s of the answer", ids[i])
		}
		afterRespond[i] = max(back.Sub(answered), 0)
		afterSend[i] = back.Sub(sent)
	}
	b.StopTimer()
	pprof.StopCPUProfile()
	// The server's own measure, from the commit to the waiter's goroutine (before it writes
	// its response): the upper bound of the histogram bucket the quantile falls in.
	bucketsAfter := wakeBuckets(b, s.URL)
	bucketQuantile := func(q float64) float64 {
		total := bucketsAfter[len(bucketsAfter)-1].n - bucketsBefore[len(bucketsBefore)-1].n
		for i, bk := range bucketsAfter {
			if float64(bk.n-bucketsBefore[i].n) >= q*float64(total) {
				return bk.le * 1000
			}
		}
		return 0
	}
	b.ReportMetric(bucketQuantile(0.5), "server_wake_p50_le_ms")
	b.ReportMetric(bucketQuantile(0.99), "server_wake_p99_le_ms")
	pct := func(d []time.Duration, p float64) float64 {
		slices.Sort(d)
		return float64(d[int(p*float64(len(d)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(afterRespond, 0.5), "p50_after_respond_ms")
	b.ReportMetric(pct(afterRespond, 0.99), "p99_after_respond_ms")
	b.ReportMetric(pct(afterSend, 0.5), "p50_after_send_ms")
	b.ReportMetric(pct(afterSend, 0.99), "p99_after_send_ms")
	b.ReportMetric(pct(respond, 0.5), "p50_respond_ms")
	b.ReportMetric(pct(respond, 0.99), "p99_respond_ms")
	b.ReportMetric(float64(after.StackInuse-before.StackInuse)/parked, "stack_bytes_per_waiter")
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/parked, "heap_bytes_per_waiter")
}

// TestWakeParkedWaiters is the waiting side of BenchmarkWakeParked, run by it in a process
// of its own: one long poll per id, each printing when it returned answered.
func TestWakeParkedWaiters(t *testing.T) {
	url := os.Getenv("HITL_WAKE_URL")
	if url == "" {
		t.Skip("run by BenchmarkWakeParked")
	}
	raw, err := os.ReadFile(os.Getenv("HITL_WAKE_IDS"))
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 20000, IdleConnTimeout: time.Minute}}
	agent := client.New(url, os.Getenv("HITL_WAKE_TOKEN"), hc)
	var mu sync.Mutex
	w := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for f := range strings.FieldsSeq(string(raw)) {
		id, _ := strconv.ParseInt(f, 10, 64)
		wg.Go(func() {
			inq, err := agent.Wait(context.Background(), id, 5*time.Minute)
			at := time.Now()
			if err != nil || inq.Status != hitl.StatusResponded {
				return // the benchmark says which waiter did not return
			}
			mu.Lock()
			fmt.Fprintf(w, "returned %d %d\n", id, at.UnixNano())
			w.Flush()
			mu.Unlock()
		})
	}
	wg.Wait()
}

type bucket struct {
	le float64 // seconds
	n  int64   // observations at most le
}

// wakeBuckets reads the server's histogram hitl_wake_latency_seconds from /metrics.
func wakeBuckets(b *testing.B, url string) []bucket {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var out []bucket
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var bk bucket
		rest, ok := strings.CutPrefix(sc.Text(), `hitl_wake_latency_seconds_bucket{le="`)
		le, count, cut := strings.Cut(rest, `"} `)
		if !ok || !cut {
			continue
		}
		if le == "+Inf" {
			bk.le = math.Inf(1)
		} else if bk.le, err = strconv.ParseFloat(le, 64); err != nil {
			b.Fatal(err)
		}
		if bk.n, err = strconv.ParseInt(count, 10, 64); err != nil {
			b.Fatal(err)
		}
		out = append(out, bk)
	}
	if len(out) == 0 {
		b.Fatal("no hitl_wake_latency_seconds in /metrics")
	}
	return out
}
