package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The JSON-RPC checks of a POST to /mcp, made before the go-sdk's transport sees the body: the
// transport refuses a message it cannot read with a plain-text 400 in words of its own
// ("cannot unmarshal ... into Go value of type jsonrpc2.wireDecode"), or accepts one it should
// not (no method, no result: 202). A client reads JSON-RPC errors, so hitl answers these
// itself, as the JSON-RPC spec names them, and hands every other body on unchanged.
//
// The HTTP status (the streamable HTTP transport leaves it open, so long as the body is one
// JSON-RPC message): an error that answers a well-formed request with an id is that request's
// response, 200, like any other method's error (404 for an unknown method from a client that
// speaks 2026-07-28 or later, as the go-sdk answers them, SEP-2575); anything else, a body that
// is no JSON-RPC message, or a notification the server cannot take, is 400, id null unless the
// message had a readable one.

// methodRule is what a client's method takes.
type methodRule struct {
	notification bool // sent without an id, answered with nothing
	params       bool // params are required
}

// clientMethods are the methods a client may send to /mcp: those the go-sdk v1.8.0 serves
// (its serverMethodInfos, which it does not export), and the tasks/* that tasks.go answers.
// A method missing here is refused as unknown before the SDK sees it: add it here when the
// SDK or hitl serves one more.
var clientMethods = map[string]methodRule{
	"initialize":                       {params: true},
	"ping":                             {},
	"server/discover":                  {},
	"completion/complete":              {params: true},
	"logging/setLevel":                 {params: true},
	"prompts/list":                     {},
	"prompts/get":                      {params: true},
	"resources/list":                   {},
	"resources/templates/list":         {},
	"resources/read":                   {params: true},
	"resources/subscribe":              {params: true},
	"resources/unsubscribe":            {params: true},
	"subscriptions/listen":             {params: true},
	"tools/list":                       {},
	"tools/call":                       {params: true},
	"tasks/get":                        {},
	"tasks/result":                     {},
	"tasks/cancel":                     {},
	"tasks/list":                       {},
	"notifications/initialized":        {notification: true},
	"notifications/cancelled":          {notification: true},
	"notifications/progress":           {notification: true, params: true},
	"notifications/roots/list_changed": {notification: true},
}

// protocolVersionHeader names the MCP version a client speaks after initialize.
const protocolVersionHeader = "Mcp-Protocol-Version"

// rpcRefusal is the JSON-RPC error a POST's body gets instead of going to the transport.
type rpcRefusal struct {
	status  int
	id      json.RawMessage // nil: null
	code    int64
	message string
}

func (f *rpcRefusal) write(w http.ResponseWriter) {
	writeRPCError(w, f.status, f.id, f.code, f.message)
}

// checkMessage is the refusal of a POST's body, or nil when it is a JSON-RPC message the
// transport may have; version is the client's Mcp-Protocol-Version. A batch (an array) is
// left to the transport, which takes or refuses batches by the protocol version.
func checkMessage(body []byte, version string) *rpcRefusal {
	if err := json.Unmarshal(body, new(json.RawMessage)); err != nil {
		return &rpcRefusal{http.StatusBadRequest, nil, jsonrpc.CodeParseError, "Parse error: the body is not JSON: " + err.Error()}
	}
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); trimmed[0] == '[' {
		return nil
	}
	invalid := func(id json.RawMessage, format string, args ...any) *rpcRefusal {
		return &rpcRefusal{http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, "Invalid Request: " + fmt.Sprintf(format, args...)}
	}
	var m map[string]json.RawMessage // keys as sent: encoding/json would match "ID" to id
	if json.Unmarshal(body, &m) != nil || m == nil {
		return invalid(nil, "a JSON-RPC message is a JSON object, not %s", clip(body))
	}
	if v := m["jsonrpc"]; string(v) != `"2.0"` {
		return invalid(nil, `"jsonrpc" must be "2.0"`)
	}
	id, hasID := m["id"], present(m["id"])
	if hasID && !validID(id) {
		return invalid(nil, `"id" must be a string or an integer, not %s`, clip(id))
	}
	if !hasID {
		id = nil
	}
	rawMethod, ok := m["method"]
	if !ok {
		if !hasID || present(m["result"]) == present(m["error"]) {
			return invalid(id, `a message without "method" is a response to the server's request: it needs "id" and one of "result" or "error"`)
		}
		return nil
	}
	var method string
	if json.Unmarshal(rawMethod, &method) != nil {
		return invalid(id, `"method" must be a string, not %s`, clip(rawMethod))
	}
	// answered is the refusal of a well-formed request with an id: its response.
	answered := func(status int, code int64, msg string) *rpcRefusal {
		if !hasID {
			status = http.StatusBadRequest
		}
		return &rpcRefusal{status, id, code, msg}
	}
	rule, known := clientMethods[method]
	switch {
	case !known:
		status := http.StatusOK
		if version >= "2026-07-28" {
			status = http.StatusNotFound
		}
		return answered(status, jsonrpc.CodeMethodNotFound, fmt.Sprintf("Method not found: %q (this server serves MCP's methods and tasks/*)", method))
	case rule.notification && hasID:
		return invalid(id, `%q is a notification: it takes no "id"`, method)
	case !rule.notification && !hasID:
		return invalid(nil, `%q is a request: it needs an "id"`, method)
	case rule.params && !present(m["params"]):
		return answered(http.StatusOK, jsonrpc.CodeInvalidParams, fmt.Sprintf(`Invalid params: %q needs "params"`, method))
	}
	return nil
}

// present tells whether a member was sent with a value other than null.
func present(v json.RawMessage) bool {
	return len(v) > 0 && string(v) != "null"
}

// validID tells whether id is an id MCP allows: a string or an integer.
func validID(id json.RawMessage) bool {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return true
	}
	var n json.Number
	if json.Unmarshal(id, &n) != nil {
		return false
	}
	_, err := n.Int64()
	return err == nil
}

// clip is raw JSON to quote in an error, cut short.
func clip(raw []byte) string {
	const most = 40
	if len(raw) > most {
		return string(raw[:most]) + "…"
	}
	return string(raw)
}

// writeRPCError answers with a JSON-RPC error response; id nil is null.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(rpcErrorJSON(id, code, msg))
}

// rpcErrorJSON is a JSON-RPC error response, on a line of its own; id nil is null.
func rpcErrorJSON(id json.RawMessage, code int64, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	body, _ := json.Marshal(struct { // of valid JSON, a string and a number: it encodes
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, msg}})
	return append(body, '\n')
}
