package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/pgtest"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// writeLoad keeps writers clients asking and answering on c until stop, and records the
// answers the server acknowledged, in order.
type writeLoad struct {
	mu     sync.Mutex
	acked  []int64
	failed error
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startWriteLoad(c *client.Client, writers int) *writeLoad {
	ctx, cancel := context.WithCancel(context.Background())
	l := &writeLoad{cancel: cancel}
	for w := range writers {
		l.wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				inq, _, err := c.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: fmt.Sprintf("writer %d, question %d", w, i)}, client.CreateOptions{})
				if err == nil {
					_, err = c.Respond(ctx, inq.ID, json.RawMessage(`"yes"`), "")
				}
				l.mu.Lock()
				switch {
				case err == nil:
					l.acked = append(l.acked, inq.ID)
				case ctx.Err() == nil && l.failed == nil:
					l.failed = err
				}
				l.mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	return l
}

// answered is the answers acknowledged so far.
func (l *writeLoad) answered() []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.acked)
}

// stop ends the writers and returns the first error one met, if any.
func (l *writeLoad) stop() error {
	l.cancel()
	l.wg.Wait()
	return l.failed
}

// TestBackupUnderWriteLoad: hitl backup copies a SQLite database while clients keep asking and
// answering on it; the copy, restored into a fresh server, holds every answer acknowledged
// before the backup started, and its audit chain verifies.
func TestBackupUnderWriteLoad(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "hitl.db")
	s := testserver.Start(t, testserver.DB(db))
	load := startWriteLoad(s.Admin, 8)
	defer load.stop()
	testserver.Eventually(t, 10*time.Second, "answers under way", func() bool { return len(load.answered()) >= 100 })
	before := load.answered()
	backup := filepath.Join(dir, "backup.db")
	code, _, errOut := cli(t, "backup", "--db", db, backup)
	during := len(load.answered()) - len(before)
	if err := load.stop(); err != nil {
		t.Fatalf("a writer failed: %v", err)
	}
	if code != 0 || !strings.Contains(errOut, "Backed up") {
		t.Fatalf("backup: %d %q", code, errOut)
	}
	if during == 0 {
		t.Fatal("no answer was acknowledged while the backup ran: the test did not back up under load")
	}
	if fi, err := os.Stat(backup); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v", fi, err)
	}
	if code, out, errOut := cli(t, "audit", "verify", "--db", backup); code != 0 || !strings.Contains(out+errOut, "verified") {
		t.Fatalf("audit verify of the backup: %d %q %q", code, out, errOut)
	}

	// Restore: a fresh server on a copy of the backup has every answer acknowledged before.
	restored := filepath.Join(t.TempDir(), "hitl.db")
	b, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(restored, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := testserver.Start(t, testserver.DB(restored))
	for _, id := range before {
		inq, err := r.Admin.Inquiry(context.Background(), id)
		if err != nil || inq.Status != hitl.StatusResponded || string(inq.Response) != `"yes"` {
			t.Fatalf("inquiry %d after the restore: %v %+v", id, err, inq)
		}
	}

	// Bad input: a backup never overwrites, and needs a database.
	if code, _, errOut := cli(t, "backup", "--db", db, backup); code == 0 || !strings.Contains(errOut, "exists") {
		t.Fatalf("backup over an existing file: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "backup", "--db", filepath.Join(dir, "none.db"), filepath.Join(dir, "x.db")); code == 0 || !strings.Contains(errOut, "no database at") {
		t.Fatalf("backup of no database: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "backup", "--db", "postgres://localhost/hitl", filepath.Join(dir, "y.db")); code != 2 || !strings.Contains(errOut, "pg_dump") {
		t.Fatalf("backup of PostgreSQL: %d %q", code, errOut)
	}
}

// TestPostgresBackupRoundTrip: the README's pg_dump line while the server writes, pg_restore
// into a fresh database, a server on it: every answer acknowledged before the dump is there,
// and the audit chain verifies.
func TestPostgresBackupRoundTrip(t *testing.T) {
	pg := newPGCopy(t)
	s := testserver.Start(t, testserver.DB(pg.src))
	load := startWriteLoad(s.Admin, 4)
	defer load.stop()
	testserver.Eventually(t, 10*time.Second, "answers under way", func() bool { return len(load.answered()) >= 50 })
	before := load.answered()
	pg.dump(t)
	if err := load.stop(); err != nil {
		t.Fatalf("a writer failed: %v", err)
	}
	restored := pg.restore(t, "hitl_restore_")
	if code, out, errOut := cli(t, "audit", "verify", "--db", restored); code != 0 || !strings.Contains(out+errOut, "verified") {
		t.Fatalf("audit verify of the restored database: %d %q %q", code, out, errOut)
	}
	r := testserver.Start(t, testserver.DB(restored))
	for _, id := range before {
		inq, err := r.Admin.Inquiry(context.Background(), id)
		if err != nil || inq.Status != hitl.StatusResponded {
			t.Fatalf("inquiry %d after the restore: %v %+v", id, err, inq)
		}
	}
}

// pgCopy is a test schema to run a server on, dump with pg_dump and restore with pg_restore
// into a fresh database, the way the README says to back up and restore PostgreSQL.
type pgCopy struct {
	src    string  // the schema's URL, for the server
	schema string  // its name, quoted as in search_path
	plain  url.URL // the database's URL without search_path: pg_dump takes libpq's parameters only
	file   string  // the dump
}

func newPGCopy(t *testing.T) *pgCopy {
	t.Helper()
	src := pgtest.Schema(t)
	u, err := url.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	c := &pgCopy{src: src, schema: u.Query().Get("search_path"), plain: *u, file: filepath.Join(t.TempDir(), "hitl.dump")}
	c.plain.RawQuery = ""
	return c
}

// dump runs pg_dump -Fc on the schema, and on the pg_trgm extension its search index uses
// (migration 32), which a dump of the whole database holds and one of a schema (-n) leaves
// out: as docs/operating.md says to dump one schema.
func (c *pgCopy) dump(t *testing.T) {
	t.Helper()
	if out, err := exec.Command("pg_dump", "-Fc", "-n", c.schema, "-e", "pg_trgm", "-f", c.file, c.plain.String()).CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, out)
	}
}

// restore creates a database named with prefix, which the test drops when it ends (on a
// connection of its own: the test's are closed by then), restores the dump into it with
// pg_restore, and returns the URL of the restored schema in it.
func (c *pgCopy) restore(t *testing.T, prefix string) string {
	t.Helper()
	admin := func(sql string) error {
		conn, err := pgx.Connect(context.Background(), c.plain.String())
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		_, err = conn.Exec(context.Background(), sql)
		return err
	}
	// The schema is quoted in search_path ("hitl_test_…"); the database's name is plain.
	name := prefix + strings.TrimPrefix(strings.Trim(c.schema, `"`), "hitl_test_")
	if err := admin("CREATE DATABASE " + pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := admin("DROP DATABASE IF EXISTS " + pgx.Identifier{name}.Sanitize() + " WITH (FORCE)"); err != nil {
			t.Errorf("dropping the restored database %s: %v", name, err)
		}
	})
	target := c.plain
	target.Path = "/" + name
	if out, err := exec.Command("pg_restore", "-d", target.String(), c.file).CombinedOutput(); err != nil {
		t.Fatalf("pg_restore: %v\n%s", err, out)
	}
	target.RawQuery = url.Values{"search_path": {c.schema}}.Encode()
	return target.String()
}
