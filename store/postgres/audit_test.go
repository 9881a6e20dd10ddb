package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hitl-dev/hitl/store/storetest"
)

// Migration 13 chains the events an older hitl wrote, so an upgraded database verifies, and
// the events written after the upgrade chain on from them.
func TestEventsBeforeTheChainAreChainedByTheMigration(t *testing.T) {
	ctx := context.Background()
	url, pool := schemaAt(t, 10)
	for _, ev := range storetest.EventsBeforeTheChain() {
		if _, err := pool.Exec(ctx, "INSERT INTO events (seq, id, type, time, inquiry_id, session, actor, data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
			ev.Seq, ev.ID, ev.Type, ev.Time, ev.InquiryID, nullText(ev.Session), ev.Actor, string(ev.Data)); err != nil {
			t.Fatal(err)
		}
	}
	pool.Close()
	s, err := Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.CheckUpgradedChain(t, s)
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
