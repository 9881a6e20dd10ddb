package httpapi_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/httpapi"
	"github.com/hitl-dev/hitl/store/sqlite"
)

const token = "fuzz-admin-token-0123456789"

// newHandler is the real API on a real SQLite store.
func newHandler(t testing.TB) (http.Handler, *engine.Engine) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(st, engine.Options{})
	if _, err := e.Bootstrap(context.Background(), token); err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Stop()
		st.Close()
	})
	return httpapi.New(e, nil, nil, httpapi.Config{MaxBodyBytes: 64 << 10}), e
}

func send(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// FuzzCreateInquiry: whatever the body, the answer is a success or a client error, never a
// panic or a 500.
func FuzzCreateInquiry(f *testing.F) {
	for _, seed := range []string{
		`{"prompt":"Deploy?","request_type":"approval"}`,
		`{"prompt":"Which?","options":["a",{"value":"b","label":"B"}],"multiple":true}`,
		`{"prompt":"x","response_schema":{"type":"object","properties":{"n":{"type":"integer"}}},"timeout_seconds":60,"fallback_policy":"complete_with_fallback","fallback_value":{"n":1}}`,
		`{"prompt":"x","response_schema":{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}}`,
		`{"prompt":"x","session":"run-1","exclusive":true,"tool_call":{"id":"c","name":"ask"}}`,
		`{"prompt":"x","timeout_at":"2030-01-01T00:00:00Z","assigned_to":["a","group:b"],"metadata":{"k":"v"}}`,
		`{"prompt":1e400}`, `{"prompt":"\ud800"}`, `[`, `null`, ``,
	} {
		f.Add(seed)
	}
	h, _ := newHandler(f)
	f.Fuzz(func(t *testing.T, body string) {
		rec := send(h, "POST", "/v1/inquiries", body)
		if rec.Code >= 500 || rec.Code < 200 {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
	})
}

// FuzzRespond: any answer to inquiries with several kinds of schema is accepted or refused
// with a 4xx, never a panic or a 500.
func FuzzRespond(f *testing.F) {
	for _, seed := range []string{
		`{"response":{"approved":true}}`, `{"response":"garden"}`, `{"response":["mon","tue"]}`,
		`{"response":{"n":1.5,"s":null}}`, `{"response":1e999}`, `{"response":null}`, `{"response":"x","comment":7}`, `{`,
	} {
		f.Add(seed)
	}
	h, e := newHandler(f)
	admin, err := e.Authenticate(context.Background(), token)
	if err != nil {
		f.Fatal(err)
	}
	requests := []hitl.InquiryRequest{
		{Prompt: "approve", RequestType: hitl.RequestApproval},
		{Prompt: "pick", Options: []hitl.Option{{Value: "hall"}, {Value: "garden"}}},
		{Prompt: "days", Options: []hitl.Option{{Value: "mon"}, {Value: "tue"}}, Multiple: true},
		{Prompt: "form", ResponseSchema: []byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1},"s":{"type":"string","pattern":"^a+$"}},"required":["n"]}`)},
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, req := range requests {
			inq, _, err := e.CreateInquiry(context.Background(), admin, &req, "")
			if err != nil {
				t.Fatal(err)
			}
			rec := send(h, "POST", "/v1/inquiries/"+itoa(inq.ID)+"/respond", body)
			if rec.Code >= 500 || rec.Code < 200 {
				t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
			}
		}
	})
}

func itoa(n int64) string {
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// TestStreamHeartbeat: an idle stream gets comment lines, which clients ignore.
func TestStreamHeartbeat(t *testing.T) {
	_, e := newHandler(t)
	srv := httptest.NewServer(httpapi.New(e, nil, nil, httpapi.Config{Heartbeat: 20 * time.Millisecond}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v1/events/stream?after=now", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	lines := bufio.NewScanner(resp.Body)
	pings := 0
	for pings < 2 && lines.Scan() {
		if lines.Text() == ": ping" {
			pings++
		}
	}
	if pings < 2 {
		t.Fatalf("saw %d heartbeats: %v", pings, lines.Err())
	}
}
