package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// addPromptColumn is migration 3: text search reads a prompt column instead of the stored
// document, which SQLite's JSON functions refuse when it nests deeper than 1,000 levels (the
// search then failed for everyone who could see such an inquiry). The column is filled from
// each document, decoded in Go, which reads whatever the store ever wrote.
func addPromptColumn(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "ALTER TABLE inquiries ADD COLUMN prompt TEXT NOT NULL DEFAULT ''"); err != nil {
		return err
	}
	for after := int64(0); ; {
		type row struct {
			id     int64
			prompt string
		}
		var page []row
		rows, err := tx.QueryContext(ctx, "SELECT id, doc FROM inquiries WHERE id > ? ORDER BY id LIMIT 500", after)
		if err != nil {
			return err
		}
		for rows.Next() {
			var (
				id  int64
				doc string
				d   struct{ Prompt string }
			)
			if err := rows.Scan(&id, &doc); err != nil {
				rows.Close()
				return err
			}
			// A document that does not decode is unreadable anyway: it stays out of searches.
			json.Unmarshal([]byte(doc), &d)
			page = append(page, row{id, d.Prompt})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(page) == 0 {
			return nil
		}
		for _, r := range page {
			if _, err := tx.ExecContext(ctx, "UPDATE inquiries SET prompt = ? WHERE id = ?", r.prompt, r.id); err != nil {
				return fmt.Errorf("inquiry %d: %w", r.id, err)
			}
		}
		after = page[len(page)-1].id
	}
}
