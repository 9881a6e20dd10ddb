package postgres

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// Migration 3 fills the prompt column of the inquiries stored before it, deep context or not.
func TestPromptColumnBackfilled(t *testing.T) {
	ctx := context.Background()
	url, pool := schemaAt(t, 2)
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for _, inq := range []*hitl.Inquiry{
		{Prompt: "Deep context here", Context: json.RawMessage(strings.Repeat("[", 2000) + strings.Repeat("]", 2000))},
		{Prompt: "Plain question \x00 with a NUL"},
	} {
		inq.Status, inq.RequestType, inq.CreatedBy, inq.CreatedAt, inq.UpdatedAt = hitl.StatusPending, hitl.RequestInput, "agent-a", at, at
		doc, _ := json.Marshal(inq)
		if _, err := pool.Exec(ctx, `INSERT INTO inquiries (status, origin, request_type, created_by, unassigned, exclusive, created_at, updated_at, doc)
			VALUES ('pending', '', 'input', 'agent-a', TRUE, FALSE, $1, $1, $2)`, at, string(doc)); err != nil {
			t.Fatal(err)
		}
	}
	pool.Close()

	s, err := Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for text, want := range map[string]int{"deep": 1, "PLAIN": 1, "e": 2, "nothing": 0, "with a": 1} {
		n, err := s.CountInquiries(ctx, hitl.InquiryFilter{Text: text, Visibility: hitl.Visibility{All: true}})
		if err != nil || n != want {
			t.Errorf("search %q after the migration: %d, %v; want %d", text, n, err, want)
		}
	}
}
