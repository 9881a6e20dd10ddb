package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/pgtest"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// getJSON fetches a route of the server, with a token or without, and returns its body.
func getJSON(t *testing.T, url, token string) []byte {
	t.Helper()
	status, body := get(t, url, token)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, status, body)
	}
	return body
}

// get fetches a route of the server, with a token or without, and returns its status and body.
func get(t *testing.T, url, token string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, body
}

// The whole story of the audit chain on a real database file: a server signs its head, a
// separate program checks the signature with the public key alone, the export alone
// recomputes the head, verify passes; then an edited answer and a cut-off tail are each
// found, at their seq.
func TestAuditVerifyExportAndSignedHead(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hitl.db")
	s := testserver.Start(t, testserver.DB(path))
	agent, _ := s.Key(hitl.KeyRequest{Name: "bot", Roles: []string{hitl.RoleAgent}})
	responder, responderToken := s.Key(hitl.KeyRequest{Name: "ada", Roles: []string{hitl.RoleResponder}})
	var answered []int64
	for i := range 3 {
		inq, _, err := agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: fmt.Sprintf("Ship %d?", i), RequestType: hitl.RequestApproval}, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := responder.Respond(ctx, inq.ID, []byte(`{"approved":true}`), "ok"); err != nil {
			t.Fatal(err)
		}
		answered = append(answered, inq.ID)
	}

	// A responder may read the signed head; anyone the key.
	headJSON := getJSON(t, s.URL+"/v1/audit/head", responderToken)
	keyJSON := getJSON(t, s.URL+"/v1/audit/key", "")
	var head struct {
		Seq  int64  `json:"seq"`
		Hash string `json:"hash"`
	}
	if err := json.Unmarshal(headJSON, &head); err != nil || head.Seq < 6 {
		t.Fatalf("head %s: %v", headJSON, err)
	}

	// A separate program, with only the standard library, checks the signature.
	dir := t.TempDir()
	verifier := filepath.Join(dir, "verifyhead")
	if out, err := exec.Command("go", "build", "-o", verifier, "./testdata/verifyhead").CombinedOutput(); err != nil {
		t.Fatalf("building testdata/verifyhead: %v\n%s", err, out)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	headFile, keyFile := write("head.json", headJSON), write("key.json", keyJSON)
	if out, err := exec.Command(verifier, headFile, keyFile).CombinedOutput(); err != nil || !strings.Contains(string(out), "signature valid") {
		t.Fatalf("the signed head does not verify with the public key: %v\n%s", err, out)
	}
	forged := strings.Replace(string(headJSON), fmt.Sprintf(`"seq":%d`, head.Seq), fmt.Sprintf(`"seq":%d`, head.Seq-1), 1)
	if out, err := exec.Command(verifier, write("forged.json", []byte(forged)), keyFile).CombinedOutput(); err == nil {
		t.Fatalf("a head with another seq verifies: %s", out)
	}

	// The export alone recomputes the signed head.
	code, out, errOut := cli(t, "audit", "export", "--db", path)
	if code != exitOK {
		t.Fatalf("audit export: %d %s", code, errOut)
	}
	prev, lines := make([]byte, 32), 0
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndex(line, `,"hash":"`)
		canonical, stored := line[:i]+"}", line[i+len(`,"hash":"`):len(line)-2]
		sum := sha256.Sum256(append(prev, canonical...))
		if hex.EncodeToString(sum[:]) != stored {
			t.Fatalf("line %d of the export does not hash to its hash: %s", lines+1, line)
		}
		prev = sum[:]
		lines++
	}
	if int64(lines) < head.Seq || !strings.Contains(out, head.Hash) {
		t.Fatalf("the export (%d lines) does not reach the head at seq %d", lines, head.Seq)
	}

	code, out, errOut = cli(t, "audit", "verify", "--db", path, "--seq", fmt.Sprint(head.Seq), "--head", head.Hash)
	if code != exitOK || !strings.Contains(out, fmt.Sprintf("events through seq %d", lines)) {
		t.Fatalf("audit verify of an untouched log: %d %q %q", code, out, errOut)
	}

	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var edited int64
	if err := db.QueryRow("SELECT seq FROM events WHERE type = ? AND inquiry_id = ?", hitl.EventInquiryResponded, answered[1]).Scan(&edited); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE events SET data = replace(data, '"approved":true', '"approved":false') WHERE seq = ?`, edited); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = cli(t, "audit", "verify", "--db", path)
	if want := fmt.Sprintf("the audit chain breaks at seq %d: does not match its hash", edited); code != exitError || !strings.Contains(errOut, want) {
		t.Fatalf("audit verify of an edited answer: %d %q; want exit 1 and %q", code, errOut, want)
	}
	if _, err := db.Exec(`UPDATE events SET data = replace(data, '"approved":false', '"approved":true') WHERE seq = ?`, edited); err != nil {
		t.Fatal(err)
	}

	s.Stop() // nothing appends after the tail is cut
	if _, err := db.Exec("DELETE FROM events WHERE seq > ?", head.Seq-2); err != nil {
		t.Fatal(err)
	}
	// The chain alone cannot tell that the log was longer; the stored state can, where the
	// events cut off had changed it: the last answer is stored, and its event is gone.
	code, out, errOut = cli(t, "audit", "verify", "--db", path)
	chain := fmt.Sprintf("verified %d events through seq %d", head.Seq-2, head.Seq-2)
	state := fmt.Sprintf("the stored state differs from the audit log: inquiry %d: it is stored, but the log has no event of it", answered[2])
	if code != exitError || !strings.Contains(out, chain) || !strings.Contains(errOut, state) {
		t.Fatalf("audit verify of a log cut short: %d %q %q; want the chain verified (%q) and exit 1 saying %q", code, out, errOut, chain, state)
	}
	code, _, errOut = cli(t, "audit", "verify", "--db", path, "--seq", fmt.Sprint(head.Seq), "--head", head.Hash)
	if want := fmt.Sprintf("breaks at seq %d: missing: the log ends at seq %d", head.Seq-1, head.Seq-2); code != exitError || !strings.Contains(errOut, want) {
		t.Fatalf("audit verify of a cut-off tail against the published head: %d %q; want %q", code, errOut, want)
	}
	if code, _, errOut = cli(t, "audit", "verify", "--db", filepath.Join(dir, "none.db")); code != exitUsage {
		t.Fatalf("audit verify of a file that is not there: %d %q", code, errOut)
	}
}

// Issue 25, point 6, reproduced on a real database of each kind: an answer "no" edited to
// "yes" in the stored document, where the API serves it and the log does not change. `hitl
// audit verify` exits 1 naming the inquiry and what differs, and the running server refuses
// to sign a head (GET /v1/audit/head); once the edit is undone both pass again, with no
// restart. The same for a session's stored row.
func TestAuditVerifyNamesAStoredStateThatDiffersFromTheLog(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			opt := testserver.Postgres()
			if kind == "sqlite" {
				opt = testserver.DB(filepath.Join(t.TempDir(), "hitl.db"))
			}
			testAuditOfStoredState(t, testserver.Start(t, opt))
		})
	}
}

func testAuditOfStoredState(t *testing.T, s *testserver.Server) {
	ctx := context.Background()
	agent, _ := s.Key(hitl.KeyRequest{Name: "bot", Roles: []string{hitl.RoleAgent}})
	responder, token := s.Key(hitl.KeyRequest{Name: "ada", Roles: []string{hitl.RoleResponder}})
	inq, _, err := agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Delete the production database?"}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := responder.Respond(ctx, inq.ID, []byte(`"no"`), ""); err != nil {
		t.Fatal(err)
	}
	seqOf := func(where string) string {
		return rawRows(t, s.DB, "SELECT 'seq', CAST(MAX(seq) AS TEXT) FROM events WHERE "+where)["seq"]
	}
	answered := seqOf(fmt.Sprintf("inquiry_id = %d AND type = '%s'", inq.ID, hitl.EventInquiryResponded))
	passes := func(when string, inquiries, sessions int) {
		t.Helper()
		code, out, errOut := cli(t, "audit", "verify", "--db", s.DB)
		want := fmt.Sprintf("verified the stored state of %d inquiries and %d sessions against their events", inquiries, sessions)
		if code != exitOK || !strings.Contains(out, want) {
			t.Fatalf("%s: audit verify: %d %q %q; want exit 0 saying %q", when, code, out, errOut, want)
		}
		if status, body := get(t, s.URL+"/v1/audit/head", token); status != http.StatusOK {
			t.Fatalf("%s: GET /v1/audit/head: %d %s", when, status, body)
		}
	}
	fails := func(when, want string) {
		t.Helper()
		code, out, errOut := cli(t, "audit", "verify", "--db", s.DB)
		if code != exitError || !strings.Contains(errOut, "the stored state differs from the audit log: "+want) || !strings.Contains(out, "events through seq") {
			t.Fatalf("%s: audit verify: %d %q %q; want the chain verified and exit 1 saying %q", when, code, out, errOut, want)
		}
		if status, body := get(t, s.URL+"/v1/audit/head", token); status != http.StatusConflict || !strings.Contains(string(body), strings.ReplaceAll(want, `"`, `\"`)) {
			t.Fatalf("%s: GET /v1/audit/head: %d %s; want 409 saying %q", when, status, body, want)
		}
	}

	rawExec(t, s.DB, fmt.Sprintf(`UPDATE inquiries SET doc = replace(doc, '"response":"no"', '"response":"yes"') WHERE id = %d`, inq.ID))
	if got, err := responder.Inquiry(ctx, inq.ID); err != nil || string(got.Response) != `"yes"` {
		t.Fatalf("after the edit the API serves %s (%v); the test means it to serve \"yes\"", got.Response, err)
	}
	fails("an edited answer", fmt.Sprintf(`inquiry %d: the stored answer is "yes" but its events say "no" (event %s)`, inq.ID, answered))
	rawExec(t, s.DB, fmt.Sprintf(`UPDATE inquiries SET doc = replace(doc, '"response":"yes"', '"response":"no"') WHERE id = %d`, inq.ID))
	passes("the edit undone", 1, 0)

	if _, err := agent.PutSession(ctx, "run-1", &hitl.SessionRequest{State: json.RawMessage(`{"step":1}`)}); err != nil {
		t.Fatal(err)
	}
	updated := seqOf("session = 'run-1' AND inquiry_id IS NULL")
	rawExec(t, s.DB, `UPDATE sessions SET state = '{"step":2}' WHERE key = 'run-1'`)
	fails("an edited session", fmt.Sprintf(`session run-1: the stored state is {"step":2} but its events say {"step":1} (event %s)`, updated))
	rawExec(t, s.DB, `UPDATE sessions SET state = '{"step":1}' WHERE key = 'run-1'`)
	passes("the session's edit undone", 1, 1)

	// The columns beside the document that lists, filters, stats and ownership read (the
	// review's repro): each edited alone, on an inquiry the server has not looked at yet.
	for i, c := range []struct {
		answer          bool
		column, to, was string
	}{
		{false, "status", "cancelled", "pending"},
		{true, "responded_by", "mallory", "ada"},
		{false, "created_by", "someone", "bot"},
		{false, "session", "NULL", "run-1"},
	} {
		asked, _, err := agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Scale up?", Session: "run-1"}, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.answer {
			if _, err := responder.Respond(ctx, asked.ID, []byte(`"yes"`), ""); err != nil {
				t.Fatal(err)
			}
		}
		quoted := func(v string) string {
			if v == "NULL" {
				return v
			}
			return "'" + v + "'"
		}
		said := strings.ReplaceAll(strings.ToLower(c.to), "null", "none")
		rawExec(t, s.DB, fmt.Sprintf("UPDATE inquiries SET %s = %s WHERE id = %d", c.column, quoted(c.to), asked.ID))
		fails("its "+c.column+" column edited", fmt.Sprintf("inquiry %d: its %s column says %s but its events say %s (event %s)",
			asked.ID, c.column, said, c.was, seqOf(fmt.Sprintf("inquiry_id = %d", asked.ID))))
		rawExec(t, s.DB, fmt.Sprintf("UPDATE inquiries SET %s = %s WHERE id = %d", c.column, quoted(c.was), asked.ID))
		passes("its "+c.column+" column's edit undone", i+2, 1)
	}
}

// rawExec changes a SQLite file or a PostgreSQL URL's schema behind hitl's back.
func rawExec(t *testing.T, db, stmt string) {
	t.Helper()
	conn := testserver.RawDB(t, db)
	defer conn.Close()
	if _, err := conn.Exec(stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// The commands that read or mend a database offline refuse one that is not hitl's, and leave
// it as it was: a file of another program, an empty file, an empty PostgreSQL schema.
func TestOfflineCommandsRefuseOtherDatabases(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", "file:"+other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE notes (x TEXT)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	targets := []string{other, empty}
	if os.Getenv("HITL_TEST_POSTGRES_URL") != "" {
		targets = append(targets, pgtest.Schema(t))
	}
	for _, target := range targets {
		before := tablesOf(t, target)
		for _, args := range [][]string{
			{"audit", "verify", "--db", target},
			{"audit", "export", "--db", target},
			{"secrets", "rotate", "--db", target, "--new", newSecretKey()},
		} {
			code, _, errOut := cli(t, args...)
			if code != exitUsage || !strings.Contains(errOut, "is not a hitl database: it has no hitl schema") {
				t.Errorf("hitl %s: %d %q; want exit 2 saying it is not a hitl database", strings.Join(args[:2], " "), code, errOut)
			}
		}
		if after := tablesOf(t, target); after != before {
			t.Errorf("the commands changed %s: tables %q, were %q", target, after, before)
		}
	}
}

// tablesOf lists the tables of a SQLite file or of a PostgreSQL URL's schema.
func tablesOf(t *testing.T, db string) string {
	t.Helper()
	query := "SELECT 'tables', COALESCE(group_concat(name, ','), '') FROM sqlite_master WHERE type = 'table'"
	if strings.HasPrefix(db, "postgres") {
		query = "SELECT 'tables', COALESCE(string_agg(table_name, ',' ORDER BY table_name), '') FROM information_schema.tables WHERE table_schema = current_schema()"
	}
	return rawRows(t, db, query)["tables"]
}
