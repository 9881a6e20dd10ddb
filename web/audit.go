package web

import (
	"context"
	"fmt"
)

// auditLine says how far this server has verified the event log's audit chain, on the page
// of inquiry id: "audit: verified through seq 1042", or what is wrong. Each view verifies only
// the events appended since the last one, and compares what is stored of their inquiries and
// sessions, and of inquiry id itself, with their events (engine.VerifyAudit): the page never
// says verified beside a stored inquiry that differs from its events.
func (h *Handler) auditLine(ctx context.Context, id int64) string {
	v, err := h.engine.VerifyAudit(ctx, id)
	if err != nil {
		return "audit: " + err.Error()
	}
	return fmt.Sprintf("audit: verified through seq %d", v.Seq)
}
