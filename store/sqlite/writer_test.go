package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

func appendEvents(t *testing.T, s *Store, n int, data json.RawMessage) {
	t.Helper()
	for i := range n {
		err := s.Update(context.Background(), func(tx hitl.Tx) error {
			return tx.AppendEvent(&hitl.Event{ID: "e" + strconv.Itoa(i) + time.Now().String(), Type: "test.event", Time: time.Now(), Actor: "system", Data: data})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// The writer prepares a statement once and runs it in every later batch; it does not prepare
// it again per batch.
func TestWriterPreparesStatementsOnce(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "hitl.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	appendEvents(t, s, 1, json.RawMessage(`{}`))
	var insert string
	for q := range s.written.stmts {
		if strings.HasPrefix(q, "INSERT INTO events") {
			insert = q
		}
	}
	if insert == "" {
		t.Fatalf("after a change the writer has prepared %d statements, none inserting events", len(s.written.stmts))
	}
	prepared, count := s.written.stmts[insert], len(s.written.stmts)
	appendEvents(t, s, 5, json.RawMessage(`{}`))
	if s.written.stmts[insert] != prepared || len(s.written.stmts) != count {
		t.Fatalf("the same changes again prepared statements anew: %d statements, want %d", len(s.written.stmts), count)
	}
}

// A statement whose text varies with its arguments does not pile up: past maxPrepared, the
// writer prepares it for each batch instead.
func TestWriterStatementsBounded(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "hitl.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range maxPrepared + 20 {
		err := s.Update(context.Background(), func(tx hitl.Tx) error {
			_, err := tx.(*txn).tx.ExecContext(context.Background(), "SELECT "+strconv.Itoa(i))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(s.written.stmts) > maxPrepared {
		t.Fatalf("the writer holds %d prepared statements, more than %d", len(s.written.stmts), maxPrepared)
	}
}

// The checkpointer copies committed pages into the database file in the background, long
// before the WAL reaches the writerCheckpointPages at which the writer's own checkpoint would.
func TestCheckpointerCopiesTheWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hitl.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	// 40 changes of 16 KiB: about 200 pages, a fiftieth of the writer's threshold.
	appendEvents(t, s, 40, json.RawMessage(`"`+strings.Repeat("x", 16<<10)+`"`))
	// (testserver's Eventually would import this package.)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Second); size() < before+512<<10; <-tick.C {
		if time.Now().After(deadline) {
			t.Fatalf("the database file grew from %d to %d bytes only; the pages stayed in the WAL", before, size())
		}
	}

	// What was copied is what was committed: another connection reads it all.
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM events WHERE type = 'test.event'").Scan(&n); err != nil || n != 40 {
		t.Fatalf("read %d events (%v), want 40", n, err)
	}
}

// The writer's own checkpoint waits for writerCheckpointPages, not SQLite's 1,000: the
// checkpointer copies the WAL, and a checkpoint inside a commit makes the answer it carries wait.
func TestWriterCheckpointsLate(t *testing.T) {
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "hitl.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var pages int
	if err := s.writer.QueryRow("PRAGMA wal_autocheckpoint").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if pages != writerCheckpointPages {
		t.Fatalf("the writer checkpoints past %d pages, want %d", pages, writerCheckpointPages)
	}
}
