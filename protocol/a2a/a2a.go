// Package a2a serves the Agent2Agent protocol (A2A 0.3 and 1.0, their JSON-RPC binding), so that an agent
// written with an A2A client asks people through hitl as it would ask any other agent: the
// Agent Card at /.well-known/agent-card.json, and the JSON-RPC endpoint at /a2a. A message is a
// question (an inquiry), its task the inquiry (the task id is the inquiry's id), its contextId
// the inquiry's session. It maps shapes only; who may ask, see and cancel, the engine decides.
package a2a

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/httpwire"
	"github.com/hitl-dev/hitl/internal/strictjson"
)

// Path is where the JSON-RPC endpoint is served; the Agent Card gives its absolute URL.
const Path = "/a2a"

// CardPath is where the Agent Card is served, to anyone: it says how to call, not what was asked.
const CardPath = "/.well-known/agent-card.json"

// DefaultWaitBound is how long a blocking message/send waits for the answer before it returns
// the task still working: below the minute after which many HTTP clients give up.
const DefaultWaitBound = 45 * time.Second

// heartbeat is how often a stream that waits says it is alive, as a comment line.
const heartbeat = 15 * time.Second

// writeTimeout ends a stream whose client stops reading.
const writeTimeout = 30 * time.Second

// API serves A2A on the engine.
type API struct {
	engine    *engine.Engine
	publicURL string
	waitBound time.Duration
}

// New returns A2A's routes on e. publicURL is how agents reach this server ("": the host each
// request came to); waitBound bounds a blocking message/send (0: DefaultWaitBound).
func New(e *engine.Engine, publicURL string, waitBound time.Duration) *API {
	if waitBound <= 0 {
		waitBound = DefaultWaitBound
	}
	waitBound = min(waitBound, engine.MaxWait)
	return &API{engine: e, publicURL: strings.TrimSuffix(publicURL, "/"), waitBound: waitBound}
}

// Mount adds the Agent Card and the JSON-RPC endpoint to r.
func (a *API) Mount(r httpwire.Router) {
	r.Handle(httpwire.Route{Method: "GET", Path: CardPath, Public: true, Handle: a.card})
	r.Handle(httpwire.Route{Method: "POST", Path: Path, Handle: a.serve})
}

// The JSON-RPC error codes: JSON-RPC's own, and those A2A adds.
const (
	codeParseError                   = -32700
	codeInvalidRequest               = -32600
	codeMethodNotFound               = -32601
	codeInvalidParams                = -32602
	codeInternal                     = -32603
	codeTaskNotFound                 = -32001
	codeTaskNotCancelable            = -32002
	codePushNotificationNotSupported = -32003
	codeUnsupportedOperation         = -32004
	codeContentTypeNotSupported      = -32005
)

// rpcError is a JSON-RPC error object; Data carries hitl's error code when hitl refused.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

func invalidParams(msg string) *rpcError { return &rpcError{Code: codeInvalidParams, Message: msg} }

// rpcErrorOf is the JSON-RPC error of err. notFound is the code of hitl's not_found for the
// method: a task that is not found, or a parameter (a template, a person) that names nothing.
func rpcErrorOf(err error, notFound int) *rpcError {
	var re *rpcError
	if errors.As(err, &re) {
		return re
	}
	code := hitl.ErrorCode(err)
	out := &rpcError{Message: hitl.ErrorMessage(err), Data: map[string]any{"hitl_code": code}}
	var de *hitl.Error
	if errors.As(err, &de) && len(de.Fields) > 0 {
		out.Data = map[string]any{"hitl_code": code, "errors": de.Fields}
	}
	switch code {
	case hitl.ENotFound:
		out.Code = notFound
	case hitl.EInvalid, hitl.EInvalidResponse, hitl.ETooLarge, hitl.EConflict:
		out.Code = codeInvalidParams
	case hitl.EForbidden, hitl.EUnauthorized, hitl.ERateLimited:
		out.Code = codeInvalidRequest
	default:
		out.Code = codeInternal
	}
	return out
}

// request is a JSON-RPC request.
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	// version is the A2A version whose names the request used: "1.0", or "" for 0.3.
	version string
}

// response is a JSON-RPC response: a result or an error.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// serve answers POST /a2a: one JSON-RPC request. Every refusal is a JSON-RPC error object
// (HTTP 200, as the binding says), streams included when they cannot start.
func (a *API) serve(w http.ResponseWriter, r *http.Request, p *hitl.Principal) error {
	body := new(bytes.Buffer)
	body.ReadFrom(r.Body) // from memory: the router read it whole
	req, rerr := readRequest(body.Bytes())
	if rerr != nil {
		return writeResponse(w, req.ID, nil, rerr)
	}
	// A 1.0 method is served as its 0.3 method, its params read and its answers written in 1.0's shapes.
	shape := func(_ string, v any) any { return v }
	event := func(v any) any { return v }
	if name, ok := v1Methods[req.Method]; ok {
		params, rerr := v1Params(name, req.Params)
		if rerr != nil {
			return writeResponse(w, req.ID, nil, rerr)
		}
		req.Method, req.Params, req.version, shape, event = name, params, "1.0", v1Result, v1Event
	}
	switch req.Method {
	case "message/stream":
		var params sendParams
		if rerr := readSendParams(req.Params, &params); rerr != nil {
			return writeResponse(w, req.ID, nil, rerr)
		}
		inq, rerr := a.ask(r.Context(), p, &params, req.version)
		if rerr != nil {
			return writeResponse(w, req.ID, nil, rerr)
		}
		return a.stream(w, r, p, req.ID, inq, true, event)
	case "tasks/resubscribe":
		var params taskParams
		if rerr := readParams(req.Params, &params); rerr != nil {
			return writeResponse(w, req.ID, nil, rerr)
		}
		inq, err := a.inquiry(r.Context(), p, params.ID)
		if err != nil {
			return writeResponse(w, req.ID, nil, rpcErrorOf(err, codeTaskNotFound))
		}
		return a.stream(w, r, p, req.ID, inq, false, event)
	}
	result, err := a.call(r.Context(), p, r, &req)
	if err != nil {
		return writeResponse(w, req.ID, nil, rpcErrorOf(err, codeTaskNotFound))
	}
	return writeResponse(w, req.ID, shape(req.Method, result), nil)
}

// readRequest reads one JSON-RPC request; the id it returns is null when the body has none.
func readRequest(body []byte) (request, *rpcError) {
	req := request{ID: json.RawMessage("null")}
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		return req, &rpcError{Code: codeParseError, Message: "the body is not JSON: send one JSON-RPC 2.0 request object"}
	}
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return req, &rpcError{Code: codeInvalidRequest, Message: "batches are not served: send one JSON-RPC request per HTTP request"}
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &members); err != nil || members == nil {
		return req, &rpcError{Code: codeInvalidRequest, Message: "a JSON-RPC request is an object with jsonrpc, id, method and params"}
	}
	id, hasID := members["id"]
	if hasID && validID(id) {
		req.ID = id
	}
	var version, method string
	if json.Unmarshal(members["jsonrpc"], &version) != nil || version != "2.0" {
		return req, &rpcError{Code: codeInvalidRequest, Message: `jsonrpc must be "2.0"`}
	}
	if !hasID || !validID(id) {
		return req, &rpcError{Code: codeInvalidRequest, Message: "id must be a string or a number: every A2A method answers, and the answer carries the id"}
	}
	if json.Unmarshal(members["method"], &method) != nil || method == "" {
		return req, &rpcError{Code: codeInvalidRequest, Message: "method must be a string naming an A2A method, such as message/send"}
	}
	req.JSONRPC, req.Method, req.Params = version, method, members["params"]
	return req, nil
}

// validID reports whether id is a JSON-RPC id: a string or a number.
func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9')
}

// readParams reads a method's params, which every method here needs.
func readParams(raw json.RawMessage, v any) *rpcError {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || hitl.IsNull(raw) || raw[0] != '{' {
		return invalidParams("params must be an object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return invalidParams(fmt.Sprintf("params.%s must be %s", te.Field, strictjson.Describe(te.Type)))
		}
		return invalidParams("params must be an object, as the method's A2A params are")
	}
	return nil
}

// configurationMembers are what a message's configuration may say, by A2A version ("": 0.3).
var configurationMembers = map[string][]string{
	"":    {"acceptedOutputModes", "blocking", "historyLength", "pushNotificationConfig"},
	"1.0": {"acceptedOutputModes", "historyLength", "returnImmediately", "taskPushNotificationConfig"},
}

// checkConfiguration refuses a configuration member the version does not define, as an unknown
// data member is refused: ignored, a misspelt push config would create nothing and say nothing.
func checkConfiguration(raw json.RawMessage, version string) *rpcError {
	var p struct {
		Configuration map[string]json.RawMessage `json:"configuration"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return nil // readParams says what is wrong
	}
	known := configurationMembers[version]
	for name := range p.Configuration {
		if !slices.Contains(known, name) {
			return invalidParams(fmt.Sprintf("params.configuration: unknown member %q; A2A %s's configuration may say %s",
				name, cmp.Or(version, "0.3"), strings.Join(known, ", ")))
		}
	}
	return nil
}

// readSendParams reads message/send's and message/stream's params.
func readSendParams(raw json.RawMessage, params *sendParams) *rpcError {
	if rerr := readParams(raw, params); rerr != nil {
		return rerr
	}
	return checkConfiguration(raw, "")
}

// writeResponse writes the answer to one request.
func writeResponse(w http.ResponseWriter, id json.RawMessage, result any, rerr *rpcError) error {
	resp := response{JSONRPC: "2.0", ID: id, Error: rerr}
	if rerr == nil {
		b, err := json.Marshal(result)
		if err != nil {
			return err
		}
		resp.Result = b
	}
	return httpwire.WriteJSON(w, http.StatusOK, resp)
}

// sendParams are message/send's and message/stream's.
type sendParams struct {
	Message       *message `json:"message"`
	Configuration *struct {
		AcceptedOutputModes    []string        `json:"acceptedOutputModes"`
		Blocking               bool            `json:"blocking"`
		HistoryLength          *int            `json:"historyLength"`
		PushNotificationConfig json.RawMessage `json:"pushNotificationConfig"`
	} `json:"configuration"`
	Metadata json.RawMessage `json:"metadata"`
}

// taskParams are the task methods': the task's id.
type taskParams struct {
	ID            string          `json:"id"`
	HistoryLength *int            `json:"historyLength"`
	Metadata      json.RawMessage `json:"metadata"`
}

// outputModes are the media types a task's artifact holds.
var outputModes = []string{"application/json", "text/plain"}

// call runs the methods that answer with one result.
func (a *API) call(ctx context.Context, p *hitl.Principal, r *http.Request, req *request) (any, error) {
	switch req.Method {
	case "message/send":
		var params sendParams
		if rerr := readSendParams(req.Params, &params); rerr != nil {
			return nil, rerr
		}
		inq, rerr := a.ask(ctx, p, &params, req.version)
		if rerr != nil {
			return nil, rerr
		}
		if params.Configuration != nil && params.Configuration.Blocking {
			waited, err := a.engine.Wait(ctx, p, inq.ID, a.waitBound)
			if err != nil {
				return nil, err
			}
			return taskOf(waited), nil
		}
		return submitted(inq), nil
	case "tasks/get":
		var params taskParams
		if rerr := readParams(req.Params, &params); rerr != nil {
			return nil, rerr
		}
		inq, err := a.inquiry(ctx, p, params.ID)
		if err != nil {
			return nil, err
		}
		a.engine.InquiryFetched(p, inq)
		return taskOf(inq), nil
	case "tasks/cancel":
		var params taskParams
		if rerr := readParams(req.Params, &params); rerr != nil {
			return nil, rerr
		}
		id, err := inquiryOf(params.ID)
		if err != nil {
			return nil, err
		}
		inq, err := a.engine.Cancel(ctx, p, id, "cancelled by the asking agent (A2A tasks/cancel)")
		err = taskError(err, params.ID)
		switch hitl.ErrorCode(err) {
		case "":
			return taskOf(inq), nil
		case hitl.EConflict, hitl.EForbidden:
			return nil, &rpcError{Code: codeTaskNotCancelable, Message: hitl.ErrorMessage(err), Data: map[string]any{"hitl_code": hitl.ErrorCode(err)}}
		}
		return nil, err
	case "tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get",
		"tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete":
		result, err := a.pushConfigs(ctx, p, req)
		if hitl.ErrorCode(err) == hitl.EUnavailable {
			return nil, &rpcError{Code: codePushNotificationNotSupported, Message: hitl.ErrorMessage(err)}
		}
		return result, err
	case "agent/getAuthenticatedExtendedCard":
		return a.extendedCard(ctx, p, r)
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: fmt.Sprintf("method %q not found; this server serves A2A 0.3's %s, and the same under A2A 1.0's names", req.Method, strings.Join(methods, ", "))}
}

// methods are the methods served.
var methods = []string{"message/send", "message/stream", "tasks/get", "tasks/cancel", "tasks/resubscribe", "tasks/pushNotificationConfig/set",
	"tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete", "agent/getAuthenticatedExtendedCard"}

// ask turns a message into an inquiry, in the session its contextId names (a new one when it
// names none). Its messageId is the idempotency key: the same message sent again is the same
// task, not a second question. version is the request's, for its push config.
func (a *API) ask(ctx context.Context, p *hitl.Principal, params *sendParams, version string) (*hitl.Inquiry, *rpcError) {
	if params.Message == nil {
		return nil, invalidParams("params.message is required: the question, as text parts, with a data part saying how to ask")
	}
	if c := params.Configuration; c != nil {
		if len(c.AcceptedOutputModes) > 0 && !acceptsAny(c.AcceptedOutputModes, outputModes) {
			return nil, &rpcError{Code: codeContentTypeNotSupported, Message: fmt.Sprintf("configuration.acceptedOutputModes: the answer is given as %s", strings.Join(outputModes, " and "))}
		}
	}
	req, err := inquiryRequest(params.Message, version)
	if err != nil {
		return nil, rpcErrorOf(err, codeInvalidParams)
	}
	req.Session, req.Origin = params.Message.ContextID, "a2a"
	if req.Session == "" {
		req.Session = "a2a-" + uuid.NewString()
	}
	var push *pushConfig
	if c := params.Configuration; c != nil && len(c.PushNotificationConfig) > 0 && !hitl.IsNull(c.PushNotificationConfig) {
		push = new(pushConfig)
		if rerr := readPushConfig(c.PushNotificationConfig, push, "configuration.pushNotificationConfig"); rerr != nil {
			return nil, rerr
		}
	}
	if push != nil { // checked before anyone is asked: a refused config would withdraw the question
		if err := a.engine.CheckPushConfig(ctx, hitl.PushConfig{ID: push.ID, URL: push.URL, Token: push.Token}); err != nil {
			return nil, rpcErrorOf(err, codeInvalidParams)
		}
	}
	inq, created, err := a.engine.CreateInquiry(ctx, p, req, idempotencyKey(params.Message.MessageID))
	if err != nil {
		return nil, askError(err, params.Message)
	}
	if push != nil && created {
		if _, err := a.engine.SetPushConfig(ctx, p, inq.ID, hitl.PushConfig{ID: push.ID, URL: push.URL, Token: push.Token, Version: version}); err != nil {
			// Nobody would hear of the answer where the agent asked: the question goes too.
			a.engine.Cancel(ctx, p, inq.ID, "its push notification config was refused: "+hitl.ErrorMessage(err))
			return nil, rpcErrorOf(err, codeInvalidParams)
		}
	}
	return inq, nil
}

// askError is the refusal of a message, in A2A's words: hitl's Idempotency-Key is the message's
// messageId, its session the contextId.
func askError(err error, m *message) *rpcError {
	out := rpcErrorOf(err, codeInvalidParams)
	var he *hitl.Error
	errors.As(err, &he)
	switch {
	case he == nil:
	case he.Code == hitl.EConflict && strings.HasPrefix(he.Message, "Idempotency-Key"):
		out.Message = fmt.Sprintf("messageId %q was used before for another message; give each new message a new messageId", m.MessageID)
	case he.Code == hitl.ENotFound && strings.HasPrefix(he.Message, "session "):
		out.Message = fmt.Sprintf("contextId %q is taken by a session this key may not see; choose another contextId", m.ContextID)
	default:
		for _, f := range he.Fields {
			if f.Path == "/session" {
				out.Message = "contextId " + f.Message
			}
		}
	}
	return out
}

// taskError is err of the task id in A2A's words: hitl's "inquiry 5 …" is the task's.
func taskError(err error, id string) error {
	var he *hitl.Error
	if !errors.As(err, &he) {
		return err
	}
	if he.Code == hitl.ENotFound {
		return &rpcError{Code: codeTaskNotFound, Message: fmt.Sprintf("task %q not found", id), Data: map[string]any{"hitl_code": hitl.ENotFound}}
	}
	if rest, ok := strings.CutPrefix(he.Message, "inquiry "+id); ok {
		said := *he
		said.Message = fmt.Sprintf("task %q", id) + rest
		return &said
	}
	return err
}

// pushConfig is A2A's PushNotificationConfig. Its authentication is not served: hitl sends the
// token, in X-A2A-Notification-Token, and nothing else.
type pushConfig struct {
	ID             string          `json:"id,omitempty"`
	URL            string          `json:"url"`
	Token          string          `json:"token,omitempty"`
	Authentication json.RawMessage `json:"authentication,omitempty"`
}

// taskPushConfig is A2A's TaskPushNotificationConfig.
type taskPushConfig struct {
	TaskID                 string          `json:"taskId"`
	PushNotificationConfig json.RawMessage `json:"pushNotificationConfig"`
}

// taskPushConfigView is a stored config as A2A shows it.
type taskPushConfigView struct {
	TaskID                 string     `json:"taskId"`
	PushNotificationConfig pushConfig `json:"pushNotificationConfig"`
}

func viewOf(c *hitl.PushConfig) taskPushConfigView {
	return taskPushConfigView{TaskID: taskID(c.InquiryID), PushNotificationConfig: pushConfig{ID: c.ID, URL: c.URL, Token: c.Token}}
}

// readPushConfig reads a PushNotificationConfig at where.
func readPushConfig(raw json.RawMessage, c *pushConfig, where string) *rpcError {
	if err := json.Unmarshal(raw, c); err != nil {
		return invalidParams(where + " must be an object with url, and id and token if you like")
	}
	if len(c.Authentication) > 0 && !hitl.IsNull(c.Authentication) {
		return invalidParams(where + ".authentication is not served: hitl sends the config's token, in X-A2A-Notification-Token")
	}
	return nil
}

// pushParams are the params of tasks/pushNotificationConfig/get, list and delete.
type pushParams struct {
	ID                       string `json:"id"`
	PushNotificationConfigID string `json:"pushNotificationConfigId"`
}

// pushConfigs serves tasks/pushNotificationConfig/*: the push configs of the task's inquiry,
// which the engine keeps and delivers through the outbox.
func (a *API) pushConfigs(ctx context.Context, p *hitl.Principal, req *request) (any, error) {
	if req.Method == "tasks/pushNotificationConfig/set" {
		var params taskPushConfig
		if rerr := readParams(req.Params, &params); rerr != nil {
			return nil, rerr
		}
		var c pushConfig
		if rerr := readPushConfig(params.PushNotificationConfig, &c, "params.pushNotificationConfig"); rerr != nil {
			return nil, rerr
		}
		id, err := inquiryOf(params.TaskID)
		if err != nil {
			return nil, err
		}
		stored, err := a.engine.SetPushConfig(ctx, p, id, hitl.PushConfig{ID: c.ID, URL: c.URL, Token: c.Token, Version: req.version})
		if err != nil {
			return nil, taskError(err, params.TaskID)
		}
		return viewOf(stored), nil
	}
	var params pushParams
	if rerr := readParams(req.Params, &params); rerr != nil {
		return nil, rerr
	}
	id, err := inquiryOf(params.ID)
	if err != nil {
		return nil, err
	}
	if req.Method == "tasks/pushNotificationConfig/delete" {
		if err := a.engine.DeletePushConfig(ctx, p, id, params.PushNotificationConfigID); err != nil {
			return nil, taskError(err, params.ID)
		}
		return nil, nil
	}
	configs, err := a.engine.PushConfigs(ctx, p, id)
	if err != nil {
		return nil, taskError(err, params.ID)
	}
	views := []taskPushConfigView{}
	for _, c := range configs {
		if req.Method == "tasks/pushNotificationConfig/list" || params.PushNotificationConfigID == "" || c.ID == params.PushNotificationConfigID {
			views = append(views, viewOf(c))
		}
	}
	if req.Method == "tasks/pushNotificationConfig/list" {
		return views, nil
	}
	if len(views) == 0 {
		return nil, &rpcError{Code: codeTaskNotFound, Message: fmt.Sprintf("task %s has no push notification config %q", params.ID, params.PushNotificationConfigID)}
	}
	return views[0], nil
}

// PushBody is the body of a push notification of an inquiry's end (engine.Options.PushBody), as
// A2A's own servers post it: the task in 0.3; in 1.0 a StreamResponse holding the task.
func PushBody(inq *hitl.Inquiry, version string) (json.RawMessage, error) {
	if version == "1.0" {
		return json.Marshal(v1Event(taskOf(inq)))
	}
	return json.Marshal(taskOf(inq))
}

// idempotencyKey is a message's key: its id, when it fits hitl's keys.
func idempotencyKey(messageID string) string {
	if len(messageID) > 150 {
		return ""
	}
	return "a2a:" + messageID
}

func acceptsAny(accepted, offered []string) bool {
	for _, m := range accepted {
		for _, o := range offered {
			if strings.EqualFold(strings.TrimSpace(m), o) || m == "*/*" {
				return true
			}
		}
	}
	return false
}

// submitted is a task just asked: still pending, it is submitted until it is first read again.
func submitted(inq *hitl.Inquiry) task {
	t := taskOf(inq)
	if t.Status.State == stateWorking {
		t.Status.State = stateSubmitted
	}
	return t
}

// inquiry reads the inquiry of a task id, as p may see it.
func (a *API) inquiry(ctx context.Context, p *hitl.Principal, id string) (*hitl.Inquiry, error) {
	n, err := inquiryOf(id)
	if err != nil {
		return nil, err
	}
	inq, err := a.engine.Inquiry(ctx, p, n)
	return inq, taskError(err, id)
}

// stream answers message/stream and tasks/resubscribe with Server-Sent Events, each a JSON-RPC
// response to the request: the task, then working (for a task just asked), then, woken by the
// engine when the inquiry ends, the answer as an artifact and the final status. When the
// server stops first, the stream ends, and the client resubscribes.
func (a *API) stream(w http.ResponseWriter, r *http.Request, p *hitl.Principal, id json.RawMessage, inq *hitl.Inquiry, asked bool, event func(any) any) error {
	rc := httpwire.StartStream(w, "text/event-stream", writeTimeout)
	send := func(v any) error {
		b, err := json.Marshal(response{JSONRPC: "2.0", ID: id, Result: mustJSON(event(v))})
		if err != nil {
			return err
		}
		rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return err
		}
		return rc.Flush()
	}
	first := taskOf(inq)
	if asked {
		first = submitted(inq)
	}
	if err := send(first); err != nil {
		return nil
	}
	if asked && !inq.Status.Final() {
		working := taskOf(inq)
		if err := send(statusUpdate{Kind: "status-update", TaskID: working.ID, ContextID: working.ContextID, Status: working.Status}); err != nil {
			return nil
		}
	}
	for !inq.Status.Final() {
		next, err := a.engine.Wait(r.Context(), p, inq.ID, heartbeat)
		if err != nil {
			if r.Context().Err() == nil {
				b, _ := json.Marshal(response{JSONRPC: "2.0", ID: id, Error: rpcErrorOf(err, codeTaskNotFound)})
				fmt.Fprintf(w, "data: %s\n\n", b)
				rc.Flush()
			}
			return nil
		}
		inq = next
		if inq.Status.Final() {
			break
		}
		select {
		case <-a.engine.Draining():
			return nil
		default:
		}
		rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := fmt.Fprint(w, ": waiting for people\n\n"); err != nil || rc.Flush() != nil {
			return nil
		}
	}
	final := taskOf(inq)
	if len(final.Artifacts) > 0 {
		if err := send(artifactUpdate{Kind: "artifact-update", TaskID: final.ID, ContextID: final.ContextID, Artifact: final.Artifacts[0], LastChunk: true}); err != nil {
			return nil
		}
	}
	send(statusUpdate{Kind: "status-update", TaskID: final.ID, ContextID: final.ContextID, Status: final.Status, Final: true, Metadata: final.Metadata})
	return nil
}

// mustJSON encodes the shapes of this package, which always encode.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
