// Package chatwebhook posts notifications to chat rooms through their incoming webhooks:
// Slack, Microsoft Teams, Google Chat and Discord, each in its own JSON shape. A message holds
// the prompt and, per option, a link to the inquiry's page in the web inbox with that option
// chosen: whoever opens it signs in and confirms, so a link seen by the whole room answers for
// no one (an answer link, which answers as its person, would be unsafe in a room).
package chatwebhook

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/notify"
)

// Sender posts to incoming webhooks through client, which must be the dispatcher's guarded
// one (notify.NewClient): a chat webhook's URL gets the same address checks as a webhook's.
type Sender struct {
	client *http.Client
	url    URLFunc
}

// URLFunc returns the URL of a chat webhook by its ID (the engine's ChatWebhookURL): an
// error with code hitl.ENotFound when it was deleted, any other when it cannot be read.
type URLFunc func(ctx context.Context, id string) (string, error)

// New returns a Sender that posts through client to the URL that url gives. A notification
// names its room by the chat webhook's ID (its Recipient) and carries no copy of the URL,
// which holds the chat service's token and is kept, perhaps encrypted, with the chat webhook
// only; so the URL is looked up at each attempt.
func New(client *http.Client, url URLFunc) *Sender { return &Sender{client: client, url: url} }

// Send posts the message in the shape of n.ChatKind to the URL of the chat webhook n.Recipient.
func (s *Sender) Send(ctx context.Context, n *notify.Notification) (notify.SendResult, error) {
	body, err := Render(&n.Notification)
	if err != nil {
		return notify.SendResult{}, &notify.PermanentError{Err: err}
	}
	hook, err := s.url(ctx, n.Recipient)
	switch {
	case hitl.ErrorCode(err) == hitl.ENotFound:
		return notify.SendResult{}, &notify.PermanentError{Err: fmt.Errorf("the chat webhook %s was deleted: there is no URL to post to", n.Recipient)}
	case err != nil:
		// Not sent: the attempt fails, saying why, and is retried.
		return notify.SendResult{}, fmt.Errorf("the URL of chat webhook %s cannot be read, so nothing was posted: %w", n.Recipient, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook, bytes.NewReader(body))
	if err != nil {
		return notify.SendResult{}, &notify.PermanentError{Err: fmt.Errorf("the webhook URL cannot be requested: %w", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hitl-chat-webhooks/1")
	resp, err := s.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return notify.SendResult{}, err
	}
	defer resp.Body.Close()
	answer := notify.ReadLimited(resp.Body)
	res := notify.SendResult{Response: strconv.Itoa(resp.StatusCode) + " " + answer}
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return res, nil
	case resp.StatusCode == http.StatusTooManyRequests:
		wait := time.Second
		if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
			wait = time.Duration(secs) * time.Second
		}
		return res, &notify.RetryAfter{Wait: wait, Err: errors.New("the chat service is rate limiting (429)")}
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return res, &notify.PermanentError{Err: fmt.Errorf("the chat service says this webhook does not exist (%d)", resp.StatusCode)}
	}
	return res, fmt.Errorf("the chat service answered %d", resp.StatusCode)
}

// link is one button of a message.
type link struct {
	Label, URL string
}

// message is what every shape says.
type message struct {
	Headline string // one line, why this message
	Prompt   string
	Detail   string // the answer, or who asked and until when
	Links    []link
}

const maxPrompt = 1000

func bounded(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// words says what a notification is about.
func words(n *hitl.Notification) message {
	inq := n.Inquiry
	m := message{Prompt: bounded(inq.Prompt, maxPrompt)}
	id := strconv.FormatInt(inq.ID, 10)
	switch n.Reason {
	case hitl.ReasonCreated:
		m.Headline = "Question " + id + " from " + inq.CreatedBy
	case hitl.ReasonReminder:
		m.Headline = fmt.Sprintf("Reminder %d: question %s is still waiting for an answer", n.Reminder, id)
	case hitl.ReasonEscalation:
		m.Headline = "Question " + id + " escalated to " + strings.Join(n.Added, ", ")
	case hitl.ReasonResolved:
		switch inq.Status {
		case hitl.StatusResponded:
			by := "someone"
			if inq.RespondedBy != nil {
				by = *inq.RespondedBy
			}
			m.Headline = "Question " + id + " answered by " + by
			m.Detail = "Answer: " + bounded(string(inq.Response), 300)
		case hitl.StatusTimeout:
			m.Headline = "Question " + id + " timed out without an answer"
		default:
			m.Headline = "Question " + id + " was cancelled"
		}
		return m
	}
	if inq.TimeoutAt != nil {
		m.Detail = "Answer by " + inq.TimeoutAt.UTC().Format("Mon 2 Jan 15:04 MST")
	}
	if inq.Status != hitl.StatusPending {
		return m
	}
	answer := func(value string) string { return n.InboxURL + "?answer=" + url.QueryEscape(value) }
	switch {
	case len(inq.Options) > 0:
		for _, o := range inq.Options {
			m.Links = append(m.Links, link{Label: cmp.Or(o.Label, o.Value), URL: answer(o.Value)})
		}
	case inq.RequestType == hitl.RequestApproval:
		m.Links = append(m.Links, link{"Approve", answer("approve")}, link{"Reject", answer("reject")})
	}
	m.Links = append(m.Links, link{Label: "Open in hitl", URL: n.InboxURL})
	return m
}

// Render is the JSON body that n.ChatKind's incoming webhook takes.
func Render(n *hitl.Notification) ([]byte, error) {
	if n.Inquiry == nil {
		return nil, errors.New("the notification names no inquiry")
	}
	m := words(n)
	switch n.ChatKind {
	case hitl.ChatSlack:
		return json.Marshal(slackBody(m))
	case hitl.ChatTeams:
		return json.Marshal(teamsBody(m))
	case hitl.ChatGoogleChat:
		return json.Marshal(map[string]string{"text": plainText(m, "*", func(l link) string { return "<" + l.URL + "|" + l.Label + ">" })})
	case hitl.ChatDiscord:
		// Discord takes at most 2000 characters of content.
		return json.Marshal(map[string]any{"content": bounded(plainText(m, "**", func(l link) string { return "[" + l.Label + "](" + l.URL + ")" }), 2000),
			"allowed_mentions": map[string]any{"parse": []string{}}})
	}
	return nil, fmt.Errorf("%q is not a chat webhook kind", n.ChatKind)
}

// plainText is the message as lines of text, the headline between bold's marks (Google Chat's
// "*", Discord's "**"), links written by linkText.
func plainText(m message, bold string, linkText func(link) string) string {
	lines := []string{bold + m.Headline + bold, m.Prompt}
	if m.Detail != "" {
		lines = append(lines, m.Detail)
	}
	if len(m.Links) > 0 {
		ls := make([]string, len(m.Links))
		for i, l := range m.Links {
			ls[i] = linkText(l)
		}
		lines = append(lines, strings.Join(ls, " · "))
	}
	return strings.Join(lines, "\n")
}

// slackEscape keeps a user's text from being read as Slack markup (links, mentions).
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// slackEscapedWithin is s escaped for Slack in at most n characters: cut, when it must be,
// with an ellipsis between two of its characters, never inside the entity of one ("&am…").
func slackEscapedWithin(s string, n int) string {
	if e := slackEscape(s); utf8.RuneCountInString(e) <= n {
		return e
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		piece := slackEscape(string(r))
		if used += utf8.RuneCountInString(piece); used > n-1 {
			break
		}
		b.WriteString(piece)
	}
	return b.String() + "…"
}

// Slack's limits on what slackBody builds: a section's text 3,000 characters
// (https://docs.slack.dev/reference/block-kit/blocks/section-block), 25 elements in an
// actions block (…/blocks/actions-block), a button's text 75 (…/block-elements/button-element);
// a message's own text Slack may split beyond 4,000
// (https://api.slack.com/changelog/2018-04-truncating-really-long-messages).
const (
	slackSectionText = 3000
	slackButtons     = 25
	slackButtonText  = 75
	slackMessageText = 4000
	slackLine        = 500 // the headline's and the detail's share of the section
)

func slackBody(m message) map[string]any {
	links, left := m.Links, 0
	if len(links) > slackButtons {
		// The last link is to hitl, where the options that do not fit are.
		left = len(links) - slackButtons
		links = append(links[:slackButtons-1:slackButtons-1], links[len(links)-1])
	}
	head := "*" + slackEscapedWithin(m.Headline, slackLine) + "*\n"
	tail := ""
	if m.Detail != "" {
		tail += "\n" + slackEscapedWithin(m.Detail, slackLine)
	}
	if left > 0 {
		tail += fmt.Sprintf("\n…and %d more choices: open in hitl to see them all.", left)
	}
	prompt := slackEscapedWithin(m.Prompt, slackSectionText-utf8.RuneCountInString(head+tail))
	blocks := []any{map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": head + prompt + tail}}}
	if len(links) > 0 {
		buttons := make([]any, 0, len(links))
		for i, l := range links {
			buttons = append(buttons, map[string]any{"type": "button", "action_id": "hitl_link_" + strconv.Itoa(i),
				"text": map[string]any{"type": "plain_text", "text": bounded(l.Label, slackButtonText)}, "url": l.URL})
		}
		blocks = append(blocks, map[string]any{"type": "actions", "elements": buttons})
	}
	return map[string]any{"text": slackEscapedWithin(m.Headline+": "+m.Prompt, slackMessageText), "blocks": blocks}
}

// teamsBody is an Office 365 connector MessageCard, which Teams' incoming webhooks take.
func teamsBody(m message) map[string]any {
	actions := make([]any, len(m.Links))
	for i, l := range m.Links {
		actions[i] = map[string]any{"@type": "OpenUri", "name": l.Label, "targets": []any{map[string]string{"os": "default", "uri": l.URL}}}
	}
	text := m.Prompt
	if m.Detail != "" {
		text += "\n\n" + m.Detail
	}
	return map[string]any{"@type": "MessageCard", "@context": "https://schema.org/extensions", "summary": bounded(m.Headline, 100),
		"title": m.Headline, "text": text, "potentialAction": actions}
}
