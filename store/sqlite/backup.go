package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
)

// Backup writes a consistent copy of the database at path to dest (a new file) with VACUUM
// INTO, while a server may go on writing to it: the copy is the database as of one committed
// moment (a read transaction's snapshot of the WAL), compacted, with every answer committed
// before that moment and none after. It opens the database read-only and changes nothing in it.
func Backup(ctx context.Context, path, dest string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no database at %s", path)
	}
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("%s exists: a backup is written to a new file, and never over another", dest)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("mode", "ro")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dest); err != nil {
		os.Remove(dest) // a copy cut short is no backup
		return fmt.Errorf("back up %s: %w", path, err)
	}
	// The copy holds what the database holds: answers and token hashes.
	return os.Chmod(dest, 0o600)
}
