package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
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
		e.Stop(context.Background())
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

// decodeNumbers reads a JSON value keeping numbers as written.
func decodeNumbers(t *testing.T, s string) any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%.200q: %v", s, err)
	}
	return v
}

// nested wraps inner in depth levels of arrays or objects, picked by the bits of shape.
func nested(depth int, inner string, shape uint8) string {
	var open strings.Builder
	closers := make([]byte, depth)
	for i := range depth {
		if (shape>>(i%8))&1 == 0 {
			open.WriteString(`[`)
			closers[depth-1-i] = ']'
		} else {
			open.WriteString(`{"k":`)
			closers[depth-1-i] = '}'
		}
	}
	return open.String() + inner + string(closers)
}

// hostileCreates are the places of a create body that take JSON: %s is the hostile value.
var hostileCreates = []string{
	`{"prompt":"x","context":%s}`,
	`{"prompt":"x","response_schema":{"type":"array","items":{"maximum":%s}}}`,
	`{"prompt":"x","response_schema":{"multipleOf":%s}}`,
	`{"prompt":"x","response_schema":{"not":{"enum":[%s]}}}`,
	`{"prompt":"x","response_schema":true,"timeout_seconds":60,"fallback_policy":"complete_with_fallback","fallback_value":%s}`,
	`{"prompt":"x","tool_call":{"id":"c","name":"n","arguments":%s}}`,
	`{"prompt":"x","confidence":%s}`,
}

// FuzzCreateDeepAndHuge mixes deep nesting and extreme numbers into every JSON-valued member of
// a create: the answer is a success or a client error, never a 500, and whatever is stored
// leaves the lists and searches working.
func FuzzCreateDeepAndHuge(f *testing.F) {
	for _, seed := range []struct {
		depth  uint16
		number string
		shape  uint8
	}{
		{1000, "1", 0}, {1000, "1", 0xff}, {65, "0", 0x55}, {64, "1e400", 0}, {2, "1e999999", 0},
		{0, "1e10000000", 0}, {3, "-1e-10000000", 1}, {0, strings.Repeat("9", 101), 0}, {32, "0.5e-0", 2},
		{4000, "1e999999", 0xaa}, {0, "1E+0000000000000000000001", 0}, {1, "NaN", 0},
	} {
		f.Add(seed.depth, seed.number, seed.shape)
	}
	h, _ := newHandler(f)
	f.Fuzz(func(t *testing.T, depth uint16, number string, shape uint8) {
		value := nested(int(depth%5000), number, shape)
		for _, tmpl := range hostileCreates {
			body := strings.Replace(tmpl, "%s", value, 1)
			rec := send(h, "POST", "/v1/inquiries", body)
			if rec.Code >= 500 || rec.Code < 200 {
				t.Fatalf("status %d for %.200q: %s", rec.Code, body, rec.Body)
			}
			if rec.Code == 201 {
				for _, path := range []string{"/v1/inquiries?q=x", "/v1/inquiries?limit=1"} {
					if rec := send(h, "GET", path, ""); rec.Code != 200 {
						t.Fatalf("GET %s after storing %.200q: %d %s", path, body, rec.Code, rec.Body)
					}
				}
			}
		}
	})
}

// FuzzRespondDeepAndHuge answers inquiries of several schemas with deeply nested values and
// extreme numbers: a 200, 400 or 422, never a 500, and an accepted answer is stored as sent.
func FuzzRespondDeepAndHuge(f *testing.F) {
	for _, seed := range []struct {
		depth  uint16
		number string
		shape  uint8
	}{
		{0, "1e999999", 0}, {0, "1e10000000", 0}, {300, "1e999999", 0}, {64, "5", 0}, {65, "5", 0xff},
		{1000, "1e400", 0x0f}, {1, strings.Repeat("1", 101), 0}, {0, "null", 0}, {2, `{"k":1,"k":"s"}`, 0},
		{10, "0.0000001e-400", 3}, {0, "-0", 0},
	} {
		f.Add(seed.depth, seed.number, seed.shape)
	}
	h, e := newHandler(f)
	admin, err := e.Authenticate(context.Background(), token)
	if err != nil {
		f.Fatal(err)
	}
	schemas := []string{
		`true`,
		`{"maximum":5}`,
		`{"multipleOf":0.5}`,
		`{"type":"array","items":{"type":"number","maximum":5}}`,
		`{"$defs":{"t":{"anyOf":[{"type":"number","minimum":-1e300},{"type":"array","items":{"$ref":"#/$defs/t"}},{"type":"object","additionalProperties":{"$ref":"#/$defs/t"}}]}},"$ref":"#/$defs/t"}`,
		`{"type":["null","object"],"properties":{"k":{"format":"email"}}}`,
	}
	f.Fuzz(func(t *testing.T, depth uint16, number string, shape uint8) {
		answer := nested(int(depth%5000), number, shape)
		for _, s := range schemas {
			inq, _, err := e.CreateInquiry(context.Background(), admin, &hitl.InquiryRequest{Prompt: "x", ResponseSchema: json.RawMessage(s)}, "")
			if err != nil {
				t.Fatal(err)
			}
			path := "/v1/inquiries/" + itoa(inq.ID)
			rec := send(h, "POST", path+"/respond", `{"response":`+answer+`}`)
			if rec.Code >= 500 || rec.Code < 200 {
				t.Fatalf("status %d for %.200q against %s: %s", rec.Code, answer, s, rec.Body)
			}
			if rec.Code != 200 {
				continue
			}
			var stored struct{ Response json.RawMessage }
			if err := json.Unmarshal(send(h, "GET", path, "").Body.Bytes(), &stored); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(decodeNumbers(t, answer), decodeNumbers(t, string(stored.Response))) {
				t.Fatalf("sent %.200q, stored %.200q", answer, stored.Response)
			}
		}
	})
}
