package web

import (
	"context"
	"fmt"

	"github.com/hitl-dev/hitl"
)

// suggestionView is the standing approval offered beside the answer form (engine/suggestions.go):
// a form of its own that approves (Field=Value, the approval the answer form would post) and
// asks for the rule with allow_for and allow_args.
type suggestionView struct {
	*hitl.RuleSuggestion
	formTarget
	Field, Value string
	For          string // AllowFor in words: "8 hours"
}

// addSuggestion offers the rule to a signed-in person who may answer; best effort: the page
// shows without it.
func (h *Handler) addSuggestion(ctx context.Context, p *hitl.Principal, d *inquiryData) {
	if d.Form == nil || d.Form.Action != fmt.Sprintf("/inquiries/%d", d.Inquiry.ID) {
		return // answer-link pages make no rules: a forwarded link is not its person's say
	}
	s, err := h.engine.RuleSuggestion(ctx, p, d.Inquiry.ID)
	if err != nil || s == nil {
		return
	}
	v := &suggestionView{RuleSuggestion: s, formTarget: formTarget{Action: d.Form.Action, CSRF: d.Form.CSRF}, Field: "approved", Value: "true", For: s.AllowFor}
	if formKind(d.Inquiry) == formDecision {
		v.Field, v.Value = "decision", string(hitl.DecisionApprove)
	}
	if secs, err := hitl.ParseDuration(s.AllowFor); err == nil && secs%3600 == 0 {
		v.For = fmt.Sprintf("%d hours", secs/3600)
	}
	d.Suggestion = v
}
