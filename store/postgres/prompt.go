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
	return fillFromDocs(ctx, tx, "", "UPDATE inquiries SET prompt = $1 WHERE id = $2", func(doc []byte) []any {
		var d struct{ Prompt string }
		json.Unmarshal(doc, &d) // a document that does not decode is unreadable anyway: it stays out of searches
		return []any{searchable(d.Prompt)}
	})
}

// fillFromDocs sets columns of the inquiries that match cond (" AND ...", or "") from their
// stored documents, 500 at a time, decoded in Go, which reads whatever the store ever wrote
// (parsing JSON in SQL fails on deep documents). values decodes a document into the
// arguments of set, whose last argument is the inquiry's id.
func fillFromDocs(ctx context.Context, tx *sql.Tx, cond, set string, values func(doc []byte) []any) error {
	for after := int64(0); ; {
		type row struct {
			id   int64
			args []any
		}
		var page []row
		rows, err := tx.QueryContext(ctx, "SELECT id, doc FROM inquiries WHERE id > $1"+cond+" ORDER BY id LIMIT 500", after)
		if err != nil {
			return err
		}
		for rows.Next() {
			var (
				id  int64
				doc string
			)
			if err := rows.Scan(&id, &doc); err != nil {
				rows.Close()
				return err
			}
			page = append(page, row{id, values([]byte(doc))})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(page) == 0 {
			return nil
		}
		for _, r := range page {
			if _, err := tx.ExecContext(ctx, set, append(r.args, r.id)...); err != nil {
				return fmt.Errorf("inquiry %d: %w", r.id, err)
			}
		}
		after = page[len(page)-1].id
	}
}
