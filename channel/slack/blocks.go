package slack

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/wording"
	slackapi "github.com/slack-go/slack"
)

// hitl's own bounds, within Slack's (limits.go): what a message shows of long values, which
// the inbox shows whole.
const (
	maxFallbackText = 300  // the notification's text; Slack allows more, people read less
	maxContextName  = 100  // a context value's name
	maxContextValue = 200  // a context value
	maxVotesText    = 1000 // who voted, before "and 12 more"
	maxAnswerText   = 500  // an answer, a comment or a reason in the outcome line
	// maxOptionButtons: an actions block holds 25 elements; one is the link to the inbox.
	// More options than that are chosen in the "Answer…" form instead.
	maxOptionButtons = maxActionElements - 1
)

// detail is how much of an inquiry a message shows: all that fits in a message of its own,
// or less in the /hitl list, where several inquiries share one message and its limits.
type detail struct {
	prompt  int // characters of the prompt's text
	context int // context values shown as fields, the last of them "N more in the inbox"
	// zone is where the reader reads times (nil: UTC): the person's, in a direct message.
	zone *time.Location
}

var (
	// full leaves two of a section's ten fields to who asks and the deadline.
	full  = detail{prompt: maxSectionText, context: maxFields - 2}
	brief = detail{prompt: 600, context: 2}
)

// promptCut ends a prompt too long for its message.
const promptCut = " _(cut here: the inbox shows the whole question)_"

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
	return cutMrkdwn(prefix+escape(oneLine(inq.Prompt)), maxFallbackText)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// delegateLine says for whom a delegate is asked, "" when the message is the recipient's own.
func delegateLine(onBehalfOf string) string {
	if onBehalfOf == "" {
		return ""
	}
	return fmt.Sprintf(":palm_tree: For *%s*, who is away: you are their delegate, and your answer counts as theirs.", escape(onBehalfOf))
}

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
func inquiryBlocks(inq *hitl.Inquiry, reason Reason, inboxURL string, d detail) []slackapi.Block {
	if inq.Status.Final() {
		return finalBlocks(inq, inboxURL)
	}
	blocks := questionBlocks(inq, reason, d)
	elems := answerButtons(inq)
	if link := inboxButton(inboxURL); link != nil {
		elems = append(elems, link)
	}
	return append(blocks, slackapi.NewActionBlock(fmt.Sprintf("hitl.actions.%d", inq.ID), elems...))
}

// finalBlocks is the message once the inquiry is final: what was asked and how it ended, and
// no buttons.
func finalBlocks(inq *hitl.Inquiry, inboxURL string) []slackapi.Block {
	blocks := append(questionBlocks(inq, "", full), outcomeBlock(inq))
	if link := inboxButton(inboxURL); link != nil {
		blocks = append(blocks, slackapi.NewActionBlock(fmt.Sprintf("hitl.actions.%d", inq.ID), link))
	}
	return blocks
}

// questionBlocks: the reason, the prompt with the context fields below it (one section: a
// block less of the 50 a message holds), and the votes.
func questionBlocks(inq *hitl.Inquiry, reason Reason, d detail) []slackapi.Block {
	var blocks []slackapi.Block
	if line := reasonLine(reason); line != "" {
		blocks = append(blocks, slackapi.NewContextBlock("", mrkdwn(line)))
	}
	prompt := cutSaying(fmt.Sprintf("*Inquiry %d*\n%s", inq.ID, escape(inq.Prompt)), d.prompt, promptCut)
	blocks = append(blocks, slackapi.NewSectionBlock(mrkdwn(prompt), contextFields(inq, d), nil))
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
	line := escape(cut(wording.Progress(inq), maxVotesText))
	if len(cast) > 0 {
		line += ": " + listWords(cast, maxVotesText, "")
	}
	return ":ballot_box_with_check: " + line
}

// contextFields summarise who asks, the deadline and the first of the context's values, at
// most values of them, the last saying how many more the inbox shows.
func contextFields(inq *hitl.Inquiry, d detail) []*slackapi.TextBlockObject {
	values, zone := d.context, cmp.Or(d.zone, time.UTC)
	var fields []*slackapi.TextBlockObject
	field := func(name, value string) {
		fields = append(fields, mrkdwn(fmt.Sprintf("*%s*\n%s", escape(cut(name, maxContextName)), escape(cut(value, maxContextValue)))))
	}
	if inq.CreatedBy != "" {
		field("Asked by", inq.CreatedBy)
	}
	if inq.TimeoutAt != nil && !inq.Status.Final() {
		field("Answer by", inq.TimeoutAt.In(zone).Format("Mon 2 Jan 2006 15:04 MST")+", else "+wording.Fallback(inq.FallbackPolicy))
	}
	if hitl.IsNull(inq.Context) {
		return fields
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(inq.Context, &obj) != nil {
		field("Context", wording.Value(inq.Context))
		return fields
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i == values-1 && len(keys) > values {
			field("…", fmt.Sprintf("%d more in the inbox", len(keys)-i))
			break
		}
		field(k, wording.Value(obj[k]))
	}
	return fields
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
			out[i] = slackapi.NewButtonBlockElement(actionOption+strconv.Itoa(i), id+":"+o.Value, plain(optionLabel(o)))
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
	return slackapi.NewContextBlock("", mrkdwn(outcomeWords(inq)))
}

func outcomeWords(inq *hitl.Inquiry) string {
	switch inq.Status {
	case hitl.StatusResponded:
		who := "someone"
		if inq.RespondedBy != nil {
			who = *inq.RespondedBy
		}
		s := fmt.Sprintf(":white_check_mark: Answered by %s: %s", escape(who), escape(cut(answerWords(inq), maxAnswerText)))
		if inq.Comment != nil && *inq.Comment != "" {
			s += "\n>" + escape(cut(oneLine(*inq.Comment), maxAnswerText))
		}
		return s
	case hitl.StatusTimeout:
		if inq.FallbackApplied {
			return ":hourglass: Timed out: nobody answered in time, so the fallback value was used: " + escape(cut(wording.Value(inq.Response), maxAnswerText))
		}
		return ":hourglass: Timed out: nobody answered in time."
	case hitl.StatusCancelled:
		s := ":no_entry_sign: Cancelled"
		if inq.CancelReason != nil && *inq.CancelReason != "" {
			s += ": " + escape(cut(oneLine(*inq.CancelReason), maxAnswerText))
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
			if a.Comment != "" && (inq.Comment == nil || *inq.Comment != a.Comment) { // else said once, after the answer
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
				return wording.Value(inq.Response)
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
		return listWords(labels, maxAnswerText, "")
	}
	return wording.Value(inq.Response)
}

// maxListText bounds the text of the /hitl list as a whole. Slack documents no such bound,
// but refuses a message whose blocks hold too much text (msg_blocks_too_long), seen from
// about 11,000 characters on (slackapi/bolt-js issues 2509 and 2867); ten inquiries in brief
// take far less, and a list of long ones shows fewer of them.
const maxListText = 8000

// pendingList is the /hitl reply: the person's pending inquiries, soonest deadline first, as
// many as fit in one message, each with its buttons, and how many more the inbox lists.
// total is how many are pending in all, -1 when unknown; linkOf links an inquiry's page and
// inboxURL the inbox's list of them ("" when hitl's public URL is unknown).
func pendingList(name string, list []*hitl.Inquiry, total int, linkOf func(id int64) string, inboxURL string) (string, []slackapi.Block) {
	if total >= 0 {
		total = max(total, len(list)) // one may have come between the list and the count
	}
	head := "Pending inquiries for " + name
	if total >= 0 {
		head = fmt.Sprintf("%d pending %s for %s", total, plural(total, "inquiry", "inquiries"), name)
	}
	blocks := []slackapi.Block{slackapi.NewSectionBlock(mrkdwn(escape(head)+", soonest deadline first:"), nil, nil)}
	textLeft := maxListText - textLength(blocks)
	shown := 0
	for i, inq := range list {
		entry := append([]slackapi.Block{slackapi.NewDividerBlock()}, inquiryBlocks(inq, "", linkOf(inq.ID), brief)...)
		room := maxMessageBlocks - len(blocks)
		if i < len(list)-1 || total != len(list) {
			room-- // for the line that says how many more there are
		}
		n := textLength(entry)
		if len(entry) > room || (shown > 0 && n > textLeft) {
			break
		}
		blocks = append(blocks, entry...)
		textLeft -= n
		shown++
	}
	if shown < total || total < 0 {
		blocks = append(blocks, moreBlock(total-shown, inboxURL))
	}
	return head, blocks
}

// moreBlock says how many pending inquiries the list leaves out (more < 0: an unknown
// number), and links the inbox that shows them.
func moreBlock(more int, inboxURL string) slackapi.Block {
	words := "And more are pending"
	if more > 0 {
		words = fmt.Sprintf("And %d more %s pending", more, plural(more, "is", "are"))
	}
	if inboxURL == "" {
		return slackapi.NewSectionBlock(mrkdwn(words+": hitl's inbox lists them all."), nil, nil)
	}
	open := slackapi.NewButtonBlockElement(actionOpen, "", plain("Open the inbox")).WithURL(inboxURL)
	return slackapi.NewSectionBlock(mrkdwn(words+": the inbox lists them all."), nil, slackapi.NewAccessory(open))
}
