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
	return fillFromDocs(ctx, tx, "", "UPDATE inquiries SET prompt = ? WHERE id = ?", func(doc []byte) []any {
		var d struct{ Prompt string }
		json.Unmarshal(doc, &d) // a document that does not decode is unreadable anyway: it stays out of searches
		return []any{d.Prompt}
	})
}

// fillFromDocs sets columns of the inquiries that match cond (" AND ...", or "") from their
// stored documents, 500 at a time, decoded in Go, which reads whatever the store ever wrote
// (SQLite's JSON functions refuse documents nested deeper than 1,000 levels). values decodes
// a document into the arguments of set, whose last argument is the inquiry's id.
func fillFromDocs(ctx context.Context, tx *sql.Tx, cond, set string, values func(doc []byte) []any) error {
	for after := int64(0); ; {
		type row struct {
			id   int64
			args []any
		}
		var page []row
		rows, err := tx.QueryContext(ctx, "SELECT id, doc FROM inquiries WHERE id > ?"+cond+" ORDER BY id LIMIT 500", after)
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
