package sqlite

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// Migration 17 fills who answered and whether a timeout fell back for the inquiries that
// became final before it, deep context or not: the stats count them as they count new ones.
func TestStatsColumnsBackfilled(t *testing.T) {
	ctx := context.Background()
	db, path := migratedTo(t, 14)
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	ann := "ann"
	for _, inq := range []*hitl.Inquiry{
		{Status: hitl.StatusResponded, RespondedBy: &ann, Context: json.RawMessage(strings.Repeat("[", 2000) + strings.Repeat("]", 2000))},
		{Status: hitl.StatusTimeout, FallbackApplied: true},
		{Status: hitl.StatusPending},
	} {
		inq.Prompt, inq.RequestType, inq.CreatedBy, inq.CreatedAt, inq.UpdatedAt = "q", hitl.RequestInput, "agent-a", at, at.Add(time.Minute)
		doc, _ := json.Marshal(inq)
		if _, err := db.ExecContext(ctx, `INSERT INTO inquiries (status, origin, request_type, created_by, unassigned, exclusive, created_at, updated_at, doc)
			VALUES (?, '', 'input', 'agent-a', 1, 0, ?, ?, ?)`, inq.Status, micros(at), micros(at.Add(time.Minute)), doc); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	data, err := s.Stats(ctx, hitl.StatsQuery{From: at, Until: at.Add(time.Hour), MaxAnswers: 10, Owner: &hitl.StatsOwner{Name: "ann"}})
	if err != nil || len(data.Answers) != 1 || data.Answers[0].RespondedBy != "ann" || len(data.Days) != 1 || data.Days[0].Answered != 1 {
		t.Fatalf("ann's stats after the migration: %+v, %v", data, err)
	}
	data, err = s.Stats(ctx, hitl.StatsQuery{From: at, Until: at.Add(time.Hour), MaxAnswers: 10})
	if err != nil || len(data.Days) != 1 || data.Days[0] != (hitl.DayCount{Date: "2026-11-22", Answered: 1, TimedOut: 1, FellBack: 1}) {
		t.Fatalf("stats after the migration: %+v, %v", data, err)
	}
}
