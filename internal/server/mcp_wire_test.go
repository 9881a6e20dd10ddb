package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// mcpPost is the headers of a POST to /mcp, in session id when id is not "".
func mcpPost(id string) []string {
	h := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}
	if id != "" {
		h = append(h, "Mcp-Session-Id", id)
	}
	return h
}

const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// rpcError is the JSON-RPC error of an answer: its id (raw JSON), code and message.
func rpcError(t *testing.T, r reply) (id string, code int, msg string) {
	t.Helper()
	var res struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if r.header.Get("Content-Type") != "application/json" || json.Unmarshal([]byte(r.text), &res) != nil || res.JSONRPC != "2.0" || res.Error == nil {
		t.Fatalf("not a JSON-RPC error: %d %s %s", r.status, r.header.Get("Content-Type"), r.text)
	}
	return string(res.ID), res.Error.Code, res.Error.Message
}

// TestMCPMalformedMessagesGetJSONRPCErrors: a body that is no JSON-RPC message, or names a
// method nobody serves, gets the JSON-RPC error that says so, with or without a session, and
// none of the SDK's words; a well-formed request's error is its response (200).
func TestMCPMalformedMessagesGetJSONRPCErrors(t *testing.T) {
	e := newEnv(t)
	ann := e.token("ann", "agent")
	r := e.do("POST", "/mcp", ann, mcpInitialize, mcpPost("")...)
	session := r.header.Get("Mcp-Session-Id")
	if r.status != 200 || session == "" {
		t.Fatalf("initialize: %d %s", r.status, r.text)
	}
	for _, tc := range []struct {
		body   string
		status int
		id     string
		code   int
		says   string
	}{
		{`{not json`, 400, "null", -32700, "Parse error"},
		{``, 400, "null", -32700, "Parse error"},
		{`"hello"`, 400, "null", -32600, "JSON object"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, 400, "null", -32600, `"id" must be a string or an integer`},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, 400, "null", -32600, `"id" must be a string or an integer`},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, 400, "null", -32600, `"jsonrpc" must be "2.0"`},
		{`{"jsonrpc":"2.0","id":1,"method":"nope/nope"}`, 200, "1", -32601, `Method not found: "nope/nope"`},
		{`{"jsonrpc":"2.0","id":"x","method":"tasks/nope"}`, 200, `"x"`, -32601, `"tasks/nope"`},
		{`{"jsonrpc":"2.0","method":"notifications/nope"}`, 400, "null", -32601, `"notifications/nope"`},
		{`{"jsonrpc":"2.0","id":1}`, 400, "1", -32600, `needs "id" and one of "result" or "error"`},
		{`{"jsonrpc":"2.0","id":1,"method":7}`, 400, "1", -32600, `"method" must be a string`},
		{`{"jsonrpc":"2.0","method":"tools/list"}`, 400, "null", -32600, `"tools/list" is a request: it needs an "id"`},
		{`{"jsonrpc":"2.0","id":3,"method":"notifications/initialized"}`, 400, "3", -32600, "is a notification"},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call"}`, 200, "4", -32602, `"tools/call" needs "params"`},
	} {
		for _, id := range []string{"", session} {
			r := e.do("POST", "/mcp", ann, tc.body, mcpPost(id)...)
			gotID, code, msg := rpcError(t, r)
			if r.status != tc.status || gotID != tc.id || code != tc.code || !strings.Contains(msg, tc.says) || strings.Contains(msg, "jsonrpc2") || strings.Contains(msg, "Go value") {
				t.Errorf("%s (session %v): %d id %s %d %q, want %d id %s %d %q", tc.body, id != "", r.status, gotID, code, msg, tc.status, tc.id, tc.code, tc.says)
			}
		}
	}
	// A client of 2026-07-28 gets an unknown method as the go-sdk answers it there: 404.
	r = e.do("POST", "/mcp", ann, `{"jsonrpc":"2.0","id":1,"method":"nope/nope"}`, append(mcpPost(""), "Mcp-Protocol-Version", "2026-07-28")...)
	if _, code, _ := rpcError(t, r); r.status != http.StatusNotFound || code != -32601 {
		t.Errorf("unknown method at 2026-07-28: %d %d", r.status, code)
	}
	// What is well formed still goes to the SDK: a call, a notification, a response.
	for _, body := range []string{`{"jsonrpc":"2.0","id":"p","method":"ping"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`} {
		if r := e.do("POST", "/mcp", ann, body, mcpPost(session)...); r.status != 200 && r.status != 202 {
			t.Errorf("%s: %d %s", body, r.status, r.text)
		}
	}
	if r := e.do("POST", "/mcp", ann, `{"jsonrpc":"2.0","id":"p","method":"ping"}`, mcpPost(session)...); !strings.Contains(r.text, `"result"`) {
		t.Errorf("ping in the session: %d %s", r.status, r.text)
	}
}

// TestMCPGoneSessionsSayWhy: an initialize that names a session that is gone is told to leave
// the header out; a session ended to make room for the key's seventeenth says so to its key
// (and nothing to another key); one ended with DELETE says that.
func TestMCPGoneSessionsSayWhy(t *testing.T) {
	e := newEnv(t)
	ann, bob := e.token("ann", "agent"), e.token("bob", "agent")
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	gone := func(what string, r reply, want ...string) {
		t.Helper()
		_, _, msg := rpcError(t, r)
		if r.status != http.StatusNotFound || !strings.HasPrefix(msg, "session not found") {
			t.Fatalf("%s: %d %s", what, r.status, msg)
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not say %q", what, msg, w)
			}
		}
	}
	gone("initialize with a dead session", e.do("POST", "/mcp", ann, mcpInitialize, mcpPost("no-such-session")...),
		"send initialize without the Mcp-Session-Id header")

	var ids []string
	for range 17 {
		r := e.do("POST", "/mcp", ann, mcpInitialize, mcpPost("")...)
		if r.status != 200 {
			t.Fatalf("initialize: %d %s", r.status, r.text)
		}
		ids = append(ids, r.header.Get("Mcp-Session-Id"))
	}
	gone("the evicted session", e.do("POST", "/mcp", ann, list, mcpPost(ids[0])...), "ended to make room", "16 sessions", "initialize")
	gone("the evicted session, initialize", e.do("POST", "/mcp", ann, mcpInitialize, mcpPost(ids[0])...), "ended to make room", "without the Mcp-Session-Id header")
	r := e.do("POST", "/mcp", bob, list, mcpPost(ids[0])...)
	if _, _, msg := rpcError(t, r); strings.Contains(msg, "room") {
		t.Errorf("another key learns why ann's session ended: %s", msg)
	}
	if r := e.do("DELETE", "/mcp", ann, "", "Mcp-Session-Id", ids[1]); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.text)
	}
	gone("a deleted session", e.do("POST", "/mcp", ann, list, mcpPost(ids[1])...), "DELETE")
	if r := e.do("POST", "/mcp", ann, list, mcpPost(ids[16])...); r.status != 200 {
		t.Errorf("the newest session: %d %s", r.status, r.text)
	}
}
