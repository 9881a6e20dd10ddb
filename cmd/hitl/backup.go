package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/store/sqlite"
)

func backupCmd() *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "backup --db PATH DEST",
		Short: "Write a consistent copy of a SQLite database, while hitl serve goes on using it",
		Long: `Copy the SQLite database of --db to DEST, a new file, as of one committed moment: every
answer acknowledged before the backup started is in it. 'hitl serve' may keep running on the
database meanwhile; the copy is read from a snapshot and compacted (SQLite's VACUUM INTO).

To restore: stop 'hitl serve', run 'hitl restore DEST --db PATH --force', start 'hitl serve'
again (see hitl restore --help). The backup is marked as one: a server started on a plain copy
of it, too, moves its inquiry ids, integer identities and event seqs past every number the
server it came from may have given out after the backup, at its first start.
'hitl audit verify --db DEST' checks a backup's log.

PostgreSQL: back up with pg_dump (see the README, Operating hitl).`,
		Example: `  hitl backup --db ~/.local/share/hitl/hitl.db /backups/hitl-$(date +%F).db`,
		Args:    exactArgs(1, "the file to write the backup to"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if server.IsPostgres(db) {
				return usagef("hitl backup copies a SQLite file; for PostgreSQL use pg_dump -Fc -f hitl.dump 'DATABASE_URL'")
			}
			if err := sqlite.Backup(cmd.Context(), db, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Backed up %s to %s.\n", db, args[0])
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", envOr("HITL_DB", server.DefaultDB()), "the SQLite database file (HITL_DB)")
	return cmd
}
