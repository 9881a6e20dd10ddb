package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hitl-dev/hitl"
)

// TestResponderVisibilityReadsAssignmentsByIndex: with statistics, PostgreSQL turned a
// responder's visibility (unassigned, or an assignment to them) into a hash of every
// assignment of the person, built at each of the inbox's counts: 30 ms at 100,000 ended
// inquiries, growing with the history. The assignment is now looked up per row by its index,
// whatever the statistics say. (In the package, for the dialect's SQL; the pgtest helper
// imports this package.)
func TestResponderVisibilityReadsAssignmentsByIndex(t *testing.T) {
	base := os.Getenv("HITL_TEST_POSTGRES_URL")
	if base == "" {
		t.Skip("HITL_TEST_POSTGRES_URL is not set")
	}
	ctx := context.Background()
	url, drop, err := TempSchema(ctx, base, "hitl_test_")
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	s, err := Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err = s.Update(ctx, func(tx hitl.Tx) error {
		for i := range 3000 {
			inq := &hitl.Inquiry{Status: hitl.StatusResponded, Prompt: fmt.Sprintf("Deploy build %d?", i), RequestType: hitl.RequestApproval,
				ResponseSchema: json.RawMessage(`{"type":"object"}`), CreatedBy: "bot", AssignedTo: []string{"ann"},
				FallbackPolicy: hitl.FallbackFail, Metadata: map[string]string{}, CreatedAt: at, UpdatedAt: at}
			if err := tx.InsertInquiry(inq); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	w := dialect.InquiryWhere(hitl.InquiryFilter{Status: hitl.StatusResponded, Visibility: hitl.Visibility{Responder: true, AnswerableBy: []string{"ann"}}})
	rows, err := conn.Query(ctx, "EXPLAIN SELECT COUNT(*) FROM (SELECT 1 FROM inquiries i"+w.String()+" ORDER BY i.id DESC LIMIT 1000) c", w.Args...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	if strings.Contains(plan, "hashed SubPlan") || !strings.Contains(plan, "Index Scan using inquiry_assignees") {
		t.Fatalf("the count of a responder's answered inquiries reads their assignments otherwise than by index:\n%s", plan)
	}
}
