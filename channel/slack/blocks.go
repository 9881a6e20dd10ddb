package slack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
	slackapi "github.com/slack-go/slack"
)

// Slack's limits that the messages respect (Block Kit reference): beyond them Slack refuses
// the whole message with invalid_blocks, so text is cut rather than sent whole.
const (
	maxSectionText   = 3000 // a section's text
	maxFieldText     = 2000 // one of a section's fields
	maxButtonText    = 75   // a button's label
	maxFallbackText  = 300  // the notification's text; Slack allows more, people read less
	maxContextFields = 8    // a section has at most 10 fields; two are who asks and the deadline
	maxContextValue  = 200  // one context value, cut: the inbox shows it whole
	maxURL           = 3000 // a button's url
	// maxOptionButtons: an actions block holds 25 elements; one is the link to the inbox.
	// More options than that are chosen in the "Answer…" form instead.
	maxOptionButtons = 24
)

// The action_id of each button, and what its value carries: the inquiry's id, and for an
// option the option's value after a colon ("7:deploy"). The answer is encoded in the button,
// so a click needs no state of ours; the engine checks it like any other answer.
const (
	actionApprove = "hitl.approve"
	actionReject  = "hitl.reject"
	actionOption  = "hitl.option." // + the option's index: action_ids are unique in a block
	actionForm    = "hitl.form"
	actionOpen    = "hitl.open" // the link to the inbox: Slack reports the click; nothing to do
)

// cut shortens s to at most n characters, marking the cut with an ellipsis.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// escape makes text safe inside mrkdwn: an agent's prompt must not mention @channel or make
// links (Slack's formatting: &, < and > are escaped, nothing else).
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func plain(s string) *slackapi.TextBlockObject {
	return slackapi.NewTextBlockObject(slackapi.PlainTextType, s, false, false)
}

func mrkdwn(s string) *slackapi.TextBlockObject {
	return slackapi.NewTextBlockObject(slackapi.MarkdownType, s, false, false)
}

// fallbackText is the message's text: what notifications and screen readers show.
func fallbackText(inq *hitl.Inquiry, reason Reason) string {
	prefix := "[hitl] "
	switch reason {
	case ReasonReminder:
		prefix = "[hitl] Reminder: "
	case ReasonEscalation:
		prefix = "[hitl] Escalated: "
	}
	return cut(prefix+escape(oneLine(inq.Prompt)), maxFallbackText)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// reasonLine is the first line of a reminder or an escalation.
func reasonLine(reason Reason) string {
	switch reason {
	case ReasonReminder:
		return ":alarm_clock: Reminder: this question still waits for an answer."
	case ReasonEscalation:
		return ":arrow_up: Escalated to you: nobody answered this question in time."
	}
	return ""
}

// inquiryBlocks is the message of an inquiry: the prompt, its context, the buttons that
// answer it and the link to the inbox; once it is final, its outcome instead of the buttons.
func inquiryBlocks(inq *hitl.Inquiry, reason Reason, inboxURL string) []slackapi.Block {
	if inq.Status.Final() {
		return finalBlocks(inq, inboxURL)
	}
	blocks := questionBlocks(inq, reason)
	elems := answerButtons(inq)
	if link := inboxButton(inboxURL); link != nil {
		elems = append(elems, link)
	}
	return append(blocks, slackapi.NewActionBlock(fmt.Sprintf("hitl.actions.%d", inq.ID), elems...))
}

// finalBlocks is the message once the inquiry is final: what was asked and how it ended, and
// no buttons.
func finalBlocks(inq *hitl.Inquiry, inboxURL string) []slackapi.Block {
	blocks := append(questionBlocks(inq, ""), outcomeBlock(inq))
	if link := inboxButton(inboxURL); link != nil {
		blocks = append(blocks, slackapi.NewActionBlock(fmt.Sprintf("hitl.actions.%d", inq.ID), link))
	}
	return blocks
}

// questionBlocks: the reason, the prompt and the context fields.
func questionBlocks(inq *hitl.Inquiry, reason Reason) []slackapi.Block {
	var blocks []slackapi.Block
	if line := reasonLine(reason); line != "" {
		blocks = append(blocks, slackapi.NewContextBlock("", mrkdwn(line)))
	}
	prompt := fmt.Sprintf("*Inquiry %d*\n%s", inq.ID, escape(inq.Prompt))
	blocks = append(blocks, slackapi.NewSectionBlock(mrkdwn(cut(prompt, maxSectionText)), nil, nil))
	if fields := contextFields(inq); len(fields) > 0 {
		blocks = append(blocks, slackapi.NewSectionBlock(nil, fields, nil))
	}
	if line := votesLine(inq); line != "" {
		blocks = append(blocks, slackapi.NewContextBlock("", mrkdwn(line)))
	}
	return blocks
}

// votesLine says where a pending quorum or chain stands and who voted: "1 of 2 approvals:
// alice approved". "" for anything else: a final inquiry's outcome says how it ended.
func votesLine(inq *hitl.Inquiry) string {
	if !inq.IsVote() || inq.Status.Final() {
		return ""
	}
	var cast []string
	for _, v := range inq.VotesIn(inq.CurrentStep) {
		word := " rejected"
		if v.Approved {
			word = " approved"
		}
		cast = append(cast, escape(v.By)+word)
	}
	line := escape(inq.ProgressInWords())
	if len(cast) > 0 {
		line += ": " + strings.Join(cast, ", ")
	}
	return cut(":ballot_box_with_check: "+line, maxSectionText)
}

// contextFields summarise who asks, the deadline and the first few context values; the inbox
// shows the rest.
func contextFields(inq *hitl.Inquiry) []*slackapi.TextBlockObject {
	var fields []*slackapi.TextBlockObject
	field := func(name, value string) {
		fields = append(fields, mrkdwn(cut(fmt.Sprintf("*%s*\n%s", escape(cut(name, 100)), escape(cut(value, maxContextValue))), maxFieldText)))
	}
	if inq.CreatedBy != "" {
		field("Asked by", inq.CreatedBy)
	}
	if inq.TimeoutAt != nil && !inq.Status.Final() {
		field("Answer by", inq.TimeoutAt.UTC().Format("Mon 2 Jan 2006 15:04 UTC")+", else "+inq.FallbackPolicy.Words())
	}
	if hitl.IsNull(inq.Context) {
		return fields
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(inq.Context, &obj) != nil {
		field("Context", valueText(inq.Context))
		return fields
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i == maxContextFields {
			field("…", fmt.Sprintf("%d more in the inbox", len(keys)-i))
			break
		}
		field(k, valueText(obj[k]))
	}
	return fields
}

// valueText is a JSON value as a person reads it: a string without its quotes, anything else
// as compact JSON.
func valueText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// answerButtons: Approve / Reject for a plain approval, one button per option when they fit,
// else "Answer…", which opens the form.
func answerButtons(inq *hitl.Inquiry) []slackapi.BlockElement {
	id := strconv.FormatInt(inq.ID, 10)
	switch {
	case inq.IsPlainApproval():
		return []slackapi.BlockElement{
			slackapi.NewButtonBlockElement(actionApprove, id, plain("Approve")).WithStyle(slackapi.StylePrimary),
			slackapi.NewButtonBlockElement(actionReject, id, plain("Reject")).WithStyle(slackapi.StyleDanger),
		}
	case len(inq.Options) > 0 && !inq.Multiple && len(inq.Options) <= maxOptionButtons:
		out := make([]slackapi.BlockElement, len(inq.Options))
		for i, o := range inq.Options {
			out[i] = slackapi.NewButtonBlockElement(actionOption+strconv.Itoa(i), id+":"+o.Value, plain(cut(optionLabel(o), maxButtonText)))
		}
		return out
	}
	return []slackapi.BlockElement{
		slackapi.NewButtonBlockElement(actionForm, id, plain("Answer…")).WithStyle(slackapi.StylePrimary),
	}
}

func optionLabel(o hitl.Option) string {
	if o.Label != "" {
		return o.Label
	}
	return o.Value
}

func inboxButton(inboxURL string) slackapi.BlockElement {
	if inboxURL == "" || len(inboxURL) > maxURL {
		return nil
	}
	return slackapi.NewButtonBlockElement(actionOpen, "", plain("Open in the inbox")).WithURL(inboxURL)
}

// outcomeBlock says how the inquiry ended: "Answered by ada: approve".
func outcomeBlock(inq *hitl.Inquiry) slackapi.Block {
	return slackapi.NewContextBlock("", mrkdwn(cut(outcomeWords(inq), maxSectionText)))
}

func outcomeWords(inq *hitl.Inquiry) string {
	switch inq.Status {
	case hitl.StatusResponded:
		who := "someone"
		if inq.RespondedBy != nil {
			who = *inq.RespondedBy
		}
		s := fmt.Sprintf(":white_check_mark: Answered by %s: %s", escape(who), escape(cut(answerWords(inq), 500)))
		if inq.Comment != nil && *inq.Comment != "" {
			s += "\n>" + escape(cut(oneLine(*inq.Comment), 500))
		}
		return s
	case hitl.StatusTimeout:
		if inq.FallbackApplied {
			return ":hourglass: Timed out: nobody answered in time, so the fallback value was used: " + escape(cut(valueText(inq.Response), 500))
		}
		return ":hourglass: Timed out: nobody answered in time."
	case hitl.StatusCancelled:
		s := ":no_entry_sign: Cancelled"
		if inq.CancelReason != nil && *inq.CancelReason != "" {
			s += ": " + escape(cut(oneLine(*inq.CancelReason), 500))
		}
		return s
	}
	return "Waiting for an answer."
}

// answerWords is an answer as the people who asked read it: approve / reject, the labels of
// the options chosen, else the JSON.
func answerWords(inq *hitl.Inquiry) string {
	if inq.IsPlainApproval() {
		var a struct {
			Approved bool   `json:"approved"`
			Comment  string `json:"comment"`
		}
		if json.Unmarshal(inq.Response, &a) == nil {
			words := "reject"
			if a.Approved {
				words = "approve"
			}
			if a.Comment != "" {
				words += " (" + oneLine(a.Comment) + ")"
			}
			return words
		}
	}
	if len(inq.Options) > 0 {
		var picked []string
		if json.Unmarshal(inq.Response, &picked) != nil {
			var one string
			if json.Unmarshal(inq.Response, &one) != nil {
				return valueText(inq.Response)
			}
			picked = []string{one}
		}
		labels := make([]string, len(picked))
		for i, v := range picked {
			labels[i] = v
			for _, o := range inq.Options {
				if o.Value == v {
					labels[i] = optionLabel(o)
				}
			}
		}
		return strings.Join(labels, ", ")
	}
	return valueText(inq.Response)
}
