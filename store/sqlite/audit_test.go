package sqlite

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
)

// Migration 13 chains the events an older hitl wrote, so an upgraded database verifies, and
// the events written after the upgrade chain on from them.
func TestEventsBeforeTheChainAreChainedByTheMigration(t *testing.T) {
	ctx := context.Background()
	db, path := migratedTo(t, 10)
	at := time.Date(2026, 11, 22, 10, 0, 0, 123456000, time.UTC)
	one := int64(1)
	for _, ev := range oldEvents(at, &one) {
		if _, err := db.ExecContext(ctx, "INSERT INTO events (id, type, time, inquiry_id, session, actor, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
			ev.ID, ev.Type, micros(ev.Time), ev.InquiryID, sql.NullString{String: ev.Session, Valid: ev.Session != ""}, ev.Actor, string(ev.Data)); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Update(ctx, func(tx hitl.Tx) error {
		return tx.AppendEvent(&hitl.Event{ID: "new", Type: hitl.EventSessionUpdated, Time: at, Session: "s1", Actor: "agent", Data: []byte(`{}`)})
	}); err != nil {
		t.Fatal(err)
	}
	v, err := audit.VerifyLog(ctx, s, audit.Published{Seq: 4})
	if err != nil || v.Events != 4 {
		t.Fatalf("an upgraded database: verified %d events, %v; want 4", v.Events, err)
	}
}

// oldEvents are what an older hitl wrote: an inquiry asked and answered, and a session event.
func oldEvents(at time.Time, inquiry *int64) []hitl.Event {
	return []hitl.Event{
		{ID: "old-1", Type: hitl.EventInquiryCreated, Time: at, InquiryID: inquiry, Actor: "agent", Data: []byte(`{"id":1,"status":"pending"}`)},
		{ID: "old-2", Type: hitl.EventInquiryResponded, Time: at, InquiryID: inquiry, Actor: "alice", Data: []byte(`{"id":1,"status":"answered","response":{"approved":true}}`)},
		{ID: "old-3", Type: hitl.EventSessionUpdated, Time: at, Session: "s1", Actor: "agent", Data: []byte(`{"key":"s1"}`)},
	}
}
