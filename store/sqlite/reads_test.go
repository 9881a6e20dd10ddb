package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
)

// The inbox's queries carry their LIMIT and the values that partial indexes name (a status, a
// delivery's kind) in their text: SQLite plans with a bound value of either, and then compiles
// the statement again each time it is bound, which was a fifth of the inbox page's CPU. And the
// ended tabs' counts read the index inquiries_primaries alone, not a row of the table.
func TestInboxQueriesAreNotRecompiledPerRun(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "hitl.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	responder := hitl.Visibility{Responder: true, AnswerableBy: []string{"alice"}}
	count := hitl.InquiryFilter{Status: hitl.StatusResponded, Primaries: true, Visibility: responder, CountUpTo: 1000}
	if _, err := s.CountInquiries(ctx, count); err != nil {
		t.Fatal(err)
	}
	list := hitl.InquiryFilter{Status: hitl.StatusPending, Primaries: true, Visibility: responder, Page: hitl.Page{Limit: 50}}
	if _, _, err := s.Inquiries(ctx, list); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Deliveries(ctx, hitl.DeliveryFilter{Kind: hitl.DeliveryNotification, InquiryID: 7, Page: hitl.Page{Limit: 1000}}); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"SELECT COUNT(*) FROM (SELECT 1 FROM inquiries i": {"i.status = 'responded'", "LIMIT 1000"},
		"SELECT i.id":                  {"i.status = 'pending'", "LIMIT 51"},
		"SELECT d.ord, d.id, d.kind, ": {"d.kind = 'notification'", "LIMIT 1001"},
	}
	var countQuery string
	s.read.mu.Lock()
	for q := range s.read.stmts {
		for prefix, parts := range want {
			if !strings.HasPrefix(q, prefix) {
				continue
			}
			for _, p := range parts {
				if !strings.Contains(q, p) {
					t.Errorf("%q does not hold %q", q, p)
				}
			}
			delete(want, prefix)
			if strings.HasPrefix(q, "SELECT COUNT(*)") {
				countQuery = q
			}
		}
	}
	s.read.mu.Unlock()
	if len(want) > 0 {
		t.Fatalf("queries not prepared: %v", want)
	}
	rows, err := s.reader.QueryContext(ctx, "EXPLAIN QUERY PLAN "+countQuery, dialect.InquiryWhere(count).Args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if !strings.Contains(strings.Join(plan, "\n"), "SEARCH i USING COVERING INDEX inquiries_primaries") {
		t.Fatalf("the count of an ended tab reads the table:\n%s", strings.Join(plan, "\n"))
	}
}
