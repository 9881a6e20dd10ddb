package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/wording"
)

// selectable tells which of a list's inquiries the viewer may tick for "Approve selected":
// the pending approvals it may answer.
func (h *Handler) selectable(p *hitl.Principal, items []*hitl.Inquiry) map[int64]bool {
	out := map[int64]bool{}
	for _, inq := range items {
		if inq.Status == hitl.StatusPending && inq.RequestType == hitl.RequestApproval && h.engine.MayAnswer(p, inq) == nil {
			out[inq.ID] = true
		}
	}
	return out
}

// offersApproval tells whether a tab of the inbox may show the "Approve selected" form: the
// pending lists, to whoever may answer; it shows when the list has an approval to tick.
func offersApproval(p *hitl.Principal, tab string) bool {
	return (tab == "mine" || tab == "pending") && engine.CanAnswer(p)
}

// bulkRow is one inquiry of "Approve selected" as the page tells it.
type bulkRow struct {
	ID       int64
	Prompt   string // "" when the viewer may not see the inquiry
	Approved bool
	// Progress is where a quorum or chain stands when the approval was a vote that did not
	// decide it ("1 of 2 approvals"); "" otherwise.
	Progress string
	Why      string // why it was not approved
}

// approveSelected serves POST /inquiries/approve: the inbox's "Approve selected". Each
// ticked inquiry is approved on its own (RespondMany), and the page says, for each, whether
// it was approved, and why not.
func (h *Handler) approveSelected(w http.ResponseWriter, r *http.Request, v *viewer) {
	var ids []int64
	for _, s := range r.PostForm["id"] {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			h.errorPage(w, r, v, http.StatusBadRequest, "The selection could not be read. Go back, reload the page and try again.")
			return
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		h.errorPage(w, r, v, http.StatusBadRequest, "Nothing was selected: tick the inquiries to approve, then press Approve selected.")
		return
	}
	comment := strings.TrimSpace(r.PostForm.Get("comment"))
	results, err := h.engine.RespondMany(r.Context(), v.Principal, &hitl.BulkResponseRequest{IDs: ids, Response: hitl.ApprovalAnswer(true, comment), Comment: comment})
	if err != nil {
		h.fail(w, r, v, err)
		return
	}
	rows := make([]bulkRow, len(results))
	approved := 0
	for i, res := range results {
		row := bulkRow{ID: res.ID, Approved: res.Status != hitl.BulkRefused}
		if inq, err := h.engine.Inquiry(r.Context(), v.Principal, res.ID); err == nil {
			row.Prompt = inq.Prompt
			if res.Status == hitl.BulkVoted {
				row.Progress = wording.Progress(inq)
			}
		}
		if row.Approved {
			approved++
		} else {
			row.Why = res.Error.Message
		}
		rows[i] = row
	}
	summary := fmt.Sprintf("Approved %d of %d", approved, len(rows))
	h.render(w, r, http.StatusOK, "bulk", &layout{Viewer: v, Title: summary}, map[string]any{"Summary": summary, "Rows": rows})
}
