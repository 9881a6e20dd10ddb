package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// dialect is how PostgreSQL spells what the stores share: numbered placeholders, a list as
// one array argument, booleans, times and lists of their own types.
var dialect = &sqlstore.Dialect{
	Placeholder: func(n int) string { return "$" + strconv.Itoa(n) },
	In:          func(w *sqlstore.Where, list []string) string { return "= ANY (" + w.Arg(list) + ")" },
	True:        func(column string) string { return column },
	False:       func(column string) string { return "NOT " + column },
	Never:       "FALSE",
	FalseColumn: "BOOLEAN NOT NULL DEFAULT FALSE",
	Time:        func(t time.Time) any { return t },
	Bool:        func(b bool) any { return b },
	ScanTime: func(t *time.Time) any {
		return utcDest{func(u time.Time) { *t = u }, func() error { return errNullTime }}
	},
	ScanNullTime: func(t **time.Time) any {
		return utcDest{func(u time.Time) { *t = &u }, func() error { *t = nil; return nil }}
	},
	ScanList:     func(l *[]string) any { return l },
	Like:         "ILIKE",
	Searchable:   searchable,
	Latest:       "'infinity'",
	SessionOrder: "s.ord",
	// OFFSET 0 keeps the planner from turning EXISTS into a hashable IN (simplify_EXISTS_query).
	PerRow: " OFFSET 0",
	Err:    dbError,
}

// searchable is the prompt as the prompt column keeps it: PostgreSQL text holds no NUL.
func searchable(prompt string) string { return strings.ReplaceAll(prompt, "\x00", "") }

var errNullTime = errors.New("a time column is NULL")

// utcDest reads a time column in UTC by set, or a NULL by null: from pgx, and from
// database/sql (the Go migrations).
type utcDest struct {
	set  func(time.Time)
	null func() error
}

func (u utcDest) ScanTimestamptz(v pgtype.Timestamptz) error {
	if !v.Valid {
		return u.null()
	}
	u.set(v.Time.UTC())
	return nil
}

func (u utcDest) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		return u.null()
	case time.Time:
		u.set(v.UTC())
		return nil
	}
	return fmt.Errorf("a time column holds %T", src)
}

// pgDB is the pool, or a transaction, as the shared reads take it.
type pgDB struct {
	q querier
	// planEach has PostgreSQL plan every run of a query with its own arguments, rather than
	// reuse the generic plan it caches for a prepared statement after five runs. That plan is
	// costed on the table as it was then and is made again only when an ANALYZE changes the
	// table's statistics: the log's tail read, prepared while the events table was nearly
	// empty, kept a sequential scan that took 20–200 ms once it held 40,000 events, for as long
	// as autovacuum (off on the project's machines) analyzed nothing.
	planEach bool
}

func (d pgDB) Query(ctx context.Context, sql string, args ...any) (sqlstore.Rows, error) {
	rows, err := d.q.Query(ctx, sql, d.args(args)...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

func (d pgDB) QueryRow(ctx context.Context, sql string, args ...any) sqlstore.Scanner {
	return d.q.QueryRow(ctx, sql, d.args(args)...)
}

// args are a query's arguments, led by the mode that sends it as an unnamed statement (pgx
// keeps its description, so it is still one round trip) when every run is to be planned.
func (d pgDB) args(args []any) []any {
	if !d.planEach {
		return args
	}
	return append([]any{pgx.QueryExecModeCacheDescribe}, args...)
}
