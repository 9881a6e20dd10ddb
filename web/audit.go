package web

import (
	"context"
	"fmt"
)

// auditLine says how far this server has verified the event log's audit chain, on the
// inquiry page: "audit: verified through seq 1042". Each view verifies only the events
// appended since the last one (engine.VerifyAudit).
func (h *Handler) auditLine(ctx context.Context) string {
	v, err := h.engine.VerifyAudit(ctx)
	if err != nil {
		return "audit: " + err.Error()
	}
	return fmt.Sprintf("audit: verified through seq %d", v.Seq)
}
