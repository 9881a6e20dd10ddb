package postgres

import (
	"context"
	"database/sql"
)

// addPromptColumn is migration 3: text search reads a prompt column instead of parsing each
// stored document (which fails on deep ones, and costs a parse per row). The column is filled
// from each document, decoded in Go, which reads whatever the store ever wrote.
func addPromptColumn(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "ALTER TABLE inquiries ADD COLUMN prompt TEXT NOT NULL DEFAULT ''"); err != nil {
		return err
	}
	return dialect.FillPromptColumn(ctx, tx)
}
