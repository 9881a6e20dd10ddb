package engine_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
)

// TestRespondManyLimit: over the limit, by ids or by a filter, nothing is answered and the
// refusal says how many there were; at the limit, all are.
func TestRespondManyLimit(t *testing.T) {
	defer engine.SetMaxBulkAnswers(3)()
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	var ids []int64
	for range 4 {
		inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval, Session: "s-1",
			AssignedTo: hitl.Assignees{"ann"}}, "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, inq.ID)
	}
	approve := json.RawMessage(`{"approved":true}`)
	filter := &hitl.BulkFilter{Session: "s-1", AssignedTo: "me"}

	_, err := e.RespondMany(ctx, human, &hitl.BulkResponseRequest{Filter: filter, Response: approve})
	if hitl.ErrorCode(err) != hitl.EInvalid || !strings.Contains(err.Error(), "the filter matches 4 pending inquiries; at most 3 are answered at once") {
		t.Fatalf("filter over the limit: %v", err)
	}
	_, err = e.RespondMany(ctx, human, &hitl.BulkResponseRequest{IDs: ids, Response: approve})
	if hitl.ErrorCode(err) != hitl.EInvalid || !strings.Contains(err.Error(), "lists 4 inquiries; at most 3") {
		t.Fatalf("ids over the limit: %v", err)
	}
	if n, err := e.CountInquiries(ctx, human, hitl.InquiryFilter{Status: hitl.StatusPending}); err != nil || n != 4 {
		t.Fatalf("pending after the refusals: %d %v", n, err)
	}

	// One answered on its own leaves three: the filter answers them all.
	if _, err := e.Respond(ctx, human, ids[0], &hitl.ResponseRequest{Response: approve}); err != nil {
		t.Fatal(err)
	}
	results, err := e.RespondMany(ctx, human, &hitl.BulkResponseRequest{Filter: filter, Response: approve})
	if err != nil || len(results) != 3 {
		t.Fatalf("at the limit: %+v %v", results, err)
	}
	for i, r := range results {
		if r.ID != ids[3-i] || r.Status != hitl.BulkResponded { // newest first
			t.Errorf("result %d: %+v", i, r)
		}
	}
}
