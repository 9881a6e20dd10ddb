package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// Backup writes a consistent copy of the database at path to dest (a new file) with VACUUM
// INTO, while a server may go on writing to it: the copy is the database as of one committed
// moment (a read transaction's snapshot of the WAL), compacted, with every answer committed
// before that moment and none after. It opens the database read-only and changes nothing in it.
//
// The copy is marked as a backup, with the time it was taken: a server started on it knows it
// runs on a restored backup, and moves its sequences past every number the server it came
// from may have given out since (engine.FinishRestore).
func Backup(ctx context.Context, path, dest string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no database at %s", path)
	}
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("%s exists: a backup is written to a new file, and never over another", dest)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	db, err := openReadOnly(path)
	if err != nil {
		return err
	}
	defer db.Close()
	// Taken before the snapshot: the mark never says later than the copy's moment.
	taken := time.Now()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dest); err != nil {
		os.Remove(dest) // a copy cut short is no backup
		return fmt.Errorf("back up %s: %w", path, err)
	}
	// The copy holds what the database holds: answers and token hashes.
	if err := os.Chmod(dest, 0o600); err != nil {
		return err
	}
	if err := markBackup(ctx, dest, taken); err != nil {
		removeDatabase(dest)
		return fmt.Errorf("mark the backup %s: %w", dest, err)
	}
	return nil
}
