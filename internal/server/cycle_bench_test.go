package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// BenchmarkCycle is one create+respond cycle of `hitl bench`'s throughput run — an agent asks
// for an approval, a responder answers it, both durable — through the server's real handler,
// engine and SQLite store, without the socket and the client: its allocations and CPU per
// cycle are the server's alone, whatever else loads the machine. 64 cycles run at once, as the
// bench's 64 clients do, so the writer commits batches of about the same size.
//
// It reports cpu_us/cycle, the process's user and system CPU (the writer's and SQLite's
// included) per cycle.
//
//	go test -run '^$' -bench Cycle -benchmem -benchtime 20000x ./internal/server/
func BenchmarkCycle(b *testing.B) {
	s := testserver.Start(b)
	_, agentToken := s.Key(hitl.KeyRequest{Name: "bench-agent", Roles: []string{hitl.RoleAgent}})
	_, humanToken := s.Key(hitl.KeyRequest{Name: "bench-human", Roles: []string{hitl.RoleResponder}})
	h := s.Server().Handler()
	create := []byte(`{"prompt":"Approve?","request_type":"approval"}`)
	respond := []byte(`{"response":{"approved":true}}`)
	post := func(path, token string, body []byte, want int) []byte {
		req, err := http.NewRequest(http.MethodPost, s.URL+path, bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		w := &cycleRecorder{header: http.Header{}}
		h.ServeHTTP(w, req)
		if w.status != want {
			b.Fatalf("POST %s: %d %s", path, w.status, w.body.Bytes())
		}
		return w.body.Bytes()
	}
	cycle := func() {
		var inq struct{ ID int64 }
		if err := json.Unmarshal(post("/v1/inquiries", agentToken, create, http.StatusCreated), &inq); err != nil {
			b.Fatal(err)
		}
		post("/v1/inquiries/"+strconv.FormatInt(inq.ID, 10)+"/respond", humanToken, respond, http.StatusOK)
	}
	for range 200 { // the caches warm, the database has its first pages
		cycle()
	}
	cpuBefore := processCPU(b)
	b.ReportAllocs()
	b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0))) // RunParallel runs this many per P
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			cycle()
		}
	})
	b.StopTimer()
	b.ReportMetric(float64((processCPU(b)-cpuBefore).Microseconds())/float64(b.N), "cpu_us/cycle")
}

// cycleRecorder is the least of a ResponseWriter: httptest's copies its headers on WriteHeader,
// which the server's own connection does not.
type cycleRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *cycleRecorder) Header() http.Header { return r.header }
func (r *cycleRecorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}
func (r *cycleRecorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
