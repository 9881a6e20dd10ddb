package server_test

import (
	"strings"
	"testing"
)

// TestMCPSessionsAreBoundToTheirKey: an initialize at /mcp starts a session, which only the key
// that started it may use; another key naming it is told it does not exist, as after DELETE.
// Requests without a session id are still served statelessly.
func TestMCPSessionsAreBoundToTheirKey(t *testing.T) {
	e := newEnv(t)
	ann, bob := e.token("ann", "agent", "responder"), e.token("bob", "agent")
	mcpHeaders := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}
	with := func(id string) []string { return append(mcpHeaders, "Mcp-Session-Id", id) }
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

	r := e.do("POST", "/mcp", ann, initialize, mcpHeaders...)
	id := r.header.Get("Mcp-Session-Id")
	if r.status != 200 || id == "" {
		t.Fatalf("initialize: %d %q, session %q", r.status, r.text, id)
	}
	if r := e.do("POST", "/mcp", ann, initialized, with(id)...); r.status != 202 {
		t.Fatalf("initialized: %d %s", r.status, r.text)
	}
	if r := e.do("POST", "/mcp", ann, list, with(id)...); r.status != 200 || !strings.Contains(r.text, "request_user_input") {
		t.Fatalf("tools/list in the session: %d %s", r.status, r.text)
	}

	refused := func(what string, r reply) {
		t.Helper()
		if r.status != 404 || r.header.Get("Content-Type") != "application/json" || !strings.Contains(r.text, `"error"`) || !strings.Contains(r.text, "session not found") {
			t.Fatalf("%s: %d %s %q, want a JSON-RPC error with 404", what, r.status, r.header.Get("Content-Type"), r.text)
		}
	}
	refused("another key's POST", e.do("POST", "/mcp", bob, list, with(id)...))
	refused("another key's GET", e.do("GET", "/mcp", bob, "", "Accept", "text/event-stream", "Mcp-Session-Id", id))
	refused("another key's DELETE", e.do("DELETE", "/mcp", bob, "", "Mcp-Session-Id", id))
	refused("an unknown session", e.do("POST", "/mcp", ann, list, with("no-such-session")...))
	if r := e.do("POST", "/mcp", "", list, with(id)...); r.status != 401 {
		t.Fatalf("no key: %d %s", r.status, r.text)
	}
	if r := e.do("GET", "/mcp", ann, "", "Accept", "text/event-stream"); r.status != 405 || !strings.Contains(r.text, "Mcp-Session-Id") {
		t.Fatalf("GET without a session: %d %s", r.status, r.text)
	}
	if r := e.do("POST", "/mcp", ann, list, "Content-Type", "text/plain", "Accept", "application/json, text/event-stream", "Mcp-Session-Id", id); r.status != 415 || !strings.Contains(r.text, `"error"`) {
		t.Fatalf("text/plain: %d %s", r.status, r.text)
	}

	// The session still serves its key after the refusals; DELETE ends it.
	if r := e.do("POST", "/mcp", ann, list, with(id)...); r.status != 200 {
		t.Fatalf("tools/list after the refusals: %d %s", r.status, r.text)
	}
	if r := e.do("DELETE", "/mcp", ann, "", "Mcp-Session-Id", id); r.status != 204 {
		t.Fatalf("DELETE: %d %s", r.status, r.text)
	}
	refused("an ended session", e.do("POST", "/mcp", ann, list, with(id)...))

	// Stateless: no session id, no initialize.
	if r := e.do("POST", "/mcp", bob, list, mcpHeaders...); r.status != 200 || !strings.Contains(r.text, "request_user_input") || r.header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("stateless tools/list: %d %s", r.status, r.text)
	}
}
