package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/store/storetest"
)

func TestUpgrades(t *testing.T) {
	storetest.RunUpgrades(t, func(t *testing.T, version int64) storetest.Older {
		db, path := migratedTo(t, version)
		return storetest.Older{Dialect: dialect, Exec: func(stmt string, args ...any) error {
			_, err := db.Exec(stmt, args...)
			return err
		}, Open: func() (hitl.Store, error) {
			db.Close()
			return Open(context.Background(), path)
		}}
	}, false)
}

// migratedTo is a new database file with the migrations up to version applied: the state of
// a database that an older hitl left, for a test of the migrations after it.
func migratedTo(t *testing.T, version int64) (*sql.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hitl.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := migrations(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(context.Background(), version); err != nil {
		t.Fatal(err)
	}
	return db, path
}
