package mcp

// Tasks: request_user_input as an MCP task, the tasks utility of the 2025-11-25 specification.
// A task-augmented tools/call returns the task at once; tasks/get, tasks/result, tasks/cancel
// and tasks/list follow it; notifications/tasks/status says when it ends. So a client need not
// hold a tool call open while a person takes hours.
//
// The go-sdk does not know tasks: it refuses methods it does not know before any middleware,
// and drops the task field of tools/call. So tasks live in a wrapper of the transport, under
// the SDK's server: it answers the task methods and the task-augmented calls of
// request_user_input itself, writing their responses to the connection; it adds the tasks
// capability to the initialize result and execution.taskSupport to request_user_input in
// tools/list; everything else passes through untouched. Over streamable HTTP the transport
// itself refuses the task methods before its connection reads them, so answerTaskRequest
// answers those in front of it. (The wrapper hides the SDK's unexported hooks on its own
// connections: stdio's refusal of JSON-RPC batches from version 2025-06-18 on, HTTP's
// propagation of a request's cancellation, used by the 2026 protocol's subscriptions.)
//
// A task is an inquiry: its id names the inquiry ("inquiry-42"), so that tasks/get still
// answers after a restart, and every answer is read through the Backend, as its principal.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
)

const (
	// taskIDPrefix and the inquiry's id make the task's id.
	taskIDPrefix = "inquiry-"
	// taskMetadataKey marks the inquiries asked as tasks, in their metadata: tasks/list lists
	// them, and only they are tasks to tasks/get (the spec has both agree).
	taskMetadataKey = "mcp_task"
	// taskPollInterval is how often clients are asked to poll tasks/get: people take minutes.
	taskPollInterval = 5 * time.Second
	// taskWaitChunk is one wait of tasks/result and of the status watch, under the longest
	// wait the engine and the REST API allow.
	taskWaitChunk = 4 * time.Minute
	// maxTaskWatchers bounds the waits a connection keeps open to send status notifications;
	// the tasks beyond it are polled only (the notifications are optional).
	maxTaskWatchers = 32
	// taskListPage is the number of tasks in a page of tasks/list.
	taskListPage = 50

	relatedTaskMeta       = "io.modelcontextprotocol/related-task"
	immediateResponseMeta = "io.modelcontextprotocol/model-immediate-response"
)

// tasksCapability is the server capability: tasks/list, tasks/cancel, and tools/call as a task.
var tasksCapability = json.RawMessage(`{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`)

// WithTasks returns t, wrapped so that the server connected on it runs request_user_input
// as an MCP task when the client asks so; b is the backend of that server's tools. Clients
// that do not ask get the tool as before.
func WithTasks(t sdk.Transport, b Backend) sdk.Transport { return &taskTransport{inner: t, b: b} }

type taskTransport struct {
	inner sdk.Transport
	b     Backend
}

func (t *taskTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	// The connection outlives the call that opened it (over HTTP, the first request).
	life, end := context.WithCancel(context.WithoutCancel(ctx))
	return &taskConn{Connection: conn, b: t.b, life: life, end: end,
		amend: map[jsonrpc.ID]string{}, answering: map[jsonrpc.ID]context.CancelFunc{}}, nil
}

// SupportsProtocolVersion keeps what the wrapped transport says of the versions it serves.
func (t *taskTransport) SupportsProtocolVersion(version string) bool {
	if s, ok := t.inner.(sdk.ProtocolVersionSupporter); ok {
		return s.SupportsProtocolVersion(version)
	}
	return true
}

// taskConn is one connection, wrapped.
type taskConn struct {
	sdk.Connection
	b    Backend
	life context.Context // ends when the connection closes
	end  context.CancelFunc

	mu sync.Mutex
	// amend holds the initialize and tools/list calls whose results get the task fields.
	amend map[jsonrpc.ID]string
	// answering holds the requests the wrapper is answering, to stop on notifications/cancelled.
	answering map[jsonrpc.ID]context.CancelFunc
	watchers  int
}

func (c *taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return msg, err
		}
		if req, ok := msg.(*jsonrpc.Request); !ok || !c.takes(req) {
			return msg, nil
		}
	}
}

func (c *taskConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		method, found := c.amend[resp.ID]
		delete(c.amend, resp.ID)
		c.mu.Unlock()
		if found && resp.Error == nil {
			msg = c.amended(method, resp)
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *taskConn) Close() error {
	c.end()
	return c.Connection.Close()
}

// takes reports whether the wrapper answers req itself, and then starts answering it; it
// notes the calls whose results it amends, and stops a request the client cancelled.
func (c *taskConn) takes(req *jsonrpc.Request) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil && c.answering[id] != nil {
				c.answering[id]()
			}
		}
		return false // the SDK's own requests may be the ones cancelled
	case !req.IsCall():
		return false
	case req.Method == "initialize" || req.Method == "tools/list":
		c.amend[req.ID] = req.Method
		return false
	}
	method := taskMethods{c.b}.of(req)
	if method == nil || c.answering[req.ID] != nil {
		return false // not a task request, or an id in use: the SDK says what is wrong
	}
	ctx, cancel := context.WithCancel(c.life)
	c.answering[req.ID] = cancel
	go c.answer(ctx, cancel, req, method)
	return true
}

// taskMethod answers one request the wrapper takes.
type taskMethod func(ctx context.Context, params json.RawMessage) (any, error)

// taskMethods answer the task methods, and task-augmented calls, as the backend's principal.
type taskMethods struct{ b Backend }

// of returns the method that answers req, nil when req is not the wrapper's.
func (m taskMethods) of(req *jsonrpc.Request) taskMethod {
	switch req.Method {
	case "tasks/get":
		return m.getTask
	case "tasks/result":
		return m.taskResult
	case "tasks/cancel":
		return m.cancelTask
	case "tasks/list":
		return m.listTasks
	case "tools/call":
		var p struct {
			Task json.RawMessage `json:"task"`
		}
		if json.Unmarshal(req.Params, &p) == nil && len(p.Task) > 0 && string(p.Task) != "null" {
			return m.startTask
		}
	}
	return nil
}

// answer writes method's answer to req, unless the client cancelled req or went away.
func (c *taskConn) answer(ctx context.Context, cancel context.CancelFunc, req *jsonrpc.Request, method taskMethod) {
	defer func() {
		cancel()
		c.mu.Lock()
		delete(c.answering, req.ID)
		c.mu.Unlock()
	}()
	result, err := method(ctx, req.Params)
	resp := taskResponse(req.ID, result, err)
	if ctx.Err() != nil {
		return
	}
	if c.Connection.Write(c.life, resp) == nil {
		if created, ok := result.(createdTask); ok {
			c.watch(created.inquiry)
		}
	}
}

// taskResponse is the response to request id: the result, or the error as JSON-RPC's.
func taskResponse(id jsonrpc.ID, result any, err error) *jsonrpc.Response {
	resp := &jsonrpc.Response{ID: id}
	if err == nil {
		resp.Result, err = json.Marshal(result)
	}
	if err != nil {
		resp.Error = rpcError(err)
	}
	return resp
}

// answerTaskRequest answers a POST of streamable HTTP whose body carries one of the task
// methods (tasks/get, tasks/result, tasks/cancel, tasks/list) as b's principal, and reports
// whether it did. The go-sdk's streamable transport refuses the methods its server does not
// know before its connection reads them, so WithTasks never sees these over HTTP; they need
// no session, only the principal. Any other request is left to the transport.
func answerTaskRequest(w http.ResponseWriter, r *http.Request, body []byte, b Backend) bool {
	if !bytes.Contains(body, []byte(`"tasks/`)) { // most requests: nothing to decode
		return false
	}
	msg, err := jsonrpc.DecodeMessage(body)
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok || !req.IsCall() || !strings.HasPrefix(req.Method, "tasks/") {
		return false
	}
	method := taskMethods{b}.of(req)
	if method == nil {
		return false // the transport says the method is unknown
	}
	result, err := method(r.Context(), req.Params)
	answer, _ := jsonrpc.EncodeMessage(taskResponse(req.ID, result, err)) // JSON already: it encodes
	w.Header().Set("Content-Type", "application/json")
	w.Write(answer)
	return true
}

// amended is resp with the task fields: the capability in the initialize result,
// execution.taskSupport of request_user_input in tools/list.
func (c *taskConn) amended(method string, resp *jsonrpc.Response) jsonrpc.Message {
	var result map[string]json.RawMessage
	if json.Unmarshal(resp.Result, &result) != nil {
		return resp
	}
	switch method {
	case "initialize":
		var caps map[string]json.RawMessage
		if json.Unmarshal(result["capabilities"], &caps) != nil || caps == nil {
			caps = map[string]json.RawMessage{}
		}
		caps["tasks"] = tasksCapability
		result["capabilities"], _ = json.Marshal(caps)
	case "tools/list":
		var tools []map[string]json.RawMessage
		if json.Unmarshal(result["tools"], &tools) != nil {
			return resp
		}
		for _, tool := range tools {
			if string(tool["name"]) == strconv.Quote(hitl.ToolRequestUserInput) {
				tool["execution"] = json.RawMessage(`{"taskSupport":"optional"}`)
			}
		}
		result["tools"], _ = json.Marshal(tools)
	}
	body, err := json.Marshal(result)
	if err != nil {
		return resp
	}
	return &jsonrpc.Response{ID: resp.ID, Result: body}
}

// task is the specification's Task.
type task struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTL is always null, unlimited: a task lasts as long as its inquiry.
	TTL          *int64 `json:"ttl"`
	PollInterval int64  `json:"pollInterval"`
}

func taskID(inquiryID int64) string { return taskIDPrefix + strconv.FormatInt(inquiryID, 10) }

// taskOf is the task an inquiry is: working while pending; completed with an answer (a
// person's, or the fallback when the time ran out); failed when it ran out with no answer;
// cancelled when cancelled or declined.
func taskOf(inq *hitl.Inquiry) task {
	t := task{TaskID: taskID(inq.ID), Status: "working", CreatedAt: inq.CreatedAt.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt: inq.UpdatedAt.UTC().Format(time.RFC3339Nano), PollInterval: taskPollInterval.Milliseconds()}
	switch {
	case inq.Status == hitl.StatusPending:
		t.StatusMessage = fmt.Sprintf("Waiting for a person to answer inquiry %d.", inq.ID)
		if inq.TimeoutAt != nil {
			t.StatusMessage = fmt.Sprintf("Waiting for a person to answer inquiry %d, until %s.", inq.ID, inq.TimeoutAt.UTC().Format(time.RFC3339))
		}
		return t
	case inq.Status == hitl.StatusResponded, inq.Status == hitl.StatusTimeout && inq.FallbackApplied:
		t.Status = "completed"
	case inq.Status == hitl.StatusTimeout:
		t.Status = "failed"
	default:
		t.Status = "cancelled"
	}
	t.StatusMessage = taskResultOf(inq).Message
	return t
}

// createdTask is the result of a task-augmented tools/call; the inquiry is its task's.
type createdTask struct {
	Task    task           `json:"task"`
	Meta    map[string]any `json:"_meta"`
	inquiry *hitl.Inquiry
}

// startTask asks the question of a task-augmented call of request_user_input, and returns
// its task at once.
func (m taskMethods) startTask(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Task      json.RawMessage `json:"task"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, invalidParams("tools/call params must be an object of name, arguments and task")
	}
	if p.Name != hitl.ToolRequestUserInput {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf(
			"tool %q does not run as a task: call it without params.task (of hitl's tools only %s does)", p.Name, hitl.ToolRequestUserInput)}
	}
	var creation map[string]json.RawMessage
	if err := json.Unmarshal(p.Task, &creation); err != nil || creation == nil {
		return nil, invalidParams(`params.task must be an object, like {"ttl": 60000}`)
	}
	var ttl *float64
	if raw, ok := creation["ttl"]; ok && json.Unmarshal(raw, &ttl) != nil {
		return nil, invalidParams(`params.task.ttl must be a number of milliseconds, like {"ttl": 60000}`)
	}
	var args hitl.ToolArguments
	if err := decodeArgs(p.Arguments, &args); err != nil {
		return nil, err
	}
	req := args.InquiryRequest(nil)
	req.Metadata = map[string]string{taskMetadataKey: "true"}
	if args.AnswerInClient {
		if err := m.b.MayAnswerInClient(nil); err != nil {
			return nil, err
		}
		req.Metadata[taskNotAskedKey] = "true"
	}
	inq, err := m.b.CreateInquiry(ctx, req, "mcp-"+rand.Text())
	if err != nil {
		return nil, err
	}
	return createdTask{Task: taskOf(inq), inquiry: inq, Meta: map[string]any{immediateResponseMeta: taskNoted(inq, fmt.Sprintf(
		"A person has been asked (inquiry %d). Their answer will be the result of task %s.", inq.ID, taskID(inq.ID)))}}, nil
}

// taskNotAskedKey marks, in its metadata, the inquiry of a task whose call had answer_in_client:
// the task's messages say that the client was not asked.
const taskNotAskedKey = "mcp_answer_in_client"

// taskNoted is message, with the note that the client was not asked when the task's call had
// answer_in_client.
func taskNoted(inq *hitl.Inquiry, message string) string {
	if inq.Metadata[taskNotAskedKey] == "" {
		return message
	}
	return message + " (answer_in_client: " + notAskedAsTask + ".)"
}

// taskResultOf is the task's result: request_user_input's, with the task's note.
func taskResultOf(inq *hitl.Inquiry) result {
	r := resultOf(inq)
	r.Message = taskNoted(inq, r.Message)
	return r
}

// watch sends a status notification when the inquiry of a task started here is final.
func (c *taskConn) watch(inq *hitl.Inquiry) {
	c.mu.Lock()
	full := c.watchers >= maxTaskWatchers
	if !full {
		c.watchers++
	}
	c.mu.Unlock()
	if full {
		return
	}
	go func() {
		defer func() {
			c.mu.Lock()
			c.watchers--
			c.mu.Unlock()
		}()
		for inq.Status == hitl.StatusPending {
			next, err := c.b.Wait(c.life, inq.ID, taskWaitChunk)
			if err != nil {
				return // the notification is optional; the client polls
			}
			inq = next
		}
		params, err := json.Marshal(taskOf(inq))
		if err == nil {
			c.Connection.Write(c.life, &jsonrpc.Request{Method: "notifications/tasks/status", Params: params})
		}
	}()
}

// task reads params.taskId and returns the inquiry of that task, when it is one this
// principal started; any other id is not found, whoever's inquiry it names.
func (m taskMethods) task(ctx context.Context, method string, params json.RawMessage) (*hitl.Inquiry, error) {
	var p struct {
		TaskID *string `json:"taskId"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.TaskID == nil {
		return nil, invalidParams("%s needs params.taskId: the id of a task, as tools/call returned it (like %s42)", method, taskIDPrefix)
	}
	notFound := invalidParams("Failed to retrieve task: no task %q; tasks are the questions this key asked as tasks", *p.TaskID)
	digits, ok := strings.CutPrefix(*p.TaskID, taskIDPrefix)
	id, err := strconv.ParseInt(digits, 10, 64)
	if !ok || err != nil || id <= 0 || taskID(id) != *p.TaskID {
		return nil, notFound
	}
	inq, err := m.b.Wait(ctx, id, 0)
	if hitl.ErrorCode(err) == hitl.ENotFound {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	if inq.Metadata[taskMetadataKey] == "" || inq.CreatedBy != m.b.Name() {
		return nil, notFound
	}
	return inq, nil
}

func (m taskMethods) getTask(ctx context.Context, params json.RawMessage) (any, error) {
	inq, err := m.task(ctx, "tasks/get", params)
	if err != nil {
		return nil, err
	}
	return taskOf(inq), nil
}

// taskResult waits until the task ends, and returns what request_user_input would have.
func (m taskMethods) taskResult(ctx context.Context, params json.RawMessage) (any, error) {
	inq, err := m.task(ctx, "tasks/result", params)
	for err == nil && inq.Status == hitl.StatusPending {
		inq, err = m.b.Wait(ctx, inq.ID, taskWaitChunk)
	}
	if err != nil {
		return nil, err
	}
	r := taskResultOf(inq)
	res, err := structured(r.Message, r)
	if err != nil {
		return nil, err
	}
	res.Meta = sdk.Meta{relatedTaskMeta: map[string]string{"taskId": taskID(inq.ID)}}
	return res, nil
}

// cancelTask cancels the task's inquiry, which was pending.
func (m taskMethods) cancelTask(ctx context.Context, params json.RawMessage) (any, error) {
	inq, err := m.task(ctx, "tasks/cancel", params)
	if err != nil {
		return nil, err
	}
	if inq.Status != hitl.StatusPending {
		return nil, alreadyEnded(inq)
	}
	cancelled, err := m.b.Cancel(ctx, inq.ID, "cancelled by the MCP client (tasks/cancel)")
	var he *hitl.Error
	if errors.As(err, &he) && he.Code == hitl.EConflict && he.Inquiry != nil {
		return nil, alreadyEnded(he.Inquiry) // it ended meanwhile
	}
	if err != nil {
		return nil, err
	}
	return taskOf(cancelled), nil
}

func alreadyEnded(inq *hitl.Inquiry) error {
	t := taskOf(inq)
	return invalidParams("Cannot cancel task %s: it is already %s (only a working task can be cancelled)", t.TaskID, t.Status)
}

// listTasks lists the principal's tasks, newest first, a page at a time.
func (m taskMethods) listTasks(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	if len(params) > 0 && string(params) != "null" {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, invalidParams("tasks/list params must be an object, with cursor a string")
		}
	}
	inqs, next, err := m.b.Asked(ctx, map[string]string{taskMetadataKey: "true"}, hitl.Page{Cursor: p.Cursor, Limit: taskListPage})
	if hitl.ErrorCode(err) == hitl.EInvalid {
		return nil, invalidParams("tasks/list: the cursor is not one this server gave out")
	}
	if err != nil {
		return nil, err
	}
	list := struct {
		Tasks      []task `json:"tasks"`
		NextCursor string `json:"nextCursor,omitempty"`
	}{Tasks: []task{}, NextCursor: next}
	for _, inq := range inqs {
		list.Tasks = append(list.Tasks, taskOf(inq))
	}
	return list, nil
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// rpcError is err as a JSON-RPC error: hitl's invalid input and not found are invalid params,
// what the principal may not do is an invalid request, the rest internal errors; the message
// is hitl's, with every field that failed.
func rpcError(err error) *jsonrpc.Error {
	var re *jsonrpc.Error
	if errors.As(err, &re) {
		return re
	}
	var he *hitl.Error
	if !errors.As(err, &he) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	code := int64(jsonrpc.CodeInternalError)
	switch he.Code {
	case hitl.EInvalid, hitl.ENotFound, hitl.ETooLarge:
		code = jsonrpc.CodeInvalidParams
	case hitl.EUnauthorized, hitl.EForbidden, hitl.EConflict, hitl.ERateLimited:
		code = jsonrpc.CodeInvalidRequest
	}
	return &jsonrpc.Error{Code: code, Message: he.Detailed("; ")}
}
