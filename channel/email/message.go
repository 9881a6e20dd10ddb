package email

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"strings"
	textTemplate "text/template"
	"time"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/wording"
)

// Reason is why a message is sent; the engine decides, the message says it.
type Reason string

const (
	ReasonCreated    Reason = "created"
	ReasonReminder   Reason = "reminder"
	ReasonEscalation Reason = "escalation"
	ReasonResolved   Reason = "resolved"
)

// Recipient is the person a message is for.
type Recipient struct {
	Address   string // ada@example.com
	Name      string // the display name, "" for none
	Principal string // the principal the person answers as, shown to say whose copy this is
}

// Button is one link of the message, shown as a button: an option's answer link.
type Button struct {
	Label string
	URL   string
}

// Message is one notification about one inquiry for one person.
type Message struct {
	Inquiry *hitl.Inquiry
	To      Recipient
	Reason  Reason
	// ThreadRoot is the Message-ID Send returned for the first message about the inquiry to
	// this person; "" for that first message. Later messages answer it, so that mail programs
	// show them in one thread.
	ThreadRoot string
	// Buttons are the answer links, one per option (OptionButtons makes them from one answer
	// link). None for a resolved notice.
	Buttons []Button
	// InboxURL is the inquiry's page in the web inbox.
	InboxURL string
	// ID is the Message-ID to give the message (without angle brackets), "" for a new random
	// one. One made from the outbox delivery's id makes a retry after a lost acknowledgement
	// the same message, which mail programs show once.
	ID string
	// ReplyToken lets the person answer by replying (Reply-To: reply+TOKEN@Domain); "" for
	// none, and then the message does not invite a reply.
	ReplyToken string
	// OnBehalfOf is the away person whose message this was: the recipient is their delegate.
	OnBehalfOf string
	// TimeZone is the person's IANA zone, in which the message shows times ("": UTC).
	TimeZone string
}

// OptionButtons makes the buttons of an inquiry from the person's answer link (the /a/TOKEN
// page): one per option, or Approve and Reject, each opening the link with its option ticked
// (?option=VALUE); the page asks to confirm, so a mail scanner that follows them answers
// nothing. An inquiry that asks for more than a choice gets one "Answer…" button.
func OptionButtons(inq *hitl.Inquiry, answerURL string) []Button {
	return choiceButtons(inq, answerURL, "option")
}

// InboxButtons are the buttons of a message with no personal answer link (to a group's
// list, to the default destinations): the same choices, each opening the inquiry's page in
// the inbox with the option chosen (?answer=VALUE), where whoever opens it signs in and
// confirms.
func InboxButtons(inq *hitl.Inquiry, inboxURL string) []Button {
	return choiceButtons(inq, inboxURL, "answer")
}

// choiceButtons opens page with its parameter param naming each choice.
func choiceButtons(inq *hitl.Inquiry, page, param string) []Button {
	with := func(option string) string {
		u, err := url.Parse(page)
		if err != nil {
			return page
		}
		q := u.Query()
		q.Set(param, option)
		u.RawQuery = q.Encode()
		return u.String()
	}
	switch {
	case inq.IsPlainApproval():
		return []Button{{"Approve", with("approve")}, {"Reject", with("reject")}}
	case len(inq.Options) > 0 && !inq.Multiple:
		out := make([]Button, len(inq.Options))
		for i, o := range inq.Options {
			out[i] = Button{optionLabel(o), with(o.Value)}
		}
		return out
	}
	return []Button{{"Answer…", page}}
}

func optionLabel(o hitl.Option) string {
	if o.Label != "" {
		return o.Label
	}
	return o.Value
}

// Bounds that keep a message readable whatever an agent put in the inquiry: the rest is in
// the inbox.
const (
	maxSubjectRunes = 80
	maxContextKeys  = 6
	maxContextValue = 160
	maxContextOther = 400
)

// subject is "[hitl] " and the prompt's first line, bounded, with the reason in front.
func subject(inq *hitl.Inquiry, reason Reason) string {
	prefix := map[Reason]string{ReasonReminder: "Reminder: ", ReasonEscalation: "Escalated: ", ReasonResolved: "Answered: "}[reason]
	if reason == ReasonResolved && inq.Status != hitl.StatusResponded {
		prefix = "Closed: "
	}
	prompt := strings.Join(strings.Fields(inq.Prompt), " ")
	return cut(prefix+"[hitl] "+prompt, maxSubjectRunes)
}

// cut bounds s to n runes, ending with "…" when it was longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return strings.TrimRight(string(runes[:n-1]), " ") + "…"
}

// contextLine is one top-level key of the inquiry's context.
type contextLine struct{ Key, Value string }

// contextSummary shows the first top-level keys of the context, in the agent's order, each
// value on one bounded line; a context that is not an object is shown whole, bounded. more
// counts the keys left out.
func contextSummary(raw json.RawMessage) (lines []contextLine, more int) {
	if hitl.IsNull(raw) {
		return nil, 0
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return []contextLine{{"", cut(compact(raw), maxContextOther)}}, 0
	}
	for dec.More() {
		key, err := dec.Token()
		var value json.RawMessage
		if err != nil || dec.Decode(&value) != nil {
			break
		}
		if len(lines) == maxContextKeys {
			more++
			continue
		}
		var text string
		if json.Unmarshal(value, &text) != nil {
			text = compact(value)
		}
		lines = append(lines, contextLine{fmt.Sprint(key), cut(strings.Join(strings.Fields(text), " "), maxContextValue)})
	}
	return lines, more
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// deadlineWords says when the inquiry closes, as a person in zone reads it: "answer by 14:30
// UTC (Mon 24 Nov), in 2 hours; if nobody answers by then, the fallback value is used".
func deadlineWords(inq *hitl.Inquiry, now time.Time, zone *time.Location) string {
	if inq.TimeoutAt == nil {
		return ""
	}
	at, today := inq.TimeoutAt.In(zone), now.In(zone)
	when := at.Format("15:04 MST")
	if y, m, d := at.Date(); y != today.Year() || m != today.Month() || d != today.Day() {
		when += at.Format(" (Mon 2 Jan)")
	}
	return fmt.Sprintf("answer by %s, %s; if nobody answers by then, %s", when, inWords(at.Sub(now)), wording.Fallback(inq.FallbackPolicy))
}

// inWords is a duration from now, rounded the way people say it.
func inWords(d time.Duration) string {
	plural := func(n int, unit string) string {
		if n == 1 {
			return "in 1 " + unit
		}
		return fmt.Sprintf("in %d %ss", n, unit)
	}
	switch {
	case d < time.Minute:
		return "in less than a minute"
	case d < time.Hour:
		return plural(int(d.Round(time.Minute)/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int(d.Round(time.Hour)/time.Hour), "hour")
	}
	return plural(int(d.Round(24*time.Hour)/(24*time.Hour)), "day")
}

// answerWords is an inquiry's outcome as the resolved notice says it: "Answered by Ada:
// approve".
func answerWords(inq *hitl.Inquiry) string {
	switch inq.Status {
	case hitl.StatusTimeout:
		if inq.FallbackApplied {
			return "Nobody answered in time: the fallback value " + cut(compact(inq.FallbackValue), maxContextValue) + " was used."
		}
		return "Nobody answered in time; the agent was told."
	case hitl.StatusCancelled:
		if inq.CancelReason != nil && *inq.CancelReason != "" {
			return "The question was withdrawn: " + *inq.CancelReason
		}
		return "The question was withdrawn."
	case hitl.StatusPending:
		return ""
	}
	by := "someone"
	if inq.RespondedBy != nil {
		by = *inq.RespondedBy
	}
	s := "Answered by " + by + ": " + responseWords(inq)
	if inq.Comment != nil && *inq.Comment != "" {
		s += " (" + cut(*inq.Comment, maxContextValue) + ")"
	}
	return s
}

// responseWords is the answer itself, in words where the question had them.
func responseWords(inq *hitl.Inquiry) string {
	if inq.IsPlainApproval() {
		var a struct {
			Approved bool   `json:"approved"`
			Comment  string `json:"comment"`
		}
		if json.Unmarshal(inq.Response, &a) == nil {
			verdict := "reject"
			if a.Approved {
				verdict = "approve"
			}
			if a.Comment != "" && (inq.Comment == nil || *inq.Comment != a.Comment) { // else said once, after the answer
				verdict += " (" + cut(a.Comment, maxContextValue) + ")"
			}
			return verdict
		}
	}
	var picked []string
	if json.Unmarshal(inq.Response, &picked) != nil {
		var one string
		if json.Unmarshal(inq.Response, &one) == nil {
			picked = []string{one}
		}
	}
	if len(inq.Options) > 0 && len(picked) > 0 {
		for i, v := range picked {
			for _, o := range inq.Options {
				if o.Value == v {
					picked[i] = optionLabel(o)
				}
			}
		}
		return strings.Join(picked, ", ")
	}
	var text string
	if json.Unmarshal(inq.Response, &text) == nil {
		return cut(text, maxContextOther)
	}
	return cut(compact(inq.Response), maxContextOther)
}

// replyHint says what to write in a reply to answer, for the kind of question.
func replyHint(inq *hitl.Inquiry) string {
	switch {
	case inq.IsPlainApproval():
		return "Or reply to this email: write approve or reject on the first line; a second line is your comment."
	case len(inq.Options) > 0 && inq.Multiple:
		return "Or reply to this email: write the options you choose on the first line, by value or number, separated by commas."
	case len(inq.Options) > 0:
		return "Or reply to this email: write the option you choose on the first line, by value or number; a second line is your comment."
	case isText(inq):
		return "Or reply to this email: your reply's text is the answer."
	}
	return "Or reply to this email with the answer as JSON."
}

// view is what both templates show.
type view struct {
	Heading   string // what the message is about, in one line
	Prompt    string
	AskedBy   string
	Context   []contextLine
	More      int
	Options   []numbered // for answering by reply with a number
	Buttons   []Button
	Outcome   string
	Deadline  string
	InboxURL  string
	ReplyHint string
	For       string
}

func newView(m *Message, now time.Time) view {
	inq := m.Inquiry
	v := view{Prompt: inq.Prompt, AskedBy: inq.CreatedBy, InboxURL: m.InboxURL, For: m.To.Principal}
	if inq.Session != "" {
		v.AskedBy += " (session " + inq.Session + ")"
	}
	switch m.Reason {
	case ReasonReminder:
		v.Heading = "Reminder: this question still waits for an answer."
	case ReasonEscalation:
		v.Heading = "This question was escalated to you: nobody has answered it yet."
	case ReasonResolved:
		v.Outcome = answerWords(inq)
	}
	if m.OnBehalfOf != "" && m.Reason != ReasonResolved {
		v.Heading = strings.TrimSpace(fmt.Sprintf("For %s, who is away: you are their delegate, and your answer counts as %s's. %s",
			m.OnBehalfOf, m.OnBehalfOf, v.Heading))
	}
	if m.Reason != ReasonResolved && !inq.Status.Final() {
		v.Context, v.More = contextSummary(inq.Context)
		v.Buttons = m.Buttons
		v.Deadline = deadlineWords(inq, now, hitl.Location(m.TimeZone))
		if m.ReplyToken != "" {
			v.ReplyHint = replyHint(inq)
			if !inq.IsPlainApproval() {
				for i, o := range inq.Options {
					v.Options = append(v.Options, numbered{i + 1, optionText(o)})
				}
			}
		}
	}
	return v
}

func optionText(o hitl.Option) string {
	if o.Label == "" || o.Label == o.Value {
		return o.Value
	}
	return o.Label + " (" + o.Value + ")"
}

// numbered is an option with the number a reply may give instead of its value.
type numbered struct {
	N    int
	Text string
}

// textBody is the plain text part; mail programs that show no HTML show this.
var textBody = textTemplate.Must(textTemplate.New("text").Parse(`{{with .Heading}}{{.}}

{{end}}{{with .Outcome}}{{.}}

{{end}}{{.Prompt}}

Asked by {{.AskedBy}}{{with .For}}, sent to you as {{.}}{{end}}.
{{if .Context}}
{{range .Context}}{{with .Key}}{{.}}: {{end}}{{.Value}}
{{end}}{{if .More}}… and {{.More}} more in the inbox
{{end}}{{end}}{{if .Buttons}}
{{range .Buttons}}{{.Label}}: {{.URL}}
{{end}}{{end}}{{with .Deadline}}
Please {{.}}.
{{end}}{{with .ReplyHint}}
{{.}}
{{range $.Options}}  {{.N}}. {{.Text}}
{{end}}{{end}}{{with .InboxURL}}
Open it in the inbox: {{.}}
{{end}}`))

// htmlBody is the HTML part: inline styles only (mail programs drop style sheets), every
// value escaped by html/template, links only to the URLs the message was given.
var htmlBody = template.Must(template.New("html").Parse(`<!DOCTYPE html>
<html><body style="margin:0;padding:16px;background:#f6f7f9;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1f2328">
<div style="max-width:600px;margin:0 auto;background:#ffffff;border:1px solid #d0d7de;border-radius:8px;padding:20px">
{{with .Heading}}<p style="margin:0 0 12px;color:#9a6700;font-weight:600">{{.}}</p>{{end}}
{{with .Outcome}}<p style="margin:0 0 12px;padding:8px 12px;background:#dafbe1;border-radius:6px;font-weight:600">{{.}}</p>{{end}}
<p style="margin:0 0 12px;font-size:18px;line-height:1.4;white-space:pre-wrap">{{.Prompt}}</p>
<p style="margin:0 0 12px;color:#59636e;font-size:14px">Asked by {{.AskedBy}}{{with .For}}, sent to you as {{.}}{{end}}.</p>
{{if .Context}}<table style="border-collapse:collapse;margin:0 0 16px;font-size:14px">
{{range .Context}}<tr>{{with .Key}}<td style="padding:2px 12px 2px 0;color:#59636e;vertical-align:top">{{.}}</td>{{end}}<td style="padding:2px 0;word-break:break-word">{{.Value}}</td></tr>
{{end}}{{if .More}}<tr><td colspan="2" style="padding:2px 0;color:#59636e">… and {{.More}} more in the inbox</td></tr>{{end}}
</table>{{end}}
{{if .Buttons}}<p style="margin:0 0 16px">{{range .Buttons}}<a href="{{.URL}}" style="display:inline-block;margin:0 8px 8px 0;padding:10px 18px;background:#1f6feb;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:600">{{.Label}}</a>{{end}}</p>{{end}}
{{with .Deadline}}<p style="margin:0 0 12px;font-size:14px">Please {{.}}.</p>{{end}}
{{with .ReplyHint}}<p style="margin:0 0 12px;font-size:14px;color:#59636e">{{.}}</p>{{if $.Options}}<ol style="margin:0 0 12px;font-size:14px;color:#59636e">{{range $.Options}}<li>{{.Text}}</li>{{end}}</ol>{{end}}{{end}}
{{with .InboxURL}}<p style="margin:0;font-size:14px"><a href="{{.}}" style="color:#1f6feb">Open it in the inbox</a></p>{{end}}
</div></body></html>`))
