package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// Migration 3 fills the prompt column of the inquiries stored before it, deep context or not.
func TestPromptColumnBackfilled(t *testing.T) {
	ctx := context.Background()
	db, path := migratedTo(t, 2)
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, inq := range []*hitl.Inquiry{
		{Prompt: "Deep context here", Context: json.RawMessage(strings.Repeat("[", 2000) + strings.Repeat("]", 2000))},
		{Prompt: "Plain question"},
	} {
		inq.Status, inq.RequestType, inq.CreatedBy, inq.CreatedAt, inq.UpdatedAt = hitl.StatusPending, hitl.RequestInput, "agent-a", at, at
		doc, _ := json.Marshal(inq)
		if _, err := db.ExecContext(ctx, `INSERT INTO inquiries (status, origin, request_type, created_by, unassigned, exclusive, created_at, updated_at, doc)
			VALUES ('pending', '', 'input', 'agent-a', 1, 0, ?, ?, ?)`, micros(at), micros(at), doc); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for text, want := range map[string]int{"deep": 1, "PLAIN": 1, "e": 2, "nothing": 0} {
		n, err := s.CountInquiries(ctx, hitl.InquiryFilter{Text: text, Visibility: hitl.Visibility{All: true}})
		if err != nil || n != want {
			t.Errorf("search %q after the migration: %d, %v; want %d", text, n, err, want)
		}
	}
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
