package sqlite

import (
	"context"
	"database/sql"
	"testing"

	"github.com/hitl-dev/hitl/store/storetest"
)

// Migration 13 chains the events an older hitl wrote, so an upgraded database verifies, and
// the events written after the upgrade chain on from them.
func TestEventsBeforeTheChainAreChainedByTheMigration(t *testing.T) {
	ctx := context.Background()
	db, path := migratedTo(t, 10)
	for _, ev := range storetest.EventsBeforeTheChain() {
		if _, err := db.ExecContext(ctx, "INSERT INTO events (seq, id, type, time, inquiry_id, session, actor, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			ev.Seq, ev.ID, ev.Type, micros(ev.Time), ev.InquiryID, sql.NullString{String: ev.Session, Valid: ev.Session != ""}, ev.Actor, string(ev.Data)); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.CheckUpgradedChain(t, s)
}
