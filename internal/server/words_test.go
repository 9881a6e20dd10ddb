package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// Refusals are written for people: statuses and assignees in words.
func TestRefusalsInWords(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	one := int64(1)
	assigned := ask(t, e.Admin, hitl.InquiryRequest{Prompt: "Ship?", AssignedTo: []string{"alice", "group:sre"}})
	_, err := e.Admin.Respond(ctx, assigned.ID, json.RawMessage(`"yes"`), "")
	if ce := wantCode(t, err, hitl.EForbidden); !strings.Contains(ce.Detail, "assigned to alice and the group sre") {
		t.Errorf("an admin who is not an assignee: %q", ce.Detail)
	}

	answered := ask(t, e.Admin, hitl.InquiryRequest{Prompt: "Lunch?"})
	must(t, func() error { _, err := e.Admin.Respond(ctx, answered.ID, json.RawMessage(`"soup"`), ""); return err }())
	_, err = e.Admin.Respond(ctx, answered.ID, json.RawMessage(`"salad"`), "")
	if ce := wantCode(t, err, hitl.EConflict); !strings.Contains(ce.Detail, "is already answered") {
		t.Errorf("a second answer: %q", ce.Detail)
	}

	late := ask(t, e.Admin, hitl.InquiryRequest{Prompt: "Quick?", TimeoutSeconds: &one})
	testserver.Eventually(t, 10*time.Second, "the inquiry to time out", func() bool {
		inq, err := e.Admin.Inquiry(ctx, late.ID)
		return err == nil && inq.Status == hitl.StatusTimeout
	})
	_, err = e.Admin.Respond(ctx, late.ID, json.RawMessage(`"yes"`), "")
	if ce := wantCode(t, err, hitl.EConflict); !strings.Contains(ce.Detail, "is already timed out") {
		t.Errorf("an answer after the deadline: %q", ce.Detail)
	}
}
