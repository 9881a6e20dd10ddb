package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// FillPromptColumn fills the prompt column (migration 3) of the inquiries stored before it
// from their documents.
func (d *Dialect) FillPromptColumn(ctx context.Context, tx *sql.Tx) error {
	return d.fillFromDocs(ctx, tx, "", "UPDATE inquiries SET prompt = "+d.Placeholder(1)+" WHERE id = "+d.Placeholder(2), func(doc []byte) []any {
		var v struct{ Prompt string }
		json.Unmarshal(doc, &v) // a document that does not decode is unreadable anyway: it stays out of searches
		return []any{d.Searchable(v.Prompt)}
	})
}

// FillStatsColumns fills who answered and whether a timeout fell back (migration 17) of the
// inquiries that became final before it, from their documents.
func (d *Dialect) FillStatsColumns(ctx context.Context, tx *sql.Tx) error {
	set := "UPDATE inquiries SET responded_by = " + d.Placeholder(1) + ", fallback_applied = " + d.Placeholder(2) + " WHERE id = " + d.Placeholder(3)
	return d.fillFromDocs(ctx, tx, " AND status <> 'pending'", set, func(doc []byte) []any {
		var v struct {
			RespondedBy     *string `json:"responded_by"`
			FallbackApplied bool    `json:"fallback_applied"`
		}
		json.Unmarshal(doc, &v) // a document that does not decode is unreadable anyway: answered by nobody
		return []any{v.RespondedBy, d.Bool(v.FallbackApplied)}
	})
}

// fillFromDocs sets columns of the inquiries that match cond (" AND ...", or "") from their
// stored documents, 500 at a time, decoded in Go, which reads whatever the store ever wrote
// (the databases' JSON functions refuse deep documents, or parse each row). values decodes a
// document into the arguments of set, whose last argument is the inquiry's id.
func (d *Dialect) fillFromDocs(ctx context.Context, tx *sql.Tx, cond, set string, values func(doc []byte) []any) error {
	for after := int64(0); ; {
		type row struct {
			id   int64
			args []any
		}
		var page []row
		rows, err := tx.QueryContext(ctx, "SELECT id, doc FROM inquiries WHERE id > "+d.Placeholder(1)+cond+" ORDER BY id LIMIT 500", after)
		if err != nil {
			return err
		}
		err = Each(sqlRows{rows}, func(sc Scanner) error {
			var (
				id  int64
				doc string
			)
			err := sc.Scan(&id, &doc)
			page = append(page, row{id, values([]byte(doc))})
			return err
		})
		if err != nil {
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

// SQLRows are database/sql's rows as Rows.
func SQLRows(rows *sql.Rows) Rows { return sqlRows{rows} }

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

// SQL is database/sql's pool, connection or transaction as a DB.
type SQL struct {
	Q interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
}

func (s SQL) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	rows, err := s.Q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

func (s SQL) QueryRow(ctx context.Context, query string, args ...any) Scanner {
	return s.Q.QueryRowContext(ctx, query, args...)
}
