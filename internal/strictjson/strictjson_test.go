package strictjson_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/strictjson"
)

// TestStrictDecodingReadsWhatEncodingJSONReads: on the bodies clients send, the strict decoder
// fills the domain types exactly as encoding/json does (times and their offsets, raw JSON and
// its null, optional pointers, options as strings or objects).
func TestStrictDecodingReadsWhatEncodingJSONReads(t *testing.T) {
	for _, tc := range []struct {
		body string
		new  func() any
	}{
		{`{"prompt":"Deploy?","request_type":"approval","response_schema":{"type":"object","properties":{"a":{"minimum":1.50}}},
		  "options":null,"context":{"pr":42,"files":["a","b"],"x":null},"metadata":{"team":"ops"},"session":"run-1","origin":"ci",
		  "assigned_to":["kim","group:ops"],"channel_hint":"slack","confidence":0.75,"timeout_at":"2030-01-02T03:04:05.123456789+02:00",
		  "fallback_policy":"complete_with_fallback","fallback_value":{"approved":false},"tool_call":{"id":"c1","name":"ask","arguments":{"q":1}},
		  "callback_url":"https://example.com/cb","exclusive":true}`, func() any { return new(hitl.InquiryRequest) }},
		{`{"prompt":"Which?","options":["a",{"value":"b","label":"B","description":"bee"}],"multiple":true,"timeout_seconds":60,"context":"text"}`,
			func() any { return new(hitl.InquiryRequest) }},
		{`{"prompt":"x","context":null,"fallback_value":null,"confidence":null,"timeout_at":null}`, func() any { return new(hitl.InquiryRequest) }},
		{`{"response":null,"comment":"none"}`, func() any { return new(hitl.ResponseRequest) }},
		{`{"response":{"approved":true,"n":1e400}}`, func() any { return new(hitl.ResponseRequest) }},
		{`{"comment":"no response"}`, func() any { return new(hitl.ResponseRequest) }},
		{`{"agent":"a","state":{"step":3},"callback_url":"https://example.com","metadata":{}}`, func() any { return new(hitl.SessionRequest) }},
		{`{"name":"bot","roles":["agent"],"groups":["ops"]}`, func() any { return new(hitl.KeyRequest) }},
		{`{"url":"https://example.com/h","events":["inquiry.created"],"description":"d"}`, func() any { return new(hitl.WebhookRequest) }},
		{`{"for":"kim","groups":["ops"],"ttl_seconds":3600}`, func() any { return new(hitl.AnswerLinkRequest) }},
		{`{"confidence":0.5,"risk":0,"reversibility":1}`, func() any { return new(engine.Signals) }},
	} {
		strict, std := tc.new(), tc.new()
		if err := strictjson.Unmarshal([]byte(tc.body), strict); err != nil {
			t.Fatalf("%.60s: %v", tc.body, err)
		}
		if err := json.Unmarshal([]byte(tc.body), std); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(strict, std) {
			t.Errorf("%.60s:\nstrict %+v\nstd    %+v", tc.body, strict, std)
		}
	}
}

// TestStrictDecodingErrors: what is refused, and that the messages read well.
func TestStrictDecodingErrors(t *testing.T) {
	for _, tc := range []struct{ body, message, path string }{
		{`{"prompt":"a","PROMPT":"b"}`, `unknown field "PROMPT"`, "/PROMPT"},
		{`{"Prompt":"a"}`, `unknown field "Prompt"`, "/Prompt"},
		{`{"prompt":"a","prompt":"b"}`, `/prompt: duplicate key "prompt"`, "/prompt"},
		{`{"prompt":"a","context":{"a":"str","a":1}}`, `/context/a: duplicate key "a"`, "/context/a"},
		{`{"prompt":"a","options":["x",{"value":"y","VALUE":"z"}]}`, `/options/1: unknown field "VALUE": an option has value, label and description`, "/options/1"},
		{`{"prompt":1}`, `/prompt: expected a string, got JSON number`, "/prompt"},
		{`{"prompt":"a","timeout_seconds":1.5}`, `/timeout_seconds: expected a whole number, got JSON number 1.5: invalid syntax`, "/timeout_seconds"},
		{`{"prompt":"a","confidence":1e999}`, `/confidence: expected a number, got JSON number 1e999: value out of range`, "/confidence"},
		{`{"prompt":"a","timeout_at":"tomorrow"}`, `/timeout_at: expected an RFC 3339 time with a date, T, a time and a zone, like 2026-12-22T09:00:00Z or 2026-12-22T09:00:00+01:00; got "tomorrow"`, "/timeout_at"},
		{`{"prompt":"a","timeout_at":"2026-13-01T00:00:00Z"}`, `/timeout_at: expected an RFC 3339 time with a date, T, a time and a zone, like 2026-12-22T09:00:00Z or 2026-12-22T09:00:00+01:00; got "2026-13-01T00:00:00Z": month out of range`, "/timeout_at"},
		{`{"prompt":"a","metadata":{"k":1}}`, `/metadata/k: expected a string, got JSON number`, "/metadata/k"},
		{`["prompt"]`, `the request body: expected an object, got JSON array`, ""},
		{`{"prompt":"a"} {"prompt":"b"}`, `the request body holds more than one JSON value`, ""},
		{`{"prompt":"a"`, `malformed JSON: the body ends too early`, ""},
		{"{\"prompt\":\"\xff\"}", `malformed JSON at byte 11: invalid UTF-8`, ""},
		{` `, `the request body is empty; send a JSON object`, ""},
	} {
		err := strictjson.Unmarshal([]byte(tc.body), new(hitl.InquiryRequest))
		he, ok := err.(*hitl.Error)
		if !ok || he.Code != hitl.EInvalid || !strings.HasPrefix(he.Message, tc.message) {
			t.Errorf("%s: %v, want %q", tc.body, err, tc.message)
			continue
		}
		if tc.path != "" && (len(he.Fields) != 1 || he.Fields[0].Path != tc.path) {
			t.Errorf("%s: fields %+v, want %s", tc.body, he.Fields, tc.path)
		}
	}
}
