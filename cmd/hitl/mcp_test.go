package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/buildinfo"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// TestMCPOverStdio runs `hitl mcp` as an MCP client does, a child process on stdin and
// stdout, and drives it with the go-sdk's client.
func TestMCPOverStdio(t *testing.T) {
	admin, url := startServer(t)
	ctx := context.Background()
	human, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "ann", Roles: []string{"responder"}})
	if err != nil {
		t.Fatal(err)
	}
	agent, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "bot", Roles: []string{"agent"}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "mcp", "--wait-bound", "2s")
	cmd.Env = append(os.Environ(), "HITL_TEST_RUN_MAIN=1", "HITL_URL="+url, "HITL_TOKEN="+agent.Token)
	cmd.Stderr = os.Stderr
	session, err := sdk.NewClient(&sdk.Implementation{Name: "stdio-test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	if v := session.InitializeResult().ServerInfo.Version; v != buildinfo.Get().Short() {
		t.Fatalf("hitl mcp reports version %q, want %q", v, buildinfo.Get().Short())
	}

	humanClient := client.New(url, human.Token, nil)
	answered := make(chan struct{})
	defer func() { <-answered }()
	go func() {
		defer close(answered)
		var id int64
		if !testserver.WaitFor(10*time.Second, func() bool {
			p, err := humanClient.Inquiries(ctx, client.ListOptions{Status: "pending"})
			if err == nil && len(p.Data) == 1 {
				id = p.Data[0].ID
			}
			return id != 0
		}) {
			t.Error("the tool call asked nothing")
			return
		}
		if _, err := humanClient.Respond(ctx, id, json.RawMessage(`"blue"`), ""); err != nil {
			t.Error(err)
		}
	}()
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "request_user_input",
		Arguments: map[string]any{"prompt": "Which colour?", "request_type": "selection", "options": []string{"red", "blue"}}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if res.IsError || !strings.Contains(text, `"blue"`) {
		t.Fatalf("request_user_input over stdio: %q", text)
	}
	var got struct {
		Status string `json:"status"`
		Answer string `json:"answer"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if json.Unmarshal(b, &got); got.Status != "responded" || got.Answer != "blue" {
		t.Fatalf("structured content %s", b)
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 3 {
		t.Fatalf("an agent's token gets 3 tools, got %d", len(tools.Tools))
	}
	if code, _, errOut := cli(t, "mcp", "--wait-bound", "10m"); code != exitUsage || !strings.Contains(errOut, "wait-bound") {
		t.Fatalf("a bad bound: %d %q", code, errOut)
	}
	// A server that is down: an error at once, not an MCP server that fails every call.
	t.Setenv("HITL_URL", "http://127.0.0.1:1")
	if code, _, errOut := cli(t, "mcp"); code != exitError || !strings.Contains(errOut, "HITL_URL") {
		t.Fatalf("hitl mcp with the server down: %d %q", code, errOut)
	}
}

// TestServeRefusesUnreadableEnvironment: a HITL_* variable that cannot be read stops serve
// with a usage error naming it, rather than running on a default.
func TestServeRefusesUnreadableEnvironment(t *testing.T) {
	t.Setenv("HITL_WEBHOOK_RETRY_BASE", "soon")
	t.Setenv("HITL_WEBHOOK_ALLOW_PRIVATE", "perhaps")
	code, _, errOut := cli(t, "serve", "--addr", "127.0.0.1:0", "--db", t.TempDir()+"/x.db")
	if code != exitUsage || !strings.Contains(errOut, "HITL_WEBHOOK_RETRY_BASE") || !strings.Contains(errOut, "HITL_WEBHOOK_ALLOW_PRIVATE") {
		t.Fatalf("unreadable environment: %d %q", code, errOut)
	}
}

// TestMCPTasksOverStdio: `hitl mcp` runs request_user_input as an MCP task through the REST
// API: the task is created, listed, read and cancelled as the token's principal, and an
// unknown task is a JSON-RPC error. (The go-sdk's client knows no tasks: raw JSON-RPC.)
func TestMCPTasksOverStdio(t *testing.T) {
	admin, url := startServer(t)
	ctx := context.Background()
	agent, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "bot", Roles: []string{"agent"}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "mcp")
	cmd.Env = append(os.Environ(), "HITL_TEST_RUN_MAIN=1", "HITL_URL="+url, "HITL_TOKEN="+agent.Token)
	cmd.Stderr = os.Stderr
	conn, err := (&sdk.CommandTransport{Command: cmd}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	next := int64(0)
	call := func(method string, params any) (json.RawMessage, *jsonrpc.Error) {
		t.Helper()
		next++
		id, _ := jsonrpc.MakeID(float64(next))
		raw, _ := json.Marshal(params)
		if err := conn.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
			t.Fatal(err)
		}
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID == id {
				we, _ := resp.Error.(*jsonrpc.Error)
				return resp.Result, we
			}
		}
	}
	if _, err := call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "1"}}); err != nil {
		t.Fatal(err)
	}
	if err := conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	res, rerr := call("tools/call", map[string]any{"name": "request_user_input", "arguments": map[string]any{"prompt": "As a task?"}, "task": map[string]any{}})
	var created struct {
		Task struct{ TaskID, Status string }
	}
	if rerr != nil || json.Unmarshal(res, &created) != nil || created.Task.Status != "working" {
		t.Fatalf("tools/call as a task: %s %v", res, rerr)
	}
	res, rerr = call("tasks/list", map[string]any{})
	if rerr != nil || !strings.Contains(string(res), `"taskId":"`+created.Task.TaskID+`"`) {
		t.Fatalf("tasks/list: %s %v", res, rerr)
	}
	res, rerr = call("tasks/cancel", map[string]any{"taskId": created.Task.TaskID})
	if rerr != nil || !strings.Contains(string(res), `"status":"cancelled"`) {
		t.Fatalf("tasks/cancel: %s %v", res, rerr)
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(created.Task.TaskID, "inquiry-"), 10, 64)
	must(t, err)
	if inq, err := admin.Inquiry(ctx, id); err != nil || inq.Status != hitl.StatusCancelled || inq.CreatedBy != "bot" {
		t.Fatalf("the task's inquiry: %+v %v", inq, err)
	}
	if _, rerr = call("tasks/get", map[string]any{"taskId": "inquiry-424242"}); rerr == nil || rerr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("an unknown task: %v", rerr)
	}
}

// TestMCPAnswerInClientOverStdioSurvivesTheSettledWait: over stdio the answer and the decline
// given in the client go to the server through the REST API, and the wait for the inquiry
// sees it settled as soon as the server has them, before their own responses come back. A
// proxy holds those responses until the wait's has gone through (and a second more, or until
// hitl mcp gives up on them): the call must still report what the person did, not that the
// server refused it.
func TestMCPAnswerInClientOverStdioSurvivesTheSettledWait(t *testing.T) {
	admin, url := startServer(t)
	ctx := context.Background()
	pat, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "pat", Roles: []string{"agent", "responder"}})
	if err != nil {
		t.Fatal(err)
	}
	target, err := neturl.Parse(url)
	must(t, err)
	var mu sync.Mutex
	var waitedAfter *gate // opens when a wait came back after the submission was sent
	submission := func(r *http.Request) bool {
		return r.Method == http.MethodPost && (strings.HasSuffix(r.URL.Path, "/respond") || strings.HasSuffix(r.URL.Path, "/decline"))
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		if submission(r.Out) {
			mu.Lock()
			waitedAfter = &gate{open: make(chan struct{})}
			mu.Unlock()
		}
	}}
	proxy.ModifyResponse = func(resp *http.Response) error {
		mu.Lock()
		release := waitedAfter
		mu.Unlock()
		switch {
		case release == nil:
		case submission(resp.Request):
			select { // hold the submission's response until a wait's has gone out
			case <-release.open:
			case <-time.After(10 * time.Second):
				t.Error("no wait came back after the submission")
			}
			// and then until hitl mcp gives up on it, or has had a second to: the response
			// that comes after the settled wait is the one the race lost.
			select {
			case <-resp.Request.Context().Done():
			case <-time.After(time.Second):
			}
		case strings.HasSuffix(resp.Request.URL.Path, "/wait"):
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(body))
			if err == nil && !strings.Contains(string(body), `"status":"pending"`) { // the wait that sees it settled
				resp.Body = &closeSignal{ReadCloser: resp.Body, closed: release}
			}
		}
		return nil
	}
	front := httptest.NewServer(proxy)
	defer front.Close()

	for _, action := range []string{"accept", "decline"} {
		cmd := exec.Command(os.Args[0], "mcp", "--wait-bound", "20s")
		cmd.Env = append(os.Environ(), "HITL_TEST_RUN_MAIN=1", "HITL_URL="+front.URL, "HITL_TOKEN="+pat.Token)
		cmd.Stderr = os.Stderr
		elicit := func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			if action == "accept" {
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "blue"}}, nil
			}
			return &sdk.ElicitResult{Action: "decline"}, nil
		}
		session, err := sdk.NewClient(&sdk.Implementation{Name: "stdio-test", Version: "1"},
			&sdk.ClientOptions{ElicitationHandler: elicit}).Connect(ctx, &sdk.CommandTransport{Command: cmd},
			&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // the draft of 2026 sends no elicitation/create in a call
		if err != nil {
			t.Fatal(err)
		}
		res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "request_user_input", Arguments: map[string]any{
			"prompt": "Which colour?", "request_type": "selection", "options": []string{"red", "blue"}, "answer_in_client": true}})
		session.Close()
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*sdk.TextContent).Text
		if res.IsError || strings.Contains(text, "answer_in_client") || strings.Contains(text, "refused") {
			t.Fatalf("%s in the client over stdio: %q", action, text)
		}
		want := map[string]string{"accept": `"status":"responded"`, "decline": `"status":"cancelled"`}[action]
		if !strings.Contains(text, want) {
			t.Fatalf("%s in the client over stdio: %q, want %s", action, text, want)
		}
	}
}

// gate opens once, however many times it is told.
type gate struct {
	open chan struct{}
	once sync.Once
}

// closeSignal opens closed when the body is closed (once the proxy has copied it on).
type closeSignal struct {
	io.ReadCloser
	closed *gate
}

func (c *closeSignal) Close() error {
	c.closed.once.Do(func() { close(c.closed.open) })
	return c.ReadCloser.Close()
}

// TestMCPOverStdioAnswersABadLineAndReadsOn: a line that is not JSON, or JSON that is no
// JSON-RPC message, gets JSON-RPC's error with id null, and `hitl mcp` goes on serving.
func TestMCPOverStdioAnswersABadLineAndReadsOn(t *testing.T) {
	admin, url := startServer(t)
	agent, err := admin.CreateKey(context.Background(), &hitl.KeyRequest{Name: "bot", Roles: []string{"agent"}})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "mcp")
	cmd.Env = append(os.Environ(), "HITL_TEST_RUN_MAIN=1", "HITL_URL="+url, "HITL_TOKEN="+agent.Token)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	defer cmd.Wait()
	defer stdin.Close()
	answers := bufio.NewReader(stdout)
	send := func(line string) string { // one line in, one answer out
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
		answer, err := answers.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer to %s: %v", line, err)
		}
		return answer
	}
	lines := []string{send("{bad"), send(`{"foo":1}`),
		send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`),
		send("\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}`)}
	var parse, invalid struct {
		ID    *int64 `json:"id"`
		Error struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	must(t, json.Unmarshal([]byte(lines[0]), &parse))
	must(t, json.Unmarshal([]byte(lines[1]), &invalid))
	if !strings.Contains(lines[0], `"id":null`) || parse.Error.Code != jsonrpc.CodeParseError || !strings.Contains(parse.Error.Message, "not JSON") {
		t.Fatalf("a line that is not JSON: %s", lines[0])
	}
	if !strings.Contains(lines[1], `"id":null`) || invalid.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("JSON that is no message: %s", lines[1])
	}
	if !strings.Contains(lines[2], `"id":1,"result"`) || !strings.Contains(lines[3], `"id":2,"result"`) {
		t.Fatalf("after the bad lines, initialize and ping: %q", lines[2:])
	}
}
