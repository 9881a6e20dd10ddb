package web

import (
	"context"
	"fmt"
	"strings"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/wording"
)

// auditView is what the inquiry page says of the audit log, for people: that it is intact,
// or, as a warning, what is wrong; Detail (on hover) says how far it was checked.
type auditView struct {
	Intact bool
	Text   string
	Detail string
}

// auditLine says whether the event log's audit chain is intact, on the page of inquiry id.
// Each view verifies only the events appended since the last one, and compares what is stored
// of their inquiries and sessions, and of inquiry id itself, with their events
// (engine.VerifyAudit): the page never says intact beside a stored inquiry that differs from
// its events.
func (h *Handler) auditLine(ctx context.Context, id int64) auditView {
	v, err := h.engine.VerifyAudit(ctx, id)
	switch {
	case hitl.ErrorCode(err) == hitl.EConflict:
		problem := strings.TrimPrefix(hitl.ErrorMessage(err), "the audit log does not verify: ")
		if rest, ok := strings.CutPrefix(problem, "seq "); ok { // "seq 42: does not match its hash"
			problem = "event " + rest
		}
		return auditView{Text: "Warning: the audit log is not intact. " + wording.Capitalised(problem)}
	case err != nil:
		return auditView{Text: "The audit log could not be checked just now: " + hitl.ErrorMessage(err)}
	}
	return auditView{Intact: true, Text: "The audit log is intact.",
		Detail: fmt.Sprintf("Checked through event %d: the log's chain of hashes holds, and this inquiry is as its events say", v.Seq)}
}
