package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/storetest"
)

// A prompt keeps its NUL in the document, and the prompt column keeps it without.
func TestUpgrades(t *testing.T) {
	storetest.RunUpgrades(t, olderDatabase, true)
}

// olderDatabase is a database that a hitl at version left (storetest.Older).
func olderDatabase(t *testing.T, version int64) storetest.Older {
	url, pool := schemaAt(t, version)
	// Closing the database of the pool leaves the pool open: Open closes it.
	return storetest.Older{Dialect: dialect, DB: stdlib.OpenDBFromPool(pool), Open: func() (hitl.Store, error) {
		pool.Close()
		return Open(context.Background(), url, nil)
	}}
}

// A database another hitl migrated is refused, not served or half migrated.
func TestMigratedElsewhere(t *testing.T) {
	storetest.RunMigratedElsewhere(t, olderDatabase)
}

// schemaAt is a new schema with the migrations up to version applied, and a pool on it: the
// state of a database that an older hitl left, for a test of the migrations after it.
func schemaAt(t *testing.T, version int64) (string, *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	url, drop, err := TempSchema(ctx, baseForTest(t), "hitl_test_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { drop() })
	pool, err := connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := migrateTo(ctx, pool, version); err != nil {
		t.Fatal(err)
	}
	return url, pool
}
