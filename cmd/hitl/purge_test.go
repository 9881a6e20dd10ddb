package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// hitl purge on a real database file: what ended before the date goes, what waits stays, the
// audit chain still verifies, and bad dates, the future and a non-admin are refused with
// words that say why.
func TestPurgeByHand(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	s := testserver.Start(t, testserver.DB(path))
	t.Setenv("HITL_URL", s.URL)
	t.Setenv("HITL_TOKEN", s.AdminToken)
	t.Setenv("HITL_CREDENTIALS", filepath.Join(t.TempDir(), "credentials.json"))
	agent, _ := s.Key(hitl.KeyRequest{Name: "bot", Roles: []string{hitl.RoleAgent}})
	responder, responderToken := s.Key(hitl.KeyRequest{Name: "ada", Roles: []string{hitl.RoleResponder}})
	var ids []int64
	for i := range 3 {
		inq, _, err := agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: fmt.Sprintf("Ship %d?", i), RequestType: hitl.RequestApproval}, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, inq.ID)
		if i < 2 {
			if _, err := responder.Respond(ctx, inq.ID, []byte(`{"approved":true}`), "ok"); err != nil {
				t.Fatal(err)
			}
		}
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"purge"}, exitUsage, "--before: required"},
		{[]string{"purge", "--before", "last tuesday"}, exitUsage, `"last tuesday" is neither a day`},
		{[]string{"purge", "--before", "-5d"}, exitUsage, "neither a day"},
		{[]string{"purge", "--before", "2999-01-01"}, exitError, "is in the future: only what has already ended can be removed"},
	} {
		code, _, errOut := cli(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("hitl %s: %d %q; want %d and %q", strings.Join(c.args, " "), code, errOut, c.code, c.want)
		}
	}
	t.Setenv("HITL_TOKEN", responderToken)
	if code, _, errOut := cli(t, "purge", "--before", "1d"); code != exitError || !strings.Contains(errOut, "this needs the admin role") {
		t.Errorf("a responder's purge: %d %q", code, errOut)
	}
	// A responder's request is refused as such, whatever its body says.
	if r := postJSON(t, s.URL+"/v1/retention/purge", responderToken, `{"before":"yesterday"}`); r.status != 403 {
		t.Errorf("a responder's purge with a bad body: %d %s; want 403", r.status, r.body)
	}
	t.Setenv("HITL_TOKEN", s.AdminToken)

	// The answers ended before now; the outbox reads their events within a second, and
	// only then may they go.
	removed, out := 0, ""
	testserver.Eventually(t, 20*time.Second, "the two answered inquiries purged", func() bool {
		code, o, errOut := cli(t, "purge", "--before", time.Now().UTC().Format(time.RFC3339Nano))
		if code != exitOK {
			t.Fatalf("hitl purge: %d %q", code, errOut)
		}
		var n int
		fmt.Sscanf(o, "Removed %d inquiries", &n)
		removed += n
		if n > 0 {
			out = o
		}
		return removed == 2
	})
	if !strings.Contains(out, "inquiries, 0 sessions and") || !strings.Contains(out, "checkpoints in the audit log") {
		t.Errorf("hitl purge says %q", out)
	}
	for i, id := range ids {
		_, err := s.Admin.Inquiry(ctx, id)
		if gone := err != nil && strings.Contains(err.Error(), "not found"); gone != (i < 2) {
			t.Errorf("inquiry %d (answered: %v) after the purge: %v", id, i < 2, err)
		}
	}
	code, out, errOut := cli(t, "audit", "verify", "--db", path)
	if code != exitOK || !strings.Contains(out, "removed by retention") {
		t.Fatalf("audit verify after a purge: %d %q %q", code, out, errOut)
	}
}

type response struct {
	status int
	body   string
}

// postJSON posts a body with a token and returns the status and body.
func postJSON(t *testing.T, url, token, body string) response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{res.StatusCode, string(b)}
}
