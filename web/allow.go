package web

import (
	"net/url"
	"strings"

	"github.com/hitl-dev/hitl"
)

// The choice, on an approval, to approve the same again for a while: the engine makes a
// standing approval from the answer's allow_for and allow_args (docs/rules.md). The form
// offers it only where the engine may accept it, and shows the engine's refusals beside it.

// allowChoice is the "and allow this for" part of an answer form.
type allowChoice struct {
	For  string // "" (not) or a duration the engine reads: 1h, 8h, 1d, 7d
	Args string // exact or any; tool calls only
	// ToolCall: the arguments choice is offered (a template's approval has no arguments to pick).
	ToolCall bool
}

// allowPeriods are the periods offered, as the engine reads them and as people read them.
var allowPeriods = []struct{ Value, Label string }{{"", "(not)"}, {"1h", "1 hour"}, {"8h", "8 hours"}, {"1d", "1 day"}, {"7d", "7 days"}}

// offersAllow tells whether the signed-in form offers the choice: an approval the engine can
// make a rule of (a tool call that may be approved, or a template's plain approval), never a
// quorum's or a chain's vote, which the engine refuses.
func offersAllow(inq *hitl.Inquiry, to formTarget) bool {
	if to.Confirm || inq.IsVote() {
		return false
	}
	return (inq.HasDecisions() && inq.Allows(hitl.DecisionApprove)) || (inq.IsPlainApproval() && inq.Template != "")
}

// newAllowChoice is the choice as entered (nil: nothing yet), nil when not offered; its
// fields' problems are shown beside it.
func newAllowChoice(inq *hitl.Inquiry, to formTarget, entered url.Values, known map[string]bool) *allowChoice {
	if !offersAllow(inq, to) {
		return nil
	}
	known["/allow_for"], known["/allow_args"] = true, true
	c := &allowChoice{Args: "exact", ToolCall: inq.HasDecisions()}
	if entered != nil {
		c.For = entered.Get("allow_for")
		if a := entered.Get("allow_args"); a != "" {
			c.Args = a
		}
	}
	return c
}

// readAllow adds the posted choice to the answer; the engine judges it (only an approval
// makes a rule, and only for as long as the server allows). No period: no arguments either,
// which the form always posts.
func readAllow(req *hitl.ResponseRequest, form url.Values) {
	if req == nil {
		return
	}
	if req.AllowFor = strings.TrimSpace(form.Get("allow_for")); req.AllowFor != "" {
		req.AllowArgs = form.Get("allow_args")
	}
}
