package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// AddPromptColumn is migration 3: text search reads a prompt column instead of the stored
// document, which the databases' JSON functions refuse when it nests deep (SQLite's beyond
// 1,000 levels: the search then failed for everyone who could see such an inquiry), and
// would parse for each row. The column is filled from each document, decoded in Go, which
// reads whatever the store ever wrote.
func (d *Dialect) AddPromptColumn(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "ALTER TABLE inquiries ADD COLUMN prompt TEXT NOT NULL DEFAULT ''"); err != nil {
		return err
	}
	return d.fillFromDocs(ctx, tx, "", "UPDATE inquiries SET prompt = "+d.Placeholder(1)+" WHERE id = "+d.Placeholder(2), func(doc []byte) []any {
		var v struct{ Prompt string }
		json.Unmarshal(doc, &v) // a document that does not decode is unreadable anyway: it stays out of searches
		return []any{d.Searchable(v.Prompt)}
	})
}

// AddStatsColumns is migration 17: the stats read who answered and whether a timeout fell
// back from columns, not from each stored document (JSON functions refuse deep ones, and a
// parse per row is what a window of many answers cannot afford). A final inquiry's
// updated_at is when it became final, so the window is an index on it. The columns of the
// inquiries answered before are filled from their documents, decoded in Go.
func (d *Dialect) AddStatsColumns(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range []string{
		"ALTER TABLE inquiries ADD COLUMN responded_by TEXT",
		"ALTER TABLE inquiries ADD COLUMN fallback_applied " + d.FalseColumn,
		"CREATE INDEX inquiries_final ON inquiries (updated_at) WHERE status <> 'pending'",
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
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

// AppliedVersion reads the newest schema version goose's table in db records as applied: -1
// when hasTable (a query of whether the table exists) says there is none.
func AppliedVersion(ctx context.Context, db *sql.DB, hasTable string) (int64, error) {
	var found bool
	if err := db.QueryRowContext(ctx, hasTable).Scan(&found); err != nil || !found {
		return -1, err
	}
	var have int64
	err := db.QueryRowContext(ctx, "SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version WHERE is_applied").Scan(&have)
	return have, err
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

// CheckApplied refuses, before any migration runs, a database that another hitl migrated:
// one newer than this hitl (it would run on a schema it does not know, and its older
// statements would corrupt what the newer one keeps), or one that a different build took
// along another line of migrations (a development branch). Left to the migration tool, the
// first is served silently and the second fails with its own words; these say what to do.
// known are this hitl's migration versions, ascending; hasTable is as for AppliedVersion.
func CheckApplied(ctx context.Context, db *sql.DB, hasTable string, known []int64) error {
	var found bool
	if err := db.QueryRowContext(ctx, hasTable).Scan(&found); err != nil || !found || len(known) == 0 {
		return err
	}
	rows, err := db.QueryContext(ctx, "SELECT DISTINCT version_id FROM goose_db_version WHERE is_applied AND version_id > 0 ORDER BY version_id")
	if err != nil {
		return err
	}
	var applied []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		applied = append(applied, v)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(applied) == 0 {
		return nil
	}
	newest, knows := known[len(known)-1], make(map[int64]bool, len(known))
	for _, v := range known {
		knows[v] = true
	}
	has := make(map[int64]bool, len(applied))
	for _, v := range applied {
		has[v] = true
	}
	if last := applied[len(applied)-1]; last > newest {
		return fmt.Errorf("this database was migrated by a newer hitl (schema version %d; this hitl knows versions up to %d): run the newer hitl, or point this one at another database (--db)", last, newest)
	}
	for _, v := range applied {
		if !knows[v] {
			return fmt.Errorf("this database has schema migration %d, which this hitl does not have: another build of hitl (a development branch?) migrated it; run that build, or point this one at another database (--db)", v)
		}
	}
	for _, v := range known {
		if v < applied[len(applied)-1] && !has[v] {
			return fmt.Errorf("this database lacks schema migration %d but has later ones: another build of hitl (a development branch?) migrated it; run that build, or point this one at another database (--db)", v)
		}
	}
	return nil
}
