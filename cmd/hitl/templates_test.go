package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestTemplatesCommands(t *testing.T) {
	admin, _ := startServer(t)
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "deploy-approval.json")
	if err := os.WriteFile(file, []byte(`{"prompt":"Deploy {{.service}} {{.version}}?{{if .note}} {{.note}}{{end}}","request_type":"approval",
		"assigned_to":["group:sre"],"vars_schema":{"type":"object","required":["version"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := cli(t, "templates", "set", "deploy-approval", "--file", file)
	if code != 0 || !strings.Contains(errOut, "Template deploy-approval created; ask with it: hitl ask --template deploy-approval --var service=… --var version=… --var note=…") {
		t.Fatalf("templates set: %d %q", code, errOut)
	}
	// From stdin, replacing it.
	var out, errBuf bytes.Buffer
	stdin := strings.NewReader(`{"prompt":"Deploy {{.service}} {{.version}}?","request_type":"approval","assigned_to":["group:sre"]}`)
	if code := run(ctx, []string{"templates", "set", "deploy-approval"}, stdin, &out, &errBuf); code != 0 || !strings.Contains(errBuf.String(), "replaced") {
		t.Fatalf("templates set from stdin: %d %q", code, errBuf.String())
	}
	// Refused: a misspelt field (read strictly here), a function in the prompt (by the server).
	if code, _, errOut := cli(t, "templates", "set", "x", "--file", writeTemp(t, `{"promt":"x"}`)); code != exitUsage || !strings.Contains(errOut, "promt") {
		t.Fatalf("misspelt field: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "templates", "set", "x", "--file", writeTemp(t, `{"prompt":"{{printf \"%s\" .v}}","request_type":"poll"}`)); code != exitError ||
		!strings.Contains(errOut, "/prompt") || !strings.Contains(errOut, "calls no functions") || !strings.Contains(errOut, "/request_type") {
		t.Fatalf("bad template: %d %q", code, errOut)
	}
	code, stdout, _ := cli(t, "templates", "ls")
	if code != 0 || !strings.Contains(stdout, "deploy-approval") || !strings.Contains(stdout, "approval") || !strings.Contains(stdout, "Deploy {{.service}} {{.version}}?") || strings.Contains(stdout, "\nx ") {
		t.Fatalf("templates ls: %d %q", code, stdout)
	}

	// hitl ask --template waits like any ask; its flags replace the template's fields (the
	// assignees here: admins answer only what is assigned to them too).
	type result struct {
		code           int
		stdout, stderr string
	}
	ch := make(chan result, 1)
	go func() {
		code, out, errOut := cli(t, "ask", "--template", "deploy-approval", "--var", "service=api", "--var", "version=v2.5.0", "--timeout", "1h", "--assign", "admin")
		ch <- result{code, out, errOut}
	}()
	id := pendingID(t, admin)
	inq, err := admin.Inquiry(ctx, id)
	if err != nil || inq.Prompt != "Deploy api v2.5.0?" || inq.Template != "deploy-approval" || !slices.Equal(inq.AssignedTo, []string{"admin"}) || inq.TimeoutAt == nil {
		t.Fatalf("asked with the template: %+v %v", inq, err)
	}
	if code, _, errOut := cli(t, "respond", fmt.Sprint(id), "--approve"); code != 0 {
		t.Fatalf("respond: %d %s", code, errOut)
	}
	if r := <-ch; r.code != exitOK || strings.TrimSpace(r.stdout) != `{"approved":true}` {
		t.Fatalf("ask --template: %d %q %q", r.code, r.stdout, r.stderr)
	}
	// A var that is JSON is JSON: 3 is written 3, "3" (with its quotes) as 3 too, {"a":1} as its JSON.
	vars, err := varsArg([]string{"n=3", `s="3"`, `o={"a":1}`, "w=v2.5.0", "e="})
	if err != nil || string(vars) != `{"e":"","n":3,"o":{"a":1},"s":"3","w":"v2.5.0"}` {
		t.Fatalf("varsArg: %s %v", vars, err)
	}

	// Refused: a var the prompt needs and --var does not give (named), no template, bad --var.
	if code, _, errOut := cli(t, "ask", "--template", "deploy-approval", "--var", "service=api"); code != exitError ||
		!strings.Contains(errOut, "template deploy-approval uses {{.version}}, which vars does not give") {
		t.Fatalf("missing var: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "ask", "--template", "nope"); code != exitError || !strings.Contains(errOut, `unknown template "nope"`) {
		t.Fatalf("unknown template: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "ask", "Deploy?", "--var", "a=b"); code != exitUsage || !strings.Contains(errOut, "--template") {
		t.Fatalf("--var without --template: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "ask", "--template", "deploy-approval", "--var", "novalue"); code != exitUsage || !strings.Contains(errOut, "NAME=VALUE") {
		t.Fatalf("bad --var: %d %q", code, errOut)
	}
	if code, _, _ := cli(t, "ask"); code != exitUsage {
		t.Fatalf("ask without prompt or template: %d", code)
	}

	if code, _, _ := cli(t, "templates", "rm", "deploy-approval"); code != 0 {
		t.Fatalf("templates rm: %d", code)
	}
	if code, _, errOut := cli(t, "templates", "rm", "deploy-approval"); code != exitError || !strings.Contains(errOut, "not found") {
		t.Fatalf("templates rm twice: %d %q", code, errOut)
	}
	if ts, _ := admin.Templates(ctx); len(ts) != 0 {
		t.Fatalf("after rm: %+v", ts)
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "t.json")
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}
