package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// held is what the clients of a server hold: the numbers it gave out, and the names of what
// they made.
type held struct {
	inquiries  []int64
	identities []int64
	keys       []string
	webhooks   []string
	sessions   []string
	templates  []string
	// seq is where a stream of the server stands: the newest event's seq.
	seq int64
}

// useServer has the server's clients ask n questions (answering every other one), in a
// session of their own, and make a key (a new name: an integer identity), a webhook and a
// template, all named after tag; it returns what the clients hold.
func useServer(t *testing.T, s *testserver.Server, tag string, n int) held {
	t.Helper()
	ctx := context.Background()
	var h held
	session := tag + "-session"
	if _, err := s.Admin.PutSession(ctx, session, &hitl.SessionRequest{Agent: "bot"}); err != nil {
		t.Fatal(err)
	}
	h.sessions = append(h.sessions, session)
	for i := range n {
		req := &hitl.InquiryRequest{Prompt: fmt.Sprintf("%s, question %d", tag, i)}
		if i == 0 {
			req.Session = session
		}
		inq, _, err := s.Admin.CreateInquiry(ctx, req, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			if _, err := s.Admin.Respond(ctx, inq.ID, json.RawMessage(`"yes"`), ""); err != nil {
				t.Fatal(err)
			}
		}
		h.inquiries = append(h.inquiries, inq.ID)
	}
	key, err := s.Admin.CreateKey(ctx, &hitl.KeyRequest{Name: tag + "-person", Roles: []string{hitl.RoleResponder}})
	if err != nil {
		t.Fatal(err)
	}
	h.keys, h.identities = append(h.keys, key.ID), append(h.identities, key.IdentityID)
	wh, err := s.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: "http://127.0.0.1:9/" + tag, Events: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	h.webhooks = append(h.webhooks, wh.ID)
	template := tag + "-template"
	if _, _, err := s.Admin.PutTemplate(ctx, template, &hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "deploy {{.version}}?"}}); err != nil {
		t.Fatal(err)
	}
	h.templates = append(h.templates, template)
	h.seq = streamHead(t, s)
	return h
}

// streamStart opens the event stream as a client resuming after lastEventID would, and
// returns its first message: the event's name and its data.
func streamStart(t *testing.T, s *testserver.Server, lastEventID string) (event, data string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/v1/events/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.AdminToken)
	req.Header.Set("Last-Event-ID", lastEventID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the stream after %s: %s", lastEventID, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "" && event != "":
			return event, data
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		}
	}
	t.Fatalf("the stream after %s ended before its first message: %v", lastEventID, sc.Err())
	return "", ""
}

// streamHead is the seq a stream that starts now starts after.
func streamHead(t *testing.T, s *testserver.Server) int64 {
	t.Helper()
	event, data := streamStart(t, s, "now")
	var start struct {
		After int64 `json:"after"`
	}
	if event != "start" || json.Unmarshal([]byte(data), &start) != nil {
		t.Fatalf("the stream's first message: %s %s", event, data)
	}
	return start.After
}

// checkRestored checks a server on a restored backup: what the clients of the server the
// backup came from made before the backup is there and what they made after it is not; every
// number it gives out lies beyond all those the old server gave out (ids are never reused);
// a stream resuming after a seq from after the backup is told to reset, to the backup's newest
// event, and one resuming from before it is not.
func checkRestored(t *testing.T, r *testserver.Server, before, after held, backupSeq int64) {
	t.Helper()
	ctx := context.Background()
	for _, id := range before.inquiries {
		if _, err := r.Admin.Inquiry(ctx, id); err != nil {
			t.Errorf("inquiry %d, from before the backup: %v", id, err)
		}
	}
	for _, id := range after.inquiries {
		var ce *client.Error
		if _, err := r.Admin.Inquiry(ctx, id); !errors.As(err, &ce) || ce.StatusCode != http.StatusNotFound {
			t.Errorf("inquiry %d, from after the backup: %v; want it not found", id, err)
		}
	}
	for _, name := range before.templates {
		if _, err := r.Admin.Template(ctx, name); err != nil {
			t.Errorf("template %s, from before the backup: %v", name, err)
		}
	}
	for _, key := range before.sessions {
		if _, err := r.Admin.Session(ctx, key); err != nil {
			t.Errorf("session %s, from before the backup: %v", key, err)
		}
	}

	// Numbers given out after the restore.
	now := useServer(t, r, "restored", 3)
	// The search index came with the backup, and takes what the restored server adds.
	for text, want := range map[string][]int64{"BEFORE, question": before.inquiries, "after, question": nil, "restored, question": now.inquiries} {
		page, err := r.Admin.Inquiries(ctx, client.ListOptions{Text: text, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var found []int64
		for _, inq := range page.Data {
			found = append(found, inq.ID)
		}
		if slices.Sort(found); !slices.Equal(found, slices.Sorted(slices.Values(want))) {
			t.Errorf("search %q in the restored database: %v; want %v", text, found, want)
		}
	}
	oldInquiries := slices.Concat(before.inquiries, after.inquiries)
	if newest, first := slices.Max(oldInquiries), slices.Min(now.inquiries); first <= newest {
		t.Errorf("the restored server gave out inquiry id %d; the old server had given out ids up to %d", first, newest)
	}
	oldIdentities := slices.Concat(before.identities, after.identities)
	if newest, first := slices.Max(oldIdentities), slices.Min(now.identities); first <= newest {
		t.Errorf("the restored server gave out integer identity %d; the old server had given out identities up to %d", first, newest)
	}
	for _, id := range now.keys {
		if slices.Contains(slices.Concat(before.keys, after.keys), id) {
			t.Errorf("key id %s given out again", id)
		}
	}
	for _, id := range now.webhooks {
		if slices.Contains(slices.Concat(before.webhooks, after.webhooks), id) {
			t.Errorf("webhook id %s given out again", id)
		}
	}
	if now.seq <= after.seq {
		t.Errorf("the restored server's log stands at seq %d; the old server's stood at %d", now.seq, after.seq)
	}

	// Streams.
	for _, pos := range []int64{backupSeq + 1, after.seq} {
		event, data := streamStart(t, r, fmt.Sprint(pos))
		var reset struct {
			ResumeAfter int64  `json:"resume_after"`
			Reason      string `json:"reason"`
		}
		if event != "reset" || json.Unmarshal([]byte(data), &reset) != nil || reset.ResumeAfter != backupSeq || reset.Reason != "unknown_position" {
			t.Errorf("a stream resuming after seq %d, from after the backup: %s %s; want a reset to resume after %d", pos, event, data, backupSeq)
		}
	}
	if event, data := streamStart(t, r, fmt.Sprint(backupSeq)); event != "start" {
		t.Errorf("a stream resuming after the backup's newest event, seq %d: %s %s; want it to start", backupSeq, event, data)
	}
}

// backUpAndGoOn runs a server on the SQLite file db, uses it, backs it up to backup with hitl
// backup, and uses it more: the old server went on after the backup. It returns the server,
// still running, and what its clients held at the backup and after.
func backUpAndGoOn(t *testing.T, db, backup string) (s *testserver.Server, before, after held) {
	t.Helper()
	s = testserver.Start(t, testserver.DB(db), testserver.AllowPrivate())
	before = useServer(t, s, "before", 5)
	if code, _, errOut := cli(t, "backup", "--db", db, backup); code != 0 {
		t.Fatalf("backup: %d %s", code, errOut)
	}
	return s, before, useServer(t, s, "after", 40)
}

// TestRestoreNeverReusesIds: hitl restore puts a SQLite backup in place; the old server had
// gone on after the backup; the restored server gives out none of its numbers again, and
// streams from after the backup are told to reset. Its audit chain verifies across the gap
// the restore left in the seqs.
func TestRestoreNeverReusesIds(t *testing.T) {
	dir := t.TempDir()
	db, backup := filepath.Join(dir, "hitl.db"), filepath.Join(dir, "backup.db")
	s, before, after := backUpAndGoOn(t, db, backup)
	if code, _, errOut := cli(t, "restore", backup, "--db", db, "--force"); code != 1 || !strings.Contains(errOut, "in use") {
		t.Fatalf("a restore over the database a server runs on: %d %q; want it refused", code, errOut)
	}
	s.Stop()

	restored := filepath.Join(dir, "restored", "hitl.db")
	code, _, errOut := cli(t, "restore", backup, "--db", restored)
	if code != 0 || !strings.Contains(errOut, "is restored in "+restored) {
		t.Fatalf("restore: %d %q", code, errOut)
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(restored + suffix); err == nil {
			t.Errorf("the restore left a %s file beside the database", suffix)
		}
	}
	if fi, err := os.Stat(restored); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the restored file: %v %v", fi, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "restored", ".*")); len(left) > 0 {
		t.Errorf("the restore left its working files: %v", left)
	}
	r := testserver.Start(t, testserver.DB(restored), testserver.AllowPrivate())
	checkRestored(t, r, before, after, before.seq)
	r.Stop()
	if code, out, errOut := cli(t, "audit", "verify", "--db", restored); code != 0 || !strings.Contains(out, "verified") {
		t.Fatalf("audit verify of the restored database: %d %q %q", code, out, errOut)
	}

	// Restoring again over it (--force), as after a second mistake: further still.
	if code, _, errOut := cli(t, "restore", backup, "--db", restored); code != 2 || !strings.Contains(errOut, "--force") {
		t.Fatalf("a restore over an existing file without --force: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "restore", backup, "--db", restored, "--force"); code != 0 {
		t.Fatalf("restore --force: %d %q", code, errOut)
	}
	r = testserver.Start(t, testserver.DB(restored), testserver.AllowPrivate())
	first := useServer(t, r, "again", 1)
	if old := slices.Max(slices.Concat(before.inquiries, after.inquiries)); first.inquiries[0] <= old {
		t.Fatalf("the second restore gave out inquiry id %d, not beyond %d", first.inquiries[0], old)
	}
}

// TestRestoredCopyNeverReusesIds: the backup copied into place by hand, as the README said to
// before hitl restore; the first start on it moves the sequences, because hitl backup marked
// the copy, and the next start does not move them again.
func TestRestoredCopyNeverReusesIds(t *testing.T) {
	dir := t.TempDir()
	backup := filepath.Join(dir, "backup.db")
	s, before, after := backUpAndGoOn(t, filepath.Join(dir, "hitl.db"), backup)
	s.Stop()
	b, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	restored := filepath.Join(t.TempDir(), "hitl.db")
	if err := os.WriteFile(restored, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := testserver.Start(t, testserver.DB(restored), testserver.AllowPrivate())
	checkRestored(t, r, before, after, before.seq)
	// A restart is no restore: the numbers go on where they stood.
	last := useServer(t, r, "first-start", 1)
	r.Restart()
	if next := useServer(t, r, "second-start", 1); next.inquiries[0] != last.inquiries[0]+1 {
		t.Fatalf("after a restart the next inquiry id is %d, want %d", next.inquiries[0], last.inquiries[0]+1)
	}
}

// TestPostgresRestoreNeverReusesIds: pg_dump while the server runs, the server goes on,
// pg_restore into a new database and hitl restore on it: none of the old server's numbers is
// given out again, streams from after the dump are told to reset, the chain verifies.
func TestPostgresRestoreNeverReusesIds(t *testing.T) {
	pg := newPGCopy(t)
	s := testserver.Start(t, testserver.DB(pg.src), testserver.AllowPrivate())
	before := useServer(t, s, "before", 5)
	pg.dump(t)
	after := useServer(t, s, "after", 40) // the old server went on
	s.Stop()
	restored := pg.restore(t, "hitl_restore_ids_")
	if code, _, errOut := cli(t, "restore", pg.file, "--db", restored); code != 2 || !strings.Contains(errOut, "pg_restore") {
		t.Fatalf("hitl restore given the dump: %d %q; want a usage error that says to pg_restore it first", code, errOut)
	}
	if code, _, errOut := cli(t, "restore", "--db", restored); code != 0 || !strings.Contains(errOut, "is restored in") {
		t.Fatalf("restore: %d %q", code, errOut)
	}
	r := testserver.Start(t, testserver.DB(restored), testserver.AllowPrivate())
	checkRestored(t, r, before, after, before.seq)
	if code, out, errOut := cli(t, "audit", "verify", "--db", restored); code != 0 || !strings.Contains(out, "verified") {
		t.Fatalf("audit verify of the restored database: %d %q %q", code, out, errOut)
	}
}

// TestRestoreRefusesBadInput: every mistake is refused in words, with the usage status (2) for
// what was asked wrongly and 1 for what failed; nothing is written.
func TestRestoreRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "hitl.db")
	s := testserver.Start(t, testserver.DB(db))
	backup := filepath.Join(dir, "backup.db")
	if code, _, errOut := cli(t, "backup", "--db", db, backup); code != 0 {
		t.Fatalf("backup: %d %s", code, errOut)
	}
	s.Stop()
	notSQLite := filepath.Join(dir, "hitl.dump")
	if err := os.WriteFile(notSQLite, []byte("PGDMP not a SQLite file, long enough to be read as one"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.db")
	makeSQLite(t, other, "CREATE TABLE t (a)")
	newer := filepath.Join(dir, "newer.db")
	if code, _, errOut := cli(t, "backup", "--db", db, newer); code != 0 {
		t.Fatalf("backup: %d %s", code, errOut)
	}
	makeSQLite(t, newer, "INSERT INTO goose_db_version (version_id, is_applied) VALUES (9999, 1)")
	dest := filepath.Join(dir, "dest.db")
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"restore", filepath.Join(dir, "none.db"), "--db", dest}, 2, "no backup at"},
		{[]string{"restore", notSQLite, "--db", dest}, 2, "not a SQLite database"},
		{[]string{"restore", other, "--db", dest}, 2, "not a hitl database"},
		{[]string{"restore", newer, "--db", dest}, 2, "newer than this hitl knows"},
		{[]string{"restore", "--db", dest}, 2, "expected the backup file"},
		{[]string{"restore", backup, backup, "--db", dest}, 2, "expected the backup file"},
		{[]string{"restore", backup, "--db", db}, 2, "exists"},
		{[]string{"restore", backup, "--db", backup, "--force"}, 2, "is the database --db names"},
		{[]string{"restore", backup, "--db", dir, "--force"}, 2, "is a directory"},
		{[]string{"restore", "--db", "postgres://hitl@127.0.0.1:1/hitl?connect_timeout=2"}, 1, "cannot read the database"},
	} {
		code, _, errOut := cli(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.says) {
			t.Errorf("hitl %s: %d %q; want %d and %q", strings.Join(c.args, " "), code, errOut, c.code, c.says)
		}
	}
	if _, err := os.Stat(dest); err == nil {
		t.Errorf("a refused restore wrote %s", dest)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*restore*")); len(left) > 0 {
		t.Errorf("a refused restore left %v", left)
	}
	if code, out, _ := cli(t, "restore", "--help"); code != 0 || !strings.Contains(out, "pg_restore") || !strings.Contains(out, "--force") {
		t.Fatalf("restore --help: %d %q", code, out)
	}
}

// makeSQLite runs a statement on the SQLite file at path, creating it if need be.
func makeSQLite(t *testing.T, path, stmt string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmt); err != nil {
		t.Fatal(err)
	}
}
