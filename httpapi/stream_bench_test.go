package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// BenchmarkStreamFanout sends one event at a time to many SSE subscribers on loopback, each a
// real HTTP stream of GET /v1/events/stream, as `hitl bench` does. Per event it reports:
// fanout-us, from the creating call's return (the commit) to the event's arrival at the last
// subscriber; us/sub, that divided by the subscribers (compare 1 with 1000 for the cost each
// subscriber adds); p99-ms, the arrivals' latency from the start of the creating call; and
// cpu-us/sub, the process's CPU time (server and subscribers alike, the latter's share the same
// before and after a change to the server) per event and subscriber, which a machine shared
// with other work does not skew as it does the times. The subscribers read the stream's lines
// as they come; with reader=sdk they are the Go SDK's Events, decoding each event, as in
// `hitl bench`, where they share the machine's cores with the server.
func BenchmarkStreamFanout(b *testing.B) {
	for _, n := range []int{1, 1000} {
		b.Run("subscribers="+strconv.Itoa(n), func(b *testing.B) { benchFanout(b, n, false) })
	}
	b.Run("subscribers=1000/reader=sdk", func(b *testing.B) { benchFanout(b, 1000, true) })
}

func benchFanout(b *testing.B, subscribers int, sdk bool) {
	h, e := newHandler(b)
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	arrivals := make(chan time.Time, subscribers)
	tr := &http.Transport{MaxIdleConnsPerHost: subscribers}
	defer tr.CloseIdleConnections()
	sdkClient := client.New(srv.URL, token, &http.Client{Transport: tr})
	for range subscribers {
		if sdk {
			events, err := sdkClient.Events(ctx, client.StreamOptions{FromNow: true, Types: []string{hitl.EventInquiryCreated}})
			if err != nil {
				b.Fatal(err)
			}
			go func() {
				for range events {
					arrivals <- time.Now()
				}
			}()
			continue
		}
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v1/events/stream?after=now&type=inquiry.created", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := tr.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			b.Fatalf("stream: %s", res.Status)
		}
		go func() {
			defer res.Body.Close()
			r := bufio.NewReader(res.Body)
			for {
				line, err := r.ReadSlice('\n')
				if err != nil {
					return
				}
				if bytes.HasPrefix(line, []byte("id: ")) {
					arrivals <- time.Now()
				}
			}
		}()
	}
	testserver.Eventually(b, 30*time.Second, "every stream open", func() bool { return e.Streams() == subscribers })
	admin := &hitl.Principal{Name: "admin", Roles: []string{hitl.RoleAdmin}}
	var fanout time.Duration
	lat := make([]time.Duration, 0, b.N*subscribers)
	cpu0 := cpuTime()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, _, err := e.CreateInquiry(ctx, admin, &hitl.InquiryRequest{Prompt: "fan out"}, ""); err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		var last time.Time
		for range subscribers {
			select {
			case last = <-arrivals:
				lat = append(lat, last.Sub(start))
			case <-time.After(30 * time.Second):
				b.Fatal("not every subscriber received the event within 30 s")
			}
		}
		fanout += last.Sub(committed)
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	slices.Sort(lat)
	b.ReportMetric(float64(fanout.Microseconds())/float64(b.N), "fanout-us")
	b.ReportMetric(float64(fanout.Microseconds())/float64(b.N)/float64(subscribers), "us/sub")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/float64(subscribers), "cpu-us/sub")
}

// cpuTime is the CPU time the process has used, in user and kernel mode.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
