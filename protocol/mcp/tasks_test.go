package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/protocol/mcp"
)

var ctx = context.Background()

// rawClient speaks JSON-RPC to a server behind mcp.WithTasks, as a client of the tasks
// utility does: the go-sdk's client knows no task methods.
type rawClient struct {
	t     *testing.T
	conn  sdk.Connection
	notes chan *jsonrpc.Request // the server's notifications

	mu      sync.Mutex
	next    int64
	waiting map[jsonrpc.ID]chan *jsonrpc.Response
}

// agent is a principal of a test server with its MCP backend, which follows the server
// across restarts.
type agent struct {
	srv   *testserver.Server
	token string
}

func newAgent(t *testing.T, srv *testserver.Server, name string) agent {
	_, token := srv.Key(hitl.KeyRequest{Name: name, Roles: []string{"agent"}})
	return agent{srv: srv, token: token}
}

func (a agent) backend(t *testing.T) mcp.Backend {
	p, err := a.srv.Engine().Authenticate(ctx, a.token)
	if err != nil {
		t.Fatal(err)
	}
	return mcp.EngineBackend(a.srv.Engine(), p)
}

// connect serves hitl's MCP server, with tasks, to a raw client over in-memory transports,
// and initializes the session at protocol version 2025-11-25. It returns the initialize result.
func (a agent) connect(t *testing.T) (*rawClient, map[string]any) {
	t.Helper()
	clientSide, serverSide := sdk.NewInMemoryTransports()
	return a.connectOn(t, serverSide, clientSide)
}

// connectOn is connect on a given pair of transports.
func (a agent) connectOn(t *testing.T, serverSide, clientSide sdk.Transport) (*rawClient, map[string]any) {
	t.Helper()
	b := a.backend(t)
	ss, err := mcp.NewServer(b, mcp.Options{WaitBound: time.Second}).Connect(ctx, mcp.WithTasks(serverSide, b), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	conn, err := clientSide.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := &rawClient{t: t, conn: conn, notes: make(chan *jsonrpc.Request, 100), waiting: map[jsonrpc.ID]chan *jsonrpc.Response{}}
	t.Cleanup(func() { conn.Close() })
	go c.read()
	var init map[string]any
	c.ok("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "1"}}, &init)
	if err := conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	return c, init
}

func (c *rawClient) read() {
	for {
		msg, err := c.conn.Read(ctx)
		if err != nil {
			return
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			c.mu.Lock()
			ch := c.waiting[m.ID]
			delete(c.waiting, m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case *jsonrpc.Request:
			if !m.IsCall() {
				c.notes <- m
			}
		}
	}
}

// call sends a request and returns its response; params are marshalled unless raw already.
func (c *rawClient) call(method string, params any) *jsonrpc.Response {
	c.t.Helper()
	raw, ok := params.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(params); err != nil {
			c.t.Fatal(err)
		}
	}
	c.mu.Lock()
	c.next++
	id, _ := jsonrpc.MakeID(float64(c.next))
	ch := make(chan *jsonrpc.Response, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	if err := c.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		c.t.Fatal(err)
	}
	select {
	case resp := <-ch:
		return resp
	case <-time.After(20 * time.Second):
		c.t.Fatalf("no answer to %s", method)
		return nil
	}
}

// ok calls and decodes the result into v; an error response fails the test.
func (c *rawClient) ok(method string, params, v any) {
	c.t.Helper()
	resp := c.call(method, params)
	if resp.Error != nil {
		c.t.Fatalf("%s: %v", method, resp.Error)
	}
	if err := json.Unmarshal(resp.Result, v); err != nil {
		c.t.Fatalf("%s: %v in %s", method, err, resp.Result)
	}
}

// fails calls and returns the JSON-RPC error, which it must be.
func (c *rawClient) fails(method string, params any, code int64, says string) {
	c.t.Helper()
	resp := c.call(method, params)
	var we *jsonrpc.Error
	if resp.Error == nil {
		c.t.Fatalf("%s %v: a result %s, want error %d", method, params, resp.Result, code)
	}
	we, _ = resp.Error.(*jsonrpc.Error)
	if we == nil || we.Code != code || !strings.Contains(we.Message, says) {
		c.t.Fatalf("%s %v: error %v, want %d saying %q", method, params, resp.Error, code, says)
	}
}

// task is the specification's Task, as a client reads it.
type task struct {
	TaskID        string  `json:"taskId"`
	Status        string  `json:"status"`
	StatusMessage string  `json:"statusMessage"`
	CreatedAt     string  `json:"createdAt"`
	LastUpdatedAt string  `json:"lastUpdatedAt"`
	TTL           *int64  `json:"ttl"`
	PollInterval  float64 `json:"pollInterval"`
}

// ask calls request_user_input as a task and returns the task.
func (c *rawClient) ask(args map[string]any) task {
	c.t.Helper()
	var created struct {
		Task task           `json:"task"`
		Meta map[string]any `json:"_meta"`
	}
	c.ok("tools/call", map[string]any{"name": "request_user_input", "arguments": args, "task": map[string]any{"ttl": 60000}}, &created)
	if created.Task.Status != "working" || !strings.HasPrefix(created.Task.TaskID, "inquiry-") || created.Task.TTL != nil ||
		created.Task.PollInterval != 5000 || created.Meta["io.modelcontextprotocol/model-immediate-response"] == nil {
		c.t.Fatalf("created %+v", created)
	}
	for _, at := range []string{created.Task.CreatedAt, created.Task.LastUpdatedAt} {
		if _, err := time.Parse(time.RFC3339Nano, at); err != nil {
			c.t.Fatalf("a time that is not ISO 8601: %v", err)
		}
	}
	return created.Task
}

func (c *rawClient) get(taskID string) task {
	c.t.Helper()
	var got task
	c.ok("tasks/get", map[string]any{"taskId": taskID}, &got)
	if got.TaskID != taskID {
		c.t.Fatalf("tasks/get %s returned %s", taskID, got.TaskID)
	}
	return got
}

// toolResult is the result of tasks/result: request_user_input's.
type toolResult struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Structured struct {
		InquiryID int64           `json:"inquiry_id"`
		Status    string          `json:"status"`
		Answer    json.RawMessage `json:"answer"`
		Message   string          `json:"message"`
	} `json:"structuredContent"`
	IsError bool `json:"isError"`
	Meta    map[string]struct {
		TaskID string `json:"taskId"`
	} `json:"_meta"`
}

func (c *rawClient) result(taskID string) toolResult {
	c.t.Helper()
	var r toolResult
	c.ok("tasks/result", map[string]any{"taskId": taskID}, &r)
	if r.Meta["io.modelcontextprotocol/related-task"].TaskID != taskID {
		c.t.Fatalf("tasks/result of %s without its related-task: %+v", taskID, r.Meta)
	}
	return r
}

// note waits for the status notification of a task.
func (c *rawClient) note(taskID string) task {
	c.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case n := <-c.notes:
			var got task
			if n.Method == "notifications/tasks/status" && json.Unmarshal(n.Params, &got) == nil && got.TaskID == taskID {
				return got
			}
		case <-deadline:
			c.t.Fatalf("no status notification for %s", taskID)
		}
	}
}

func inquiryID(t *testing.T, taskID string) int64 {
	var id int64
	if _, err := fmt.Sscanf(taskID, "inquiry-%d", &id); err != nil {
		t.Fatalf("task id %q: %v", taskID, err)
	}
	return id
}

// TestTaskAnswered: the capability and the tool's taskSupport are announced; a task-augmented
// call returns a working task at once; tasks/result waits until a person answers in hitl and
// returns what the tool returns; a status notification says so; tasks/list lists it.
func TestTaskAnswered(t *testing.T) {
	srv := testserver.Start(t)
	c, init := newAgent(t, srv, "bot").connect(t)
	caps, _ := json.Marshal(init["capabilities"].(map[string]any)["tasks"])
	if string(caps) != `{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}}` {
		t.Fatalf("the tasks capability: %s", caps)
	}
	var tools struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	c.ok("tools/list", map[string]any{}, &tools)
	for _, tool := range tools.Tools {
		if (tool.Name == "request_user_input") != (tool.Execution != nil && tool.Execution.TaskSupport == "optional") {
			t.Fatalf("%s with execution %+v", tool.Name, tool.Execution)
		}
	}

	created := c.ask(map[string]any{"prompt": "Ship 1.4 today?", "request_type": "approval"})
	if got := c.get(created.TaskID); got.Status != "working" || !strings.Contains(got.StatusMessage, "Waiting for a person") {
		t.Fatalf("tasks/get before the answer: %+v", got)
	}
	results := make(chan toolResult, 1)
	go func() { results <- c.result(created.TaskID) }()
	// tasks/result and the status watch each wait on the engine, woken by the answer.
	testserver.Eventually(t, 10*time.Second, "two waits parked", func() bool { return srv.Engine().Waiting() >= 2 })
	select {
	case r := <-results:
		t.Fatalf("tasks/result returned before the answer: %+v", r)
	default:
	}
	human, _ := srv.Key(hitl.KeyRequest{Name: "ann", Roles: []string{"responder"}})
	if _, err := human.Respond(ctx, inquiryID(t, created.TaskID), json.RawMessage(`{"approved":true}`), "go"); err != nil {
		t.Fatal(err)
	}
	r := <-results
	if r.IsError || r.Structured.Status != "responded" || string(r.Structured.Answer) != `{"approved":true}` ||
		!strings.HasPrefix(r.Content[0].Text, "The human answered") {
		t.Fatalf("tasks/result: %+v", r)
	}
	if n := c.note(created.TaskID); n.Status != "completed" {
		t.Fatalf("the status notification: %+v", n)
	}
	if got := c.get(created.TaskID); got.Status != "completed" || got.CreatedAt != created.CreatedAt {
		t.Fatalf("tasks/get after the answer: %+v", got)
	}
	// tasks/result of a final task answers at once, as often as asked.
	if again := c.result(created.TaskID); again.Structured.Status != "responded" {
		t.Fatalf("tasks/result again: %+v", again)
	}
	var list struct {
		Tasks      []task  `json:"tasks"`
		NextCursor *string `json:"nextCursor"`
	}
	c.ok("tasks/list", nil, &list)
	if len(list.Tasks) != 1 || list.Tasks[0].TaskID != created.TaskID || list.Tasks[0].Status != "completed" || list.NextCursor != nil {
		t.Fatalf("tasks/list: %+v", list)
	}
}

// TestTaskEndsWithoutAnswer: the deadline under fail fails the task; under a fallback the
// task completes with the fallback.
func TestTaskEndsWithoutAnswer(t *testing.T) {
	srv := testserver.Start(t)
	c, _ := newAgent(t, srv, "bot").connect(t)
	failing := c.ask(map[string]any{"prompt": "Anyone?", "timeout_seconds": 1, "fallback_policy": "fail"})
	fallback := c.ask(map[string]any{"prompt": "Proceed?", "request_type": "approval", "timeout_seconds": 1,
		"fallback_policy": "complete_with_fallback", "fallback_value": map[string]any{"approved": false}})
	if r := c.result(failing.TaskID); r.Structured.Status != "timeout" || r.Structured.Answer != nil {
		t.Fatalf("tasks/result under fail: %+v", r)
	}
	if got := c.get(failing.TaskID); got.Status != "failed" || !strings.Contains(got.StatusMessage, "did not answer") {
		t.Fatalf("a task whose time ran out: %+v", got)
	}
	if r := c.result(fallback.TaskID); string(r.Structured.Answer) != `{"approved":false}` {
		t.Fatalf("tasks/result under a fallback: %+v", r)
	}
	if got := c.get(fallback.TaskID); got.Status != "completed" {
		t.Fatalf("a task completed with its fallback: %+v", got)
	}
}

// TestTaskCancel: tasks/cancel cancels the inquiry; a task that ended cannot be cancelled.
func TestTaskCancel(t *testing.T) {
	srv := testserver.Start(t)
	bot := newAgent(t, srv, "bot")
	c, _ := bot.connect(t)
	created := c.ask(map[string]any{"prompt": "Rotate the keys?"})
	var cancelled task
	c.ok("tasks/cancel", map[string]any{"taskId": created.TaskID}, &cancelled)
	if cancelled.Status != "cancelled" || cancelled.TaskID != created.TaskID {
		t.Fatalf("tasks/cancel: %+v", cancelled)
	}
	inq, err := srv.Client(bot.token).Inquiry(ctx, inquiryID(t, created.TaskID))
	if err != nil || inq.Status != hitl.StatusCancelled {
		t.Fatalf("the inquiry of a cancelled task: %+v %v", inq, err)
	}
	if n := c.note(created.TaskID); n.Status != "cancelled" {
		t.Fatalf("the status notification: %+v", n)
	}
	if r := c.result(created.TaskID); r.Structured.Status != "cancelled" || !strings.Contains(r.Structured.Message, "tasks/cancel") {
		t.Fatalf("tasks/result of a cancelled task: %+v", r)
	}
	c.fails("tasks/cancel", map[string]any{"taskId": created.TaskID}, jsonrpc.CodeInvalidParams, "already cancelled")
}

// TestTaskBadInput: unknown tasks, other keys' tasks, malformed params and calls that cannot
// be tasks are JSON-RPC errors that say what is wrong.
func TestTaskBadInput(t *testing.T) {
	srv := testserver.Start(t)
	bot := newAgent(t, srv, "bot")
	c, _ := bot.connect(t)
	mine := c.ask(map[string]any{"prompt": "Mine?"})
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		for _, id := range []string{"inquiry-999999", "nonsense", "inquiry-0", "inquiry-01", ""} {
			c.fails(method, map[string]any{"taskId": id}, jsonrpc.CodeInvalidParams, "no task")
		}
		c.fails(method, map[string]any{}, jsonrpc.CodeInvalidParams, "needs params.taskId")
		c.fails(method, map[string]any{"taskId": 7}, jsonrpc.CodeInvalidParams, "needs params.taskId")
		c.fails(method, json.RawMessage(`[1]`), jsonrpc.CodeInvalidParams, "needs params.taskId")
	}
	// Another key's task is not found, as are this key's inquiries that are not tasks.
	other, _ := newAgent(t, srv, "other-bot").connect(t)
	for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		other.fails(method, map[string]any{"taskId": mine.TaskID}, jsonrpc.CodeInvalidParams, "no task")
	}
	var list struct{ Tasks []task }
	if other.ok("tasks/list", map[string]any{}, &list); len(list.Tasks) != 0 {
		t.Fatalf("another key lists %+v", list.Tasks)
	}
	plain, _, err := srv.Client(bot.token).CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Not a task"}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.fails("tasks/get", map[string]any{"taskId": fmt.Sprintf("inquiry-%d", plain.ID)}, jsonrpc.CodeInvalidParams, "no task")

	c.fails("tasks/list", map[string]any{"cursor": "bogus"}, jsonrpc.CodeInvalidParams, "cursor")
	c.fails("tasks/list", json.RawMessage(`{"cursor": 3}`), jsonrpc.CodeInvalidParams, "cursor a string")
	c.fails("tools/call", map[string]any{"name": "get_user_input", "arguments": map[string]any{"inquiry_id": plain.ID}, "task": map[string]any{}},
		jsonrpc.CodeMethodNotFound, "does not run as a task")
	c.fails("tools/call", map[string]any{"name": "request_user_input", "arguments": map[string]any{"prompt": "x"}, "task": 5},
		jsonrpc.CodeInvalidParams, "params.task must be an object")
	c.fails("tools/call", map[string]any{"name": "request_user_input", "arguments": map[string]any{"promt": "typo"}, "task": map[string]any{}},
		jsonrpc.CodeInvalidParams, "promt")
	c.fails("tools/call", map[string]any{"name": "request_user_input", "arguments": map[string]any{"prompt": ""}, "task": map[string]any{}},
		jsonrpc.CodeInvalidParams, "prompt")
	// The calls that failed asked nobody; the task that was asked is still there.
	if list := c.get(mine.TaskID); list.Status != "working" {
		t.Fatalf("the task after bad calls: %+v", list)
	}
	c.ok("tasks/list", nil, &list)
	if len(list.Tasks) != 1 {
		t.Fatalf("tasks after bad calls: %+v", list.Tasks)
	}
}

// TestTasksSurviveRestart: a task is its inquiry, so a new connection to a restarted server
// still gets it, lists it, and its result.
func TestTasksSurviveRestart(t *testing.T) {
	srv := testserver.Start(t)
	bot := newAgent(t, srv, "bot")
	before, _ := bot.connect(t)
	created := before.ask(map[string]any{"prompt": "Still there after a restart?"})
	srv.Restart()
	after, _ := bot.connect(t)
	if got := after.get(created.TaskID); got.Status != "working" || got.CreatedAt != created.CreatedAt {
		t.Fatalf("tasks/get after a restart: %+v", got)
	}
	var list struct{ Tasks []task }
	if after.ok("tasks/list", nil, &list); len(list.Tasks) != 1 || list.Tasks[0].TaskID != created.TaskID {
		t.Fatalf("tasks/list after a restart: %+v", list)
	}
	human, _ := srv.Key(hitl.KeyRequest{Name: "ann", Roles: []string{"responder"}})
	if _, err := human.Respond(ctx, inquiryID(t, created.TaskID), json.RawMessage(`"yes"`), ""); err != nil {
		t.Fatal(err)
	}
	if r := after.result(created.TaskID); string(r.Structured.Answer) != `"yes"` {
		t.Fatalf("tasks/result after a restart: %+v", r)
	}
}

// TestToolsWithoutTasks: a client that does not ask for a task (the go-sdk's own, which knows
// none) gets the tools as before, through the wrapper: the bounded wait, then pending.
func TestToolsWithoutTasks(t *testing.T) {
	srv := testserver.Start(t)
	b := newAgent(t, srv, "bot").backend(t)
	clientSide, serverSide := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(b, mcp.Options{WaitBound: time.Second}).Connect(ctx, mcp.WithTasks(serverSide, b), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "go", Version: "1"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "request_user_input", Arguments: map[string]any{"prompt": "Plain call?"}})
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(res.StructuredContent)
	var got struct {
		InquiryID int64  `json:"inquiry_id"`
		Status    string `json:"status"`
	}
	if json.Unmarshal(b2, &got); res.IsError || got.Status != "pending" || got.InquiryID == 0 {
		t.Fatalf("a plain call: %s", b2)
	}
	inq, err := srv.Admin.Inquiry(ctx, got.InquiryID)
	if err != nil || inq.Metadata["mcp_task"] != "" {
		t.Fatalf("a plain call's inquiry is no task: %+v %v", inq, err)
	}
	if tools, err := cs.ListTools(ctx, nil); err != nil || len(tools.Tools) != 3 {
		t.Fatalf("tools through the wrapper: %v %v", tools, err)
	}
}

// TestTaskResultCancelled: a tasks/result the client cancels (notifications/cancelled) stops
// waiting; the task goes on.
func TestTaskResultCancelled(t *testing.T) {
	srv := testserver.Start(t)
	c, _ := newAgent(t, srv, "bot").connect(t)
	created := c.ask(map[string]any{"prompt": "Wait for me?"})
	testserver.Eventually(t, 10*time.Second, "the status watch", func() bool { return srv.Engine().Waiting() == 1 })
	params, _ := json.Marshal(map[string]any{"taskId": created.TaskID})
	id, _ := jsonrpc.MakeID("result-to-cancel")
	if err := c.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: "tasks/result", Params: params}); err != nil {
		t.Fatal(err)
	}
	testserver.Eventually(t, 10*time.Second, "tasks/result waiting", func() bool { return srv.Engine().Waiting() == 2 })
	if err := c.conn.Write(ctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":"result-to-cancel"}`)}); err != nil {
		t.Fatal(err)
	}
	testserver.Eventually(t, 10*time.Second, "tasks/result to stop", func() bool { return srv.Engine().Waiting() == 1 })
	if got := c.get(created.TaskID); got.Status != "working" {
		t.Fatalf("the task after its result's wait was cancelled: %+v", got)
	}
}

// TestTasksOverStreamableHTTP: on a session of streamable HTTP, the wrapper starts tasks and
// announces them (the connection sends each response on the stream of its request), and
// answerTaskRequest answers the task methods, which the transport would refuse.
func TestTasksOverStreamableHTTP(t *testing.T) {
	srv := testserver.Start(t)
	bot := newAgent(t, srv, "bot")
	b := bot.backend(t)
	serverSide := &sdk.StreamableServerTransport{SessionID: "tasks-session"}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !mcp.AnswerTaskRequest(w, r, b) {
			serverSide.ServeHTTP(w, r)
		}
	}))
	defer web.Close()
	c, init := bot.connectOn(t, serverSide, &sdk.StreamableClientTransport{Endpoint: web.URL})
	if init["capabilities"].(map[string]any)["tasks"] == nil {
		t.Fatalf("no tasks capability over HTTP: %v", init)
	}
	created := c.ask(map[string]any{"prompt": "Over HTTP?"})
	results := make(chan toolResult, 1)
	go func() { results <- c.result(created.TaskID) }()
	testserver.Eventually(t, 10*time.Second, "tasks/result waiting", func() bool { return srv.Engine().Waiting() >= 2 })
	human, _ := srv.Key(hitl.KeyRequest{Name: "ann", Roles: []string{"responder"}})
	if _, err := human.Respond(ctx, inquiryID(t, created.TaskID), json.RawMessage(`"over HTTP"`), ""); err != nil {
		t.Fatal(err)
	}
	if r := <-results; string(r.Structured.Answer) != `"over HTTP"` {
		t.Fatalf("tasks/result over HTTP: %+v", r)
	}
	var cancelled task
	second := c.ask(map[string]any{"prompt": "Cancel me over HTTP"})
	if c.ok("tasks/cancel", map[string]any{"taskId": second.TaskID}, &cancelled); cancelled.Status != "cancelled" {
		t.Fatalf("tasks/cancel over HTTP: %+v", cancelled)
	}
	c.fails("tasks/get", map[string]any{"taskId": "inquiry-999"}, jsonrpc.CodeInvalidParams, "no task")
}

// TestTaskListPages: tasks/list gives 50 tasks a page, newest first, and the cursor of the next.
func TestTaskListPages(t *testing.T) {
	srv := testserver.Start(t)
	c, _ := newAgent(t, srv, "bot").connect(t)
	var asked []string
	for i := range 51 {
		asked = append(asked, c.ask(map[string]any{"prompt": fmt.Sprintf("Question %d?", i)}).TaskID)
	}
	var first, second struct {
		Tasks      []task `json:"tasks"`
		NextCursor string `json:"nextCursor"`
	}
	c.ok("tasks/list", map[string]any{}, &first)
	if len(first.Tasks) != 50 || first.Tasks[0].TaskID != asked[50] || first.NextCursor == "" {
		t.Fatalf("the first page: %d tasks, first %s, cursor %q", len(first.Tasks), first.Tasks[0].TaskID, first.NextCursor)
	}
	c.ok("tasks/list", map[string]any{"cursor": first.NextCursor}, &second)
	if len(second.Tasks) != 1 || second.Tasks[0].TaskID != asked[0] || second.NextCursor != "" {
		t.Fatalf("the second page: %+v", second)
	}
}
