package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/hitl-dev/hitl"
)

// backupMark is the setting Backup writes into its copy, and only there: when the backup was
// taken. A server started on a file that has it knows the file is a restored backup (see
// hitl.Tx.TakeBackupMark).
const backupMark = "backup_taken_at"

// lastID is the last id an AUTOINCREMENT table gave out: SQLite keeps it in sqlite_sequence,
// and never gives out a smaller one, even after the row that had it is removed.
func (t *txn) lastID(table string) (int64, error) {
	var n int64
	err := t.tx.QueryRowContext(t.ctx, `SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = ?1), 0),
		COALESCE((SELECT MAX(id) FROM `+table+`), 0))`, table).Scan(&n)
	return n, dbError(err, "the last id of "+table)
}

func (t *txn) Sequences() (hitl.Sequences, error) {
	var (
		s   hitl.Sequences
		err error
	)
	if s.Inquiry, err = t.lastID("inquiries"); err != nil {
		return s, err
	}
	if s.Identity, err = t.lastID("identities"); err != nil {
		return s, err
	}
	head, err := t.tx.chainHead(t.ctx)
	if err != nil {
		return s, err
	}
	s.Event = head.seq
	if s.Event > 0 {
		var at int64
		if err := t.tx.QueryRowContext(t.ctx, "SELECT time FROM events WHERE seq = ?", s.Event).Scan(&at); err != nil {
			return s, dbError(err, "the newest event")
		}
		s.EventTime = fromMicros(at)
	}
	return s, nil
}

func (t *txn) MoveSequences(next hitl.Sequences, ev *hitl.Event) error {
	for table, n := range map[string]int64{"inquiries": next.Inquiry, "identities": next.Identity} {
		// sqlite_sequence holds the last id given out; it has no row for a table that never
		// gave one out.
		res, err := t.tx.ExecContext(t.ctx, "UPDATE sqlite_sequence SET seq = ? WHERE name = ?", n-1, table)
		if err == nil {
			if rows, _ := res.RowsAffected(); rows == 0 {
				_, err = t.tx.ExecContext(t.ctx, "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", table, n-1)
			}
		}
		if err != nil {
			return dbError(err, "the sequence of "+table)
		}
	}
	// The next seq is the head's + 1, and the event chains from the head's hash: the seqs
	// in between are skipped. A change that fails puts the head back (Store.runOne).
	head, err := t.tx.chainHead(t.ctx)
	if err != nil {
		return err
	}
	head.seq = next.Event - 1
	return t.AppendEvent(ev)
}

func (t *txn) TakeBackupMark() (time.Time, error) {
	var v string
	err := t.tx.QueryRowContext(t.ctx, "DELETE FROM settings WHERE name = ? RETURNING value", backupMark).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, dbError(err, "the backup's mark")
	}
	at, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("the backup's mark %q is not a time: %w", v, err)
	}
	return at, nil
}

// markBackup writes the backup's mark into the copy at path, which VACUUM INTO left in
// rollback-journal mode: the write goes into the file itself, and the copy stays one file.
func markBackup(ctx context.Context, path string, at time.Time) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
		backupMark, at.UTC().Format(time.RFC3339Nano))
	return err
}

// CheckBackup makes sure, without changing anything, that the file at path is a hitl database
// this hitl can restore: a SQLite file, with hitl's schema at this hitl's version or an older
// one (the server migrates it, as it would the database the backup came from), whole
// (SQLite's integrity check).
func CheckBackup(ctx context.Context, path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return hitl.Errorf(hitl.EInvalid, "no backup at %s", path)
	case err != nil:
		return err
	case fi.IsDir():
		return hitl.Errorf(hitl.EInvalid, "%s is a directory, not a backup", path)
	}
	have, want, err := SchemaVersion(ctx, path)
	var se *sqlite.Error
	switch {
	case errors.As(err, &se) && se.Code() == sqlite3.SQLITE_NOTADB:
		return hitl.Errorf(hitl.EInvalid, "%s is not a SQLite database (a pg_dump file is restored with pg_restore)", path)
	case err != nil:
		return fmt.Errorf("read %s: %w", path, err)
	case have < 0:
		return hitl.Errorf(hitl.EInvalid, "%s is not a hitl database: it has no hitl schema", path)
	case have > want:
		return hitl.Errorf(hitl.EInvalid, "%s is at schema version %d, newer than this hitl knows (%d): restore it with the hitl that wrote it", path, have, want)
	}
	db, err := openReadOnly(path)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check(10)")
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("check %s: %w", path, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	if len(problems) > 0 {
		return hitl.Errorf(hitl.EInvalid, "%s is damaged (SQLite's integrity check: %s): restore another backup", path, problems[0])
	}
	return nil
}

func openReadOnly(path string) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("mode", "ro")
	return sql.Open("sqlite", "file:"+path+"?"+q.Encode())
}

// InUse reports whether a connection, of this process or another, has the database at path
// open (a running hitl serve keeps it open): it tries, without waiting, to lock the file for
// itself alone, which no other connection allows while it has the file open in WAL mode.
// No file there is not in use.
func InUse(ctx context.Context, path string) (bool, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)&_pragma=locking_mode(EXCLUSIVE)")
	if err != nil {
		return false, err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "BEGIN EXCLUSIVE; COMMIT")
	var se *sqlite.Error
	switch {
	case err == nil:
		return false, nil
	case errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_BUSY || se.Code()&0xff == sqlite3.SQLITE_LOCKED):
		return true, nil
	case errors.As(err, &se) && se.Code() == sqlite3.SQLITE_NOTADB:
		return false, nil // not a database: nothing can have it open as one
	}
	return false, fmt.Errorf("check whether %s is in use: %w", path, err)
}

// Install puts a copy of the backup at dest, as one step: the copy is made beside dest (with
// VACUUM INTO, so that a backup whose WAL still holds commits is copied whole), prepare
// changes it there (on a server's store: see hitl restore), it is folded into one file and
// flushed, and renamed over dest, and the directory is flushed. Until the rename dest is as
// it was; after it, dest is the copy, never a mix. The caller has made sure no server has
// dest open (InUse). A WAL and shared-memory file dest had are removed before the rename:
// SQLite would otherwise replay the old database's WAL onto the copy.
func Install(ctx context.Context, backup, dest string, prepare func(path string) error) (err error) {
	dir := filepath.Dir(dest)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the database directory: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(dest)+".restore-*")
	if err != nil {
		return fmt.Errorf("create the copy beside %s: %w", dest, err)
	}
	tmp := f.Name()
	f.Close()
	defer func() {
		if err != nil {
			removeDatabase(tmp)
		}
	}()
	src, err := openReadOnly(backup)
	if err != nil {
		return err
	}
	// VACUUM INTO takes an empty file: the one just created, which no one else may take.
	_, err = src.ExecContext(ctx, "VACUUM INTO ?", tmp)
	src.Close()
	if err != nil {
		return fmt.Errorf("copy %s: %w", backup, err)
	}
	if err := prepare(tmp); err != nil {
		return err
	}
	if err := oneFile(ctx, tmp); err != nil {
		return err
	}
	if err := syncFile(tmp); err != nil {
		return err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(dest + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove the old database's %s file: %w", suffix, err)
		}
	}
	if err := os.Rename(tmp, dest); err != nil {
		return fmt.Errorf("put the copy in place: %w", err)
	}
	return syncFile(dir)
}

// oneFile folds the database at path into its main file: leaving WAL mode checkpoints the
// WAL into it and removes the WAL, which the rename does not carry along. (A server turns WAL
// mode on again when it opens the file.)
func oneFile(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode = DELETE").Scan(&mode); err != nil {
		return fmt.Errorf("fold the copy into one file: %w", err)
	}
	if mode != "delete" {
		return fmt.Errorf("fold the copy into one file: its journal stays in %s mode", mode)
	}
	return nil
}

// syncFile flushes a file, or a directory's entries, to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("flush %s: %w", path, err)
	}
	return nil
}

// removeDatabase removes a database file with its WAL and shared-memory files.
func removeDatabase(path string) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
}
