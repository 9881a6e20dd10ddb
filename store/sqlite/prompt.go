package sqlite

import (
	"context"
	"database/sql"
)

// addPromptColumn is migration 3: text search reads a prompt column instead of the stored
// document, which SQLite's JSON functions refuse when it nests deeper than 1,000 levels (the
// search then failed for everyone who could see such an inquiry). The column is filled from
// each document, decoded in Go, which reads whatever the store ever wrote.
func addPromptColumn(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "ALTER TABLE inquiries ADD COLUMN prompt TEXT NOT NULL DEFAULT ''"); err != nil {
		return err
	}
	return dialect.FillPromptColumn(ctx, tx)
}
