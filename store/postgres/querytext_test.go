package postgres

import (
	"fmt"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

// The same filter is the same SQL text and arguments every time, so that pgx's statement
// cache prepares a list's query once, not once per order a map happened to iterate in.
func TestSameFilterSameSQL(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	f := hitl.InquiryFilter{Status: hitl.StatusPending, Session: "run-1", Origin: "deployer", RequestType: hitl.RequestApproval,
		CreatedBy: "agent-a", Text: "deploy", AssignedTo: []string{"alice"}, Metadata: map[string]string{"env": "prod", "team": "sre", "tier": "1"},
		CreatedAfter: &at, Visibility: hitl.Visibility{Responder: true, AnswerableBy: []string{"alice"}}}
	first := dialect.InquiryWhere(f)
	for range 50 {
		w := dialect.InquiryWhere(f)
		if w.String() != first.String() || fmt.Sprint(w.Args) != fmt.Sprint(first.Args) {
			t.Fatalf("the same filter built\n%s %v\nthen\n%s %v", first, first.Args, w, w.Args)
		}
	}
}
