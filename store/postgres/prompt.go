package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// searchable is the prompt as the prompt column keeps it: PostgreSQL text holds no NUL.
func searchable(prompt string) string { return strings.ReplaceAll(prompt, "\x00", "") }

// addPromptColumn is migration 3: text search reads a prompt column instead of parsing each
// stored document (which fails on deep ones, and costs a parse per row). The column is filled
// from each document, decoded in Go, which reads whatever the store ever wrote.
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
		rows, err := tx.QueryContext(ctx, "SELECT id, doc FROM inquiries WHERE id > $1 ORDER BY id LIMIT 500", after)
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
			page = append(page, row{id, searchable(d.Prompt)})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(page) == 0 {
			return nil
		}
		for _, r := range page {
			if _, err := tx.ExecContext(ctx, "UPDATE inquiries SET prompt = $1 WHERE id = $2", r.prompt, r.id); err != nil {
				return fmt.Errorf("inquiry %d: %w", r.id, err)
			}
		}
		after = page[len(page)-1].id
	}
}
