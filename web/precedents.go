package web

import (
	"context"

	"github.com/hitl-dev/hitl"
)

// addPrecedents shows answer memory beside the answer form: how the same question was
// answered before (engine.Precedents), when the viewer may answer now. Best effort: the form
// without it is better than no form.
func (h *Handler) addPrecedents(ctx context.Context, p *hitl.Principal, d *inquiryData) {
	if d.Form == nil {
		return
	}
	if got, err := h.engine.Precedents(ctx, p, d.Inquiry.ID); err == nil {
		d.Precedents = got.Precedents
	}
}
