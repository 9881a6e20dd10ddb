package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/audit"
)

// Migration 13 chains the events an older hitl wrote, so an upgraded database verifies, and
// the events written after the upgrade chain on from them.
func TestEventsBeforeTheChainAreChainedByTheMigration(t *testing.T) {
	ctx := context.Background()
	url, drop, err := TempSchema(ctx, baseForTest(t), "hitl_test_")
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	pool, err := connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrateTo(ctx, pool, 10); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 22, 10, 0, 0, 123456000, time.UTC)
	one := int64(1)
	for seq, ev := range []hitl.Event{
		{ID: "old-1", Type: hitl.EventInquiryCreated, Time: at, InquiryID: &one, Actor: "agent", Data: []byte(`{"id":1,"status":"pending"}`)},
		{ID: "old-2", Type: hitl.EventInquiryResponded, Time: at, InquiryID: &one, Actor: "alice", Data: []byte(`{"id":1,"status":"answered","response":{"approved":true}}`)},
		{ID: "old-3", Type: hitl.EventSessionUpdated, Time: at, Session: "s1", Actor: "agent", Data: []byte(`{"key":"s1"}`)},
	} {
		if _, err := pool.Exec(ctx, "INSERT INTO events (seq, id, type, time, inquiry_id, session, actor, data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
			seq+1, ev.ID, ev.Type, ev.Time, ev.InquiryID, nullText(ev.Session), ev.Actor, string(ev.Data)); err != nil {
			t.Fatal(err)
		}
	}
	pool.Close()

	s, err := Open(ctx, url, nil)
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
