package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/store/postgres"
	"github.com/hitl-dev/hitl/store/sqlite"
)

func restoreCmd() *cobra.Command {
	var (
		db    string
		force bool
	)
	cmd := &cobra.Command{
		Use:   "restore [BACKUP] --db DEST",
		Short: "Put a backup in place, so that no id a client holds is ever given out again",
		Long: `Restore a backup so that the server goes on from it without ever giving out again a number
that clients may hold: after the backup, the server it came from went on giving out inquiry
ids, integer identities and event seqs, which agents, answer links, reply tokens and streams
still hold. The backup cannot know how many; the restore moves each of these sequences to the
time of the restore counted in microseconds since 2026-11-01 (UTC), a number no hitl server
can have reached: it would have had to give out more than a million a second.

SQLite: stop 'hitl serve', then run 'hitl restore BACKUP --db DEST'. It checks that BACKUP is
a whole hitl database (its schema version, SQLite's integrity check), copies it beside DEST,
moves its sequences, and renames the copy over DEST in one step: DEST is either as it was or
the restored backup. It refuses a DEST that a running server has open, and an existing DEST
unless --force (the database there is replaced, with what it holds). A server started on a
plain copy of a backup that 'hitl backup' wrote moves the sequences too, at its first start.

PostgreSQL: restore the dump into an empty database with pg_restore first, then, before any
node starts on it, run 'hitl restore --db URL' on that database, without BACKUP.

What the server the backup came from did after the backup is not in the restored database:
answers given since are pending again, keys and webhooks made since are gone, and those revoked
or deleted since are back (check hitl keys ls once it runs). A stream resuming after a seq from after the
backup gets "event: reset" with "reason": "unknown_position" and the seq to resume after; a
client reads again what it holds. 'hitl audit verify --db DEST' verifies the log across the
seqs the restore skipped.`,
		Example: `  hitl restore /backups/hitl-2026-11-24.db --db ~/.local/share/hitl/hitl.db --force
  pg_restore -d postgres://hitl@db/hitl_restored hitl.dump && hitl restore --db postgres://hitl@db/hitl_restored`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var (
				done *hitl.AuditRestore
				err  error
			)
			if server.IsPostgres(db) {
				if len(args) > 0 {
					return usagef("for PostgreSQL, restore the dump with pg_restore -d URL first, then run hitl restore --db URL without a file")
				}
				done, err = restorePostgres(cmd.Context(), db)
			} else {
				if len(args) != 1 {
					return usagef("expected the backup file to restore, got %d arguments", len(args))
				}
				done, err = restoreSQLite(cmd.Context(), args[0], db, force)
			}
			if err != nil {
				return err
			}
			from := "The database"
			if len(args) > 0 {
				from = "The backup " + args[0]
			}
			taken := ""
			if done.BackupTakenAt != nil {
				taken = " (taken " + done.BackupTakenAt.Local().Format(time.RFC1123) + ")"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s%s is restored in %s.\n", from, taken, (&server.Config{DB: db}).DBName())
			fmt.Fprintf(cmd.ErrOrStderr(), "Inquiry ids and integer identities go on from %d, event seqs from %d: none that the server the backup came from may have given out after the backup is given out again.\n",
				done.NextInquiryID, done.Skipped.To+1)
			fmt.Fprintln(cmd.ErrOrStderr(), "What was done after the backup is not in it. Start hitl serve on it, then check its keys (hitl keys ls): a key revoked after the backup works again.")
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", envOr("HITL_DB", server.DefaultDB()), "the SQLite database file to restore to, or the postgres:// URL of the database pg_restore restored (HITL_DB)")
	cmd.Flags().BoolVar(&force, "force", false, "replace the SQLite database file at --db, which must not be in use")
	return cmd
}

// restoreSQLite puts a copy of the backup at dest with its sequences moved.
func restoreSQLite(ctx context.Context, backup, dest string, force bool) (*hitl.AuditRestore, error) {
	same, err := sameFile(backup, dest)
	if err != nil {
		return nil, err
	}
	if same {
		return nil, usagef("the backup %s is the database --db names: restore it to another file", backup)
	}
	if err := sqlite.CheckBackup(ctx, backup); err != nil {
		if hitl.ErrorCode(err) == hitl.EInvalid {
			return nil, usagef("%s", hitl.ErrorMessage(err))
		}
		return nil, err
	}
	fi, err := os.Stat(dest)
	switch {
	case err == nil && fi.IsDir():
		return nil, usagef("--db %s is a directory: name the database file", dest)
	case err == nil && !force:
		return nil, usagef("--db %s exists: restoring replaces it and what it holds; stop hitl serve on it and add --force", dest)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	inUse, err := sqlite.InUse(ctx, dest)
	if err != nil {
		return nil, err
	}
	if inUse {
		return nil, fmt.Errorf("%s is in use, by a hitl serve or another program: stop it first, then restore", dest)
	}
	var done *hitl.AuditRestore
	err = sqlite.Install(ctx, backup, dest, func(path string) error {
		st, err := sqlite.Open(ctx, path)
		if err != nil {
			return err
		}
		done, err = engine.New(st, engine.Options{}).Restore(ctx, "hitl restore")
		return errors.Join(err, st.Close())
	})
	return done, err
}

// sameFile reports whether a and b name one file (b may not exist).
func sameFile(a, b string) (bool, error) {
	fa, err := os.Stat(a)
	if err != nil {
		return false, nil // CheckBackup says what is wrong with it
	}
	fb, err := os.Stat(b)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(fa, fb), nil
}

// restorePostgres moves the sequences of a database that pg_restore restored.
func restorePostgres(ctx context.Context, db string) (*hitl.AuditRestore, error) {
	name := (&server.Config{DB: db}).DBName()
	have, want, err := postgres.SchemaVersion(ctx, db)
	switch {
	case err != nil:
		// In words only: a dial error kept as such would read as the hitl server being unreachable.
		return nil, fmt.Errorf("cannot read the database %s: %v", name, err)
	case have < 0:
		return nil, usagef("%s is not a hitl database: it has no hitl schema (restore the dump into it with pg_restore first; a search_path in the URL picks the schema)", name)
	case have > want:
		return nil, usagef("%s is at schema version %d, newer than this hitl knows (%d): restore it with the hitl that wrote it", name, have, want)
	}
	st, err := postgres.Open(ctx, db, nil)
	if err != nil {
		return nil, err
	}
	done, err := engine.New(st, engine.Options{}).Restore(ctx, "hitl restore")
	return done, errors.Join(err, st.Close())
}
