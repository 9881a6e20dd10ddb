// Package sqlstore holds what the SQLite and PostgreSQL stores do alike: the conditions of
// their reads, the reading of rows into hitl's records, the reads whose SQL differs only in
// its dialect, and the Go migrations that fill columns from the stored documents. What
// differs between the two databases is a Dialect, which each store passes in; each store
// keeps the SQL that is its own and all of its transactions.
package sqlstore

import (
	"context"
	"strings"
	"time"
)

// Dialect is how one database spells what the shared code writes.
type Dialect struct {
	// Placeholder is the text of a statement's nth argument (from 1).
	Placeholder func(n int) string
	// In is the condition that an expression is one of list (not empty), whose arguments it
	// adds to w: "IN (?, ?)" or "= ANY ($1)". Not negatable by a "NOT " before it ("NOT = ANY"
	// is no SQL): write "NOT (expr " + In + ")".
	In func(w *Where, list []string) string
	// True and False test a boolean column; Never is a condition no row meets.
	True, False func(column string) string
	Never       string
	// FalseColumn is the type of a boolean column that is false unless set.
	FalseColumn string
	// Time is the argument of a time, Bool the one of a boolean.
	Time func(time.Time) any
	Bool func(bool) any
	// ScanTime and ScanNullTime are the destinations that read a time column into t, and
	// ScanList the one that reads a column of a list of strings.
	ScanTime     func(t *time.Time) any
	ScanNullTime func(t **time.Time) any
	ScanList     func(l *[]string) any
	// Searchable is a prompt as the prompt column keeps it. Search, when the store has its
	// own, finds the inquiries (alias i) whose prompt holds text (as Searchable keeps it), in
	// any case: a condition, whose arguments it adds to w, and the index it reads, if any, to
	// join ("table s", whose rowids are the inquiries' ids): a list then walks the index's
	// rowids, newest first, and stops at its page. Without Search the condition is a scan of
	// every prompt with the operator Like, a case-insensitive match.
	Searchable func(prompt string) string
	Search     func(w *Where, text string) (join, cond string)
	Like       string
	// Latest is, in SQL, a time after every other: where a deadline of none sorts.
	Latest string
	// SessionOrder is the column (alias s) that orders sessions as they were created.
	SessionOrder string
	// PerRow ends a correlated EXISTS so that it runs once per row by its index, and is never
	// made a hash of every row it could match: PostgreSQL, given statistics, hashed all of a
	// person's assignments (every one of 100,000) to count 1,000 of them for the inbox.
	PerRow string
	// Err makes an error of the database's (nil for none) one of hitl's about what.
	Err func(err error, what string) error
}

// Scanner is a row to read: a row of a query for one, or the current row of Rows.
type Scanner interface{ Scan(dest ...any) error }

// Rows are the rows of a query, which Close releases.
type Rows interface {
	Scanner
	Next() bool
	Err() error
	Close()
}

// DB runs the shared reads on a store's connection: its pool, or its transaction.
type DB interface {
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) Scanner
}

// Where collects the conditions of a query and its arguments, in the order of its text.
type Where struct {
	d     *Dialect
	conds []string
	Args  []any
	// join is the index a search reads, joined to inquiries (Dialect.Search), or "".
	join string
}

// Where is a query's empty set of conditions.
func (d *Dialect) Where() *Where { return &Where{d: d} }

// Arg adds an argument and returns its placeholder.
func (w *Where) Arg(v any) string {
	w.Args = append(w.Args, v)
	return w.d.Placeholder(len(w.Args))
}

// In is the condition that an expression is one of list (not empty); see Dialect.In for its
// negation.
func (w *Where) In(list []string) string { return w.d.In(w, list) }

// Add adds a condition, whose arguments Arg added as it was written.
func (w *Where) Add(cond string) { w.conds = append(w.conds, cond) }

func (w *Where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// From is the inquiries (alias i) a query of inquiries reads: with the index its search
// reads, if any.
func (w *Where) From() string {
	if w.join == "" {
		return " FROM inquiries i"
	}
	return " FROM inquiries i JOIN " + w.join + " ON s.rowid = i.id"
}

// ID is an inquiry's id as a list in the order of ids reads it: the rowid of the index its
// search reads, if any, which the index then walks in that order instead of the inquiries.
func (w *Where) ID() string {
	if w.join == "" {
		return "i.id"
	}
	return "s.rowid"
}

// Placeholders is "?, ?, ..." for n arguments: SQLite's IN lists.
func Placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// Args are vs as the arguments of a statement.
func Args[T any](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// Each calls fn with each row of rows, and closes them.
func Each(rows Rows, fn func(Scanner) error) error {
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// All scans each row of rows with scan: nil when there are none.
func All[T any](rows Rows, scan func(Scanner) (T, error)) ([]T, error) {
	var out []T
	err := Each(rows, func(sc Scanner) error {
		v, err := scan(sc)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Query scans each row of a query with scan (nil when there are none); what names the rows
// in its error.
func Query[T any](ctx context.Context, d *Dialect, db DB, what string, scan func(Scanner) (T, error), sql string, args ...any) ([]T, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, d.Err(err, what)
	}
	out, err := All(rows, scan)
	return out, d.Err(err, what)
}

// One scans the row of a query with scan; what names it in its error (not found, when there
// is none).
func One[T any](ctx context.Context, d *Dialect, db DB, what string, scan func(Scanner) (T, error), sql string, args ...any) (T, error) {
	v, err := scan(db.QueryRow(ctx, sql, args...))
	return v, d.Err(err, what)
}

// mapOf reads the (name, value) rows of a query into a map.
func mapOf[V any](ctx context.Context, d *Dialect, db DB, what, sql string, args ...any) (map[string]V, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, d.Err(err, what)
	}
	out := map[string]V{}
	err = Each(rows, func(sc Scanner) error {
		var (
			k string
			v V
		)
		err := sc.Scan(&k, &v)
		out[k] = v
		return err
	})
	if err != nil {
		return nil, d.Err(err, what)
	}
	return out, nil
}

// Column reads a query's one column.
func Column[T any](ctx context.Context, db DB, sql string, args ...any) ([]T, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return All(rows, func(sc Scanner) (v T, err error) { return v, sc.Scan(&v) })
}
