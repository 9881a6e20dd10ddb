package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl/internal/testserver"
)

// The tests of this file take a second in all and do not run in parallel: they are done
// before the parallel ones start, whose multi-node deadline checks are sensitive to load.

// stores runs a test on a server over each store: SQLite, and PostgreSQL when there is one.
func stores(t *testing.T, test func(t *testing.T, e *env)) {
	t.Run("sqlite", func(t *testing.T) { test(t, startServer(t)) })
	t.Run("postgres", func(t *testing.T) { test(t, startServer(t, testserver.Postgres())) })
}

// TestNullAnswers: null is an answer where the schema allows it, and a responded inquiry whose
// answer is null reads back as such; only a missing response is "required".
func TestNullAnswers(t *testing.T) {
	stores(t, func(t *testing.T, e *env) {
		agent := e.token("bot", "agent")
		human := e.token("kim", "responder")
		create := func(schema string) string {
			t.Helper()
			r := e.do("POST", "/v1/inquiries", agent, `{"prompt":"anything?","response_schema":`+schema+`,"tool_call":{"id":"c1","name":"ask"}}`)
			if r.status != http.StatusCreated {
				t.Fatalf("create with %s: %d %s", schema, r.status, r.text)
			}
			return fmt.Sprintf("/v1/inquiries/%v", r.body["id"])
		}
		for _, schema := range []string{`{"type":"null"}`, `{"const":null}`, `true`, `{}`, `{"enum":[null,1]}`, `{"type":["string","null"]}`} {
			path := create(schema)
			r := e.do("POST", path+"/respond", human, `{"response":null}`)
			if r.status != http.StatusOK || r.body["status"] != "responded" {
				t.Fatalf("null against %s: %d %s", schema, r.status, r.text)
			}
			// Stored and read back: responded, with a response that is JSON null.
			r = e.do("GET", path, human, ``)
			if r.status != http.StatusOK || r.body["status"] != "responded" || r.body["responded_by"] != "kim" {
				t.Fatalf("read back (%s): %s", schema, r.text)
			}
			if v, ok := r.body["response"]; !ok || v != nil || !strings.Contains(r.text, `"response":null`) {
				t.Fatalf("read back (%s): response is not null: %s", schema, r.text)
			}
			if tr, _ := r.body["tool_result"].(map[string]any); tr == nil || tr["content"] != "null" {
				t.Fatalf("tool result of a null answer: %s", r.text)
			}
			// The same answer again is a safe retry; another one is a conflict.
			if r := e.do("POST", path+"/respond", human, `{"response":null}`); r.status != http.StatusOK {
				t.Fatalf("retrying null: %d %s", r.status, r.text)
			}
			if r := e.do("POST", path+"/respond", human, `{"response":1}`); r.status != http.StatusConflict {
				t.Fatalf("another answer after null: %d %s", r.status, r.text)
			}
		}
		// Listed with the others, searched, and streamed back as null.
		if r := e.do("GET", "/v1/inquiries?status=responded&q=anything", human, ``); r.status != http.StatusOK || len(r.body["data"].([]any)) != 6 {
			t.Fatalf("list: %d %.300s", r.status, r.text)
		}
		for _, schema := range []string{`{"type":"string"}`, `{"const":0}`, `{"enum":[1,2]}`, `{"not":{"type":"null"}}`, `{"type":"object"}`} {
			path := create(schema)
			if r := e.do("POST", path+"/respond", human, `{"response":null}`); r.status != http.StatusUnprocessableEntity || r.code() != "invalid_response" {
				t.Fatalf("null against %s: %d %s", schema, r.status, r.text)
			}
		}
		// A response left out is required; so is one in the wrong case.
		path := create(`true`)
		for _, body := range []string{`{}`, `{"comment":"hm"}`} {
			if r := e.do("POST", path+"/respond", human, body); r.status != http.StatusBadRequest || !strings.Contains(r.text, `"/response"`) {
				t.Fatalf("%s: %d %s", body, r.status, r.text)
			}
		}
		if r := e.do("POST", path+"/respond", human, `{"Response":null}`); r.status != http.StatusBadRequest || !strings.Contains(r.text, `"/Response"`) {
			t.Fatalf("Response: %d %s", r.status, r.text)
		}
	})
}

// TestFormatsAreAsserted: format is a check, not an annotation.
func TestFormatsAreAsserted(t *testing.T) {
	e := startServer(t)
	agent := e.token("bot", "agent")
	human := e.token("kim", "responder")
	for _, tc := range []struct{ format, bad, good string }{
		{"email", `"not-an-email"`, `"kim@example.com"`},
		{"date-time", `"yesterday at noon"`, `"2026-11-22T10:00:00Z"`},
		{"date", `"2026-13-45"`, `"2026-11-22"`},
		{"uri", `"not a uri"`, `"https://example.com/a?b=c"`},
		{"uuid", `"1234"`, `"0b9d6f3c-8f0e-4a59-9d6e-3a1f5e2b7c10"`},
		{"ipv4", `"300.1.1.1"`, `"192.0.2.1"`},
	} {
		r := e.do("POST", "/v1/inquiries", agent, `{"prompt":"x","response_schema":{"type":"object","properties":{"v":{"type":"string","format":"`+tc.format+`"}}}}`)
		if r.status != http.StatusCreated {
			t.Fatalf("%s: %d %s", tc.format, r.status, r.text)
		}
		path := fmt.Sprintf("/v1/inquiries/%v/respond", r.body["id"])
		if r := e.do("POST", path, human, `{"response":{"v":`+tc.bad+`}}`); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.text, `"/v"`) {
			t.Errorf("%s %s: %d %s", tc.format, tc.bad, r.status, r.text)
		}
		if r := e.do("POST", path, human, `{"response":{"v":`+tc.good+`}}`); r.status != http.StatusOK {
			t.Errorf("%s %s: %d %s", tc.format, tc.good, r.status, r.text)
		}
	}
	// A fallback value is an answer too.
	if r := e.do("POST", "/v1/inquiries", agent, `{"prompt":"x","response_schema":{"format":"email"},"timeout_seconds":60,"fallback_policy":"complete_with_fallback","fallback_value":"nobody"}`); r.status != http.StatusBadRequest || !strings.Contains(r.text, `"/fallback_value"`) {
		t.Fatalf("fallback that is not an email: %d %s", r.status, r.text)
	}
}

// TestStrictBodies: a name given twice, or in another case, is refused wherever it is, so the
// value checked is the value stored.
func TestStrictBodies(t *testing.T) {
	e := startServer(t)
	agent := e.token("bot", "agent")
	human := e.token("kim", "responder")
	r := e.do("POST", "/v1/inquiries", agent, `{"prompt":"n?","response_schema":{"properties":{"a":{"type":"integer"}}}}`)
	if r.status != http.StatusCreated {
		t.Fatal(r.text)
	}
	respond := fmt.Sprintf("/v1/inquiries/%v/respond", r.body["id"])
	for _, tc := range []struct{ method, path, body, where string }{
		{"POST", "/v1/inquiries", `{"prompt":"a","PROMPT":"b"}`, "/PROMPT"},
		{"POST", "/v1/inquiries", `{"Prompt":"a"}`, "/Prompt"},
		{"POST", "/v1/inquiries", `{"prompt":"a","prompt":"b"}`, "/prompt"},
		{"POST", "/v1/inquiries", `{"prompt":"a","context":{"k":1,"k":2}}`, "/context/k"},
		{"POST", "/v1/inquiries", `{"prompt":"a","response_schema":{"type":"string","type":"integer"}}`, "/response_schema/type"},
		{"POST", "/v1/inquiries", `{"prompt":"a","options":["x",{"value":"y","VALUE":"z"}]}`, "/options/1"},
		{"POST", "/v1/inquiries", `{"prompt":"a","tool_call":{"id":"c","name":"n","Arguments":{}}}`, "/tool_call/Arguments"},
		{"POST", respond, `{"response":{"a":"str","a":1}}`, "/response/a"},
		{"POST", respond, `{"response":{"a":1},"Comment":"x"}`, "/Comment"},
		{"PUT", "/v1/sessions/s1", `{"state":{"x":1,"x":2}}`, "/state/x"},
		{"PUT", "/v1/sessions/s1", `{"Agent":"x"}`, "/Agent"},
		{"POST", "/v1/keys", `{"name":"x","roles":["agent"],"Roles":["admin"]}`, "/Roles"},
		{"POST", "/v1/engagement/decide", `{"confidence":0.5,"risk":0.5,"reversibility":0.5,"risk":0.1}`, "/risk"},
	} {
		token := agent
		if strings.HasSuffix(tc.path, "/respond") {
			token = human
		} else if tc.path == "/v1/keys" {
			token = adminToken
		}
		r := e.do(tc.method, tc.path, token, tc.body)
		if r.status != http.StatusBadRequest || r.code() != "invalid" || !strings.Contains(r.text, `"path":"`+tc.where+`"`) {
			t.Errorf("%s %s: %d %s", tc.path, tc.body, r.status, r.text)
		}
	}
	// Nothing was answered, created or stored by the refused bodies.
	if r := e.do("GET", "/v1/inquiries", agent, ``); len(r.body["data"].([]any)) != 1 {
		t.Fatalf("refused bodies were stored: %s", r.text)
	}
	if r := e.do("GET", "/v1/sessions/s1", agent, ``); r.status != http.StatusNotFound {
		t.Fatalf("a refused session was stored: %d", r.status)
	}
	// The WebSocket's messages are read the same way.
	c := dialWS(t, e, agent)
	wsSend(t, c, `{"type":"subscribe","Type":"unsubscribe"}`)
	if m := wsRead(t, c); m.Type != "error" || !strings.Contains(m.Message, `unknown field "Type"`) {
		t.Fatalf("ws: %+v", m)
	}
	wsSend(t, c, `{"type":"subscribe","type":"unsubscribe"}`)
	if m := wsRead(t, c); m.Type != "error" || !strings.Contains(m.Message, `duplicate key "type"`) {
		t.Fatalf("ws: %+v", m)
	}
}

// TestJSONBounds: what is stored nests at most 64 deep (deeper broke every list and search that
// could see it), schemas 32 deep and 64 KiB, numbers 100 digits and exponents ±400; each
// refusal names the place.
func TestJSONBounds(t *testing.T) {
	e := startServer(t)
	agent := e.token("bot", "agent")
	human := e.token("kim", "responder")
	nest := func(n int, inner string) string { return strings.Repeat(`[`, n) + inner + strings.Repeat(`]`, n) }
	deepPath := func(prefix string, n int) string { return prefix + strings.Repeat("/0", n) }
	costly := `{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"}]},` +
		`"b":{"allOf":[{"$ref":"#/$defs/c"},{"$ref":"#/$defs/c"},{"$ref":"#/$defs/c"},{"$ref":"#/$defs/c"}]},` +
		`"c":{"allOf":[{"$ref":"#/$defs/d"},{"$ref":"#/$defs/d"},{"$ref":"#/$defs/d"},{"$ref":"#/$defs/d"}]},` +
		`"d":{"allOf":[{"$ref":"#/$defs/e"},{"$ref":"#/$defs/e"},{"$ref":"#/$defs/e"},{"$ref":"#/$defs/e"}]},` +
		`"e":{"allOf":[{"$ref":"#/$defs/f"},{"$ref":"#/$defs/f"},{"$ref":"#/$defs/f"},{"$ref":"#/$defs/f"}]},` +
		`"f":{"allOf":[{"$ref":"#/$defs/g"},{"$ref":"#/$defs/g"},{"$ref":"#/$defs/g"},{"$ref":"#/$defs/g"}]},` +
		`"g":{"allOf":[{"$ref":"#/$defs/h"},{"$ref":"#/$defs/h"},{"$ref":"#/$defs/h"},{"$ref":"#/$defs/h"}]},` +
		`"h":{"type":"integer"}},"$ref":"#/$defs/a"}`
	notDeep := strings.Repeat(`{"not":`, 40) + `{}` + strings.Repeat(`}`, 40)
	for _, tc := range []struct{ name, body, where string }{
		{"context 1,000 deep", `{"prompt":"x","context":` + nest(1000, "1") + `}`, deepPath("/context", 64)},
		{"context 65 deep", `{"prompt":"x","context":` + nest(65, "") + `}`, deepPath("/context", 64)},
		{"context with a huge number", `{"prompt":"x","context":{"n":[1e10000000]}}`, "/context/n/0"},
		{"context with a long number", `{"prompt":"x","context":` + strings.Repeat("9", 101) + `}`, "/context"},
		{"schema multipleOf 1e10000000", `{"prompt":"x","response_schema":{"multipleOf":1e10000000}}`, "/response_schema/multipleOf"},
		{"schema maximum 1e-401", `{"prompt":"x","response_schema":{"maximum":1e-401}}`, "/response_schema/maximum"},
		{"schema not 40 deep", `{"prompt":"x","response_schema":` + notDeep + `}`, "/response_schema" + strings.Repeat("/not", 32)},
		{"schema items 2,000 deep", `{"prompt":"x","response_schema":` + strings.Repeat(`{"items":`, 2000) + `{}` + strings.Repeat(`}`, 2000) + `}`, "/response_schema" + strings.Repeat("/items", 32)},
		{"schema over 64 KiB", `{"prompt":"x","response_schema":{"enum":["` + strings.Repeat("e", 64<<10) + `"]}}`, "/response_schema"},
		{"schema whose checks multiply", `{"prompt":"x","response_schema":` + costly + `}`, "/response_schema"},
		{"fallback value 65 deep", `{"prompt":"x","response_schema":true,"timeout_seconds":60,"fallback_policy":"complete_with_fallback","fallback_value":` + nest(65, "") + `}`, deepPath("/fallback_value", 64)},
		{"tool-call arguments 65 deep", `{"prompt":"x","tool_call":{"id":"c","name":"n","arguments":` + nest(65, "") + `}}`, deepPath("/tool_call/arguments", 64)},
	} {
		r := e.do("POST", "/v1/inquiries", agent, tc.body)
		if r.status != http.StatusBadRequest || r.code() != "invalid" || !strings.Contains(r.text, `"path":"`+tc.where+`"`) {
			t.Errorf("%s: %d %.400s", tc.name, r.status, r.text)
		}
	}
	for _, tc := range []struct{ name, path, body, where string }{
		{"session state 1,000 deep", "/v1/sessions/s1", `{"state":` + nest(1000, "") + `}`, deepPath("/state", 64)},
		{"session state with a huge number", "/v1/sessions/s1", `{"state":{"n":1e-10000000}}`, "/state/n"},
	} {
		r := e.do("PUT", tc.path, agent, tc.body)
		if r.status != http.StatusBadRequest || !strings.Contains(r.text, `"path":"`+tc.where+`"`) {
			t.Errorf("%s: %d %.400s", tc.name, r.status, r.text)
		}
	}
	if r := e.do("PUT", "/v1/sessions/s2", agent, `{}`); r.status != http.StatusCreated {
		t.Fatal(r.text)
	}
	if r := e.do("POST", "/v1/sessions/s2/complete", agent, `{"result":`+nest(65, "")+`}`); r.status != http.StatusBadRequest || !strings.Contains(r.text, deepPath("/result", 64)) {
		t.Errorf("session result 65 deep: %d %.400s", r.status, r.text)
	}

	// At the bounds, everything is accepted, and lists and searches that see it still work.
	r := e.do("POST", "/v1/inquiries", agent, `{"prompt":"deep x","context":`+nest(64, "1e400")+`,"response_schema":{"type":"array","items":{"type":"number","maximum":5}}}`)
	if r.status != http.StatusCreated {
		t.Fatalf("context 64 deep: %d %s", r.status, r.text)
	}
	respond := fmt.Sprintf("/v1/inquiries/%v/respond", r.body["id"])
	for _, path := range []string{"/v1/inquiries?q=x", "/v1/inquiries?q=deep", "/v1/inquiries"} {
		if r := e.do("GET", path, agent, ``); r.status != http.StatusOK || len(r.body["data"].([]any)) != 1 {
			t.Fatalf("GET %s: %d %.300s", path, r.status, r.text)
		}
	}
	// Answers beyond the bounds are 422 with the path in the answer, as the schema's own errors.
	for _, tc := range []struct{ body, where string }{
		{`{"response":1e10000000}`, ""},
		{`{"response":[1,2,1e999999]}`, "/2"},
		{`{"response":[` + strings.Repeat("1", 101) + `]}`, "/0"},
		{`{"response":` + nest(65, "") + `}`, deepPath("", 64)},
		{`{"response":[1e400]}`, "/0"}, // within the bounds, above the maximum
	} {
		r := e.do("POST", respond, human, tc.body)
		if r.status != http.StatusUnprocessableEntity || r.code() != "invalid_response" || !strings.Contains(r.text, `"path":"`+tc.where+`"`) {
			t.Errorf("%.60s: %d %.400s", tc.body, r.status, r.text)
		}
	}
	if r := e.do("POST", respond, human, `{"response":[1,-1e-400,5e0]}`); r.status != http.StatusOK {
		t.Fatalf("answer at the bounds: %d %s", r.status, r.text)
	}
	// Sent again, the same numbers written otherwise are the same answer; others are not.
	if r := e.do("POST", respond, human, `{"response":[1.0,-0.1e-399,5]}`); r.status != http.StatusOK {
		t.Fatalf("the same answer again: %d %s", r.status, r.text)
	}
	for _, body := range []string{`{"response":[1,-1e-400,5.01]}`, `{"response":[1,-1e-400,1e999999]}`} {
		if r := e.do("POST", respond, human, body); r.status != http.StatusConflict {
			t.Fatalf("%s after the answer: %d %s", body, r.status, r.text)
		}
	}
}
