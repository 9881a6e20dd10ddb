package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// TestReceiptVerify runs hitl receipt verify against a real server: a receipt verifies with
// its arguments (given in another member order and spacing), from stdin too; other
// arguments, another issuer and, after two rotations (hitl keys rotate-signing), the key
// rotated out each exit 1 with the reason.
func TestReceiptVerify(t *testing.T) {
	admin, url := startServer(t)
	ctx := context.Background()
	k, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "ann", Roles: []string{hitl.RoleResponder}})
	if err != nil {
		t.Fatal(err)
	}
	inq, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval,
		ToolCall:         &hitl.ToolCall{ID: "c1", Name: "deploy", Arguments: json.RawMessage(`{"env":"prod","replicas":3}`)},
		AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionReject}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := client.New(url, k.Token, nil).Respond(ctx, inq.ID, json.RawMessage(`{"decision":"approve"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	args, other := filepath.Join(dir, "args.json"), filepath.Join(dir, "other.json")
	os.WriteFile(args, []byte(`{ "replicas": 3, "env": "prod" }`), 0o600)
	os.WriteFile(other, []byte(`{"replicas":30,"env":"prod"}`), 0o600)

	code, stdout, stderr := cli(t, "receipt", "verify", out.Receipt, "--args", args)
	if code != 0 || !strings.Contains(stdout, "valid: inquiry "+jsonNumber(inq.ID)+", approve by ann") || !strings.Contains(stdout, "tool: deploy") || !strings.Contains(stdout, "expires: ") {
		t.Fatalf("verify: %d %q %q", code, stdout, stderr)
	}
	if code, _, stderr := cli(t, "receipt", "verify", out.Receipt, "--jwks", url+"/.well-known/jwks.json", "--issuer", url+"/"); code != 0 {
		t.Fatalf("verify with --jwks: %d %q", code, stderr)
	}
	var o, e bytes.Buffer
	if code := run(ctx, []string{"receipt", "verify", "-"}, strings.NewReader(out.Receipt+"\n"), &o, &e); code != 0 || !strings.Contains(o.String(), "approve by ann") {
		t.Fatalf("verify from stdin: %d %q %q", code, o.String(), e.String())
	}
	for _, tc := range []struct {
		args   []string
		reason string
	}{
		{[]string{"--args", other}, "(args_mismatch): the arguments differ from those approved"},
		{[]string{"--issuer", "https://elsewhere.example.com"}, "(wrong_issuer): issued by " + url + ", not https://elsewhere.example.com"},
	} {
		code, _, stderr := cli(t, append([]string{"receipt", "verify", out.Receipt}, tc.args...)...)
		if code != 1 || !strings.Contains(stderr, tc.reason) {
			t.Fatalf("verify %v: %d %q, want 1 and %q", tc.args, code, stderr, tc.reason)
		}
	}
	if code, _, stderr := cli(t, "receipt", "verify", "not-a-receipt"); code != 1 || !strings.Contains(stderr, "(malformed): the receipt is not a compact JWS hitl issued") {
		t.Fatalf("a token that is no receipt: %d %q", code, stderr)
	}
	// A --jwks URL nobody answers is named as itself, not as the configured server.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nowhere := "http://" + l.Addr().String() + "/.well-known/jwks.json"
	l.Close()
	if code, _, stderr := cli(t, "receipt", "verify", out.Receipt, "--jwks", nowhere); code != 1 || !strings.Contains(stderr, "cannot fetch the receipt keys from "+nowhere) || strings.Contains(stderr, url) {
		t.Fatalf("a --jwks URL nobody answers: %d %q", code, stderr)
	}
	for range 2 {
		if code, _, stderr := cli(t, "keys", "rotate-signing"); code != 0 || !strings.Contains(stderr, "Receipts are signed with key ") {
			t.Fatalf("keys rotate-signing: %d %q", code, stderr)
		}
	}
	if code, _, stderr := cli(t, "receipt", "verify", out.Receipt); code != 1 || !strings.Contains(stderr, "(unknown_key)") || !strings.Contains(stderr, "rotated out?") {
		t.Fatalf("a receipt of the key rotated out: %d %q", code, stderr)
	}
}

func jsonNumber(id int64) string { b, _ := json.Marshal(id); return string(b) }
