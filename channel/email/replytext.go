package email

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/htmlindex"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/schema"
)

// Reading a reply: the text a person wrote above the quoted message, as their mail program
// shows it (the HTML part when there is one, see replyhtml.go, else the text part), without
// the signature or hitl's own links; attachments ignored.

// Bounds on the structure of a reply, against messages built to exhaust the parser.
const (
	maxMIMEDepth = 5
	maxMIMEParts = 50
)

// decodeHeader decodes RFC 2047 encoded words ("=?UTF-8?Q?…?=") in any charset x/text
// knows; a header that cannot be decoded is kept as it came.
func decodeHeader(s string) string {
	d := mime.WordDecoder{CharsetReader: charsetReader}
	if out, err := d.DecodeHeader(s); err == nil {
		return out
	}
	return s
}

func charsetReader(charset string, r io.Reader) (io.Reader, error) {
	switch strings.ToLower(charset) {
	case "", "utf-8", "utf8", "us-ascii":
		return r, nil
	}
	enc, err := htmlindex.Get(charset)
	if err != nil {
		return nil, fmt.Errorf("unknown charset %q", charset)
	}
	return enc.NewDecoder().Reader(r), nil
}

// bodies holds the first text and HTML parts of a message.
type bodies struct {
	plain, html       string
	hasPlain, hasHTML bool
	parts             int
}

// replyTexts is a reply read for answering.
type replyTexts struct {
	// shown is what the person wrote, as their mail program shows it: the visible text of the
	// HTML part when there is one (the part people compose in and read), else the text part.
	// The answer, and its comment, are read from it alone.
	shown string
	// others are other readings of the same reply, which must answer as shown does or the
	// reply is refused: the HTML with its hidden text shown, and the text part beside it.
	others []otherReading
}

// otherReading is a reading of a reply that is not what the person sees.
type otherReading struct {
	text string
	// differs says, for the person, why a reply is refused when this reading answers
	// differently from what is shown.
	differs string
	// laidOut tells a reading laid out in its own way (a text part wraps lines, writes *bold*
	// and links in <>), so that an answer that is free text cannot be compared with it.
	laidOut bool
}

const (
	hiddenDiffers = "it holds hidden text that reads differently from what is shown. Reply again with your answer in plain text."
	partsDiffer   = "its plain-text and HTML versions give different answers. Reply again with your answer in plain text."
)

// readReply reads what the person wrote in a reply: quoted text, signatures and hitl's own
// answer links left out (links is answerLinks' pattern).
func readReply(msg *mail.Message, links *regexp.Regexp) (replyTexts, error) {
	var b bodies
	if err := b.walk(textproto.MIMEHeader(msg.Header), msg.Body, 0); err != nil {
		return replyTexts{}, err
	}
	written := func(text string) string { return withoutAnswerLinks(unquoted(invisibleRunes.Replace(text)), links) }
	switch {
	case b.hasHTML:
		h, err := readHTML(b.html)
		if err != nil {
			return replyTexts{}, err
		}
		t := replyTexts{shown: written(h.shown)}
		if h.hidden {
			t.others = append(t.others, otherReading{text: written(h.all), differs: hiddenDiffers})
		}
		if b.hasPlain {
			t.others = append(t.others, otherReading{text: written(b.plain), differs: partsDiffer, laidOut: true})
		}
		return t, nil
	case b.hasPlain:
		return replyTexts{shown: written(b.plain)}, nil
	}
	return replyTexts{}, fmt.Errorf("it has no text: write the answer in the message, not in an attachment")
}

// invisibleRunes are characters that show nothing, which mail programs and pasted text leave
// inside words: "appr\u200bove" reads as the "approve" the person sees.
var invisibleRunes = strings.NewReplacer("\u200b", "", "\u2060", "", "\ufeff", "", "\u00ad", "")

// answerLinks is the pattern of hitl's own links and addresses in a reply, which are the
// person's credentials and never part of an answer: an answer link under the public URL
// (publicURL/a/…), any URL or path with an answer token of any version (…/a/v2.…), a bare
// answer token, and a reply address of the domain (reply+TOKEN@domain), with the <> or ()
// mail programs write around a URL.
func answerLinks(publicURL, domain string) *regexp.Regexp {
	const (
		urlRune = `[^\s<>"'()\[\]]`
		// A URL does not end with the punctuation of the sentence around it.
		urlRest = `(?:` + urlRune + `*[^\s<>"'()\[\].,;:!?])?`
		open    = `[<(\[]{0,2}` // "(<https://…>)"
		closing = `[>)\]]{0,2}`
	)
	alternatives := []string{
		open + urlRune + `*/a/v\d+\.[\w-]{16,}` + urlRest + closing,
		`\bv\d+\.[\w-]{20,}\.[\w-]{20,}`,
	}
	if publicURL = strings.TrimRight(publicURL, "/"); publicURL != "" {
		alternatives = append(alternatives, open+regexp.QuoteMeta(publicURL)+`/a/`+urlRest+closing)
	}
	if domain != "" {
		alternatives = append(alternatives, `\breply\+[^\s@<>"'()\[\]]+@`+regexp.QuoteMeta(domain)+`\b`)
	}
	// The space before a link goes with it: "see <link>, then" is "see, then".
	return regexp.MustCompile(`(?i)[ \t]?(?:` + strings.Join(alternatives, "|") + `)`)
}

// withoutAnswerLinks removes hitl's own links from the text of a reply.
func withoutAnswerLinks(text string, links *regexp.Regexp) string {
	if !links.MatchString(text) {
		return text
	}
	lines := strings.Split(links.ReplaceAllString(text, ""), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// sameAnswer tells whether another reading of a reply answers as the shown one does. Only
// what decides is compared: the choice, the value, the text of a text answer; an approval's
// comment is the shown reading's alone, whatever the other says.
func sameAnswer(inq *hitl.Inquiry, shown *hitl.ResponseRequest, other otherReading) bool {
	if other.laidOut && isText(inq) {
		return true
	}
	req, _ := answerFromReply(inq, other.text)
	if shown == nil || req == nil {
		return shown == nil && req == nil // neither answers: the shown reading's problems are said
	}
	return reflect.DeepEqual(decision(inq, shown.Response), decision(inq, req.Response))
}

// decision is what an answer decides: its JSON value, an approval's comment left out.
func decision(inq *hitl.Inquiry, raw json.RawMessage) any {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	if m, ok := v.(map[string]any); ok && inq.IsPlainApproval() {
		delete(m, "comment")
	}
	return v
}

func (b *bodies) walk(h textproto.MIMEHeader, body io.Reader, depth int) error {
	if b.parts++; b.parts > maxMIMEParts {
		return nil
	}
	media, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		media, params = "text/plain", map[string]string{"charset": "us-ascii"}
	}
	if disp, _, _ := mime.ParseMediaType(h.Get("Content-Disposition")); disp == "attachment" {
		return nil
	}
	switch {
	case strings.HasPrefix(media, "multipart/"):
		if depth >= maxMIMEDepth || params["boundary"] == "" {
			return nil
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("its MIME parts cannot be read: %v", err)
			}
			if err := b.walk(part.Header, part, depth+1); err != nil {
				return err
			}
		}
	case media == "text/plain" && !b.hasPlain, media == "text/html" && !b.hasHTML:
		text, err := decodedText(h, params["charset"], body)
		if err != nil {
			return err
		}
		if media == "text/plain" {
			b.plain, b.hasPlain = text, true
		} else {
			b.html, b.hasHTML = text, true
		}
	}
	return nil
}

// decodedText undoes a part's transfer encoding and charset. (multipart.Reader has already
// undone quoted-printable in parts, and removed the header that said so.)
func decodedText(h textproto.MIMEHeader, charset string, body io.Reader) (string, error) {
	switch strings.ToLower(strings.TrimSpace(h.Get("Content-Transfer-Encoding"))) {
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	}
	r, err := charsetReader(charset, body)
	if err != nil {
		return "", fmt.Errorf("its text is in a charset this server does not know (%s)", charset)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("its text cannot be decoded: %v", err)
	}
	return string(b), nil
}

// trailer matches the line mail programs write above the quoted message: "On Mon, 23 Nov
// 2026 at 10:00, Ada <ada@example.com> wrote:" (Gmail, Thunderbird), "On 23 Nov 2026, at
// 10:00, Ada <ada@example.com> wrote:" (Apple Mail), and their common translations, German
// and Dutch naming the writer after the verb; Zoho's "---- On Mon, 24 Nov 2026 10:00:00
// +0000 Ada <ada@example.com> wrote ----"; and Gmail's in Japanese, "2026年11月24日(月) 10:00
// Ada <ada@example.com>:", which names no verb, so that only a date with an address counts.
var trailer = regexp.MustCompile(`(?i)^(on|le|el|il) .*(wrote|a écrit|escribió|ha scritto)\s*:$|^(am|op) .*(schrieb|schreef)(\s.*)?:$` +
	`|^-{2,}\s*(on|le|el|il|am|op)\s.*(wrote|a écrit|escribió|ha scritto|schrieb|schreef)(\s.*)?\s-{2,}$` +
	`|^\d{4}年\d{1,2}月\d{1,2}日.*<\s*[^<>\s]+@[^<>\s]+>\s*[:：]$`)

// The header block Outlook writes above the quoted message, in plain text and in HTML alike:
// "From: …", then "Sent: …" (or "Date: …") and "To: …" or "Subject: …", in English and a few
// other languages; Gmail's text part writes the names in *bold*.
var (
	fromHeader = regexp.MustCompile(`(?i)^\*?(from|de|von|van|da|fra|från|od)\*?\s?:`)
	sentHeader = regexp.MustCompile(`(?i)^\*?(sent|date|envoyé|gesendet|datum|enviado|fecha|verzonden|inviato|data|skickat|sendt|wysłano)\*?\s?:`)
	toHeader   = regexp.MustCompile(`(?i)^\*?(to|subject|à|a|objet|an|betreff|para|asunto|aan|onderwerp|oggetto|till|ämne|til|emne|do|temat)\*?\s?:`)
)

// headerBlock tells whether the quoted message's header block begins at lines[i].
func headerBlock(lines []string, i int) bool {
	if !fromHeader.MatchString(strings.TrimSpace(lines[i])) {
		return false
	}
	var sent, to bool
	for _, l := range lines[i+1 : min(len(lines), i+8)] {
		l = strings.TrimSpace(l)
		sent = sent || sentHeader.MatchString(l)
		to = to || toHeader.MatchString(l)
	}
	return sent && to
}

// sentFrom matches the short line phones and Outlook add below what the person wrote.
var sentFrom = regexp.MustCompile(`(?i)^(sent from my |get outlook for |sent from outlook|envoyé de mon ).{0,40}$`)

// unquoted is the text above the quoted message: lines quoted with ">" are dropped, and the
// text ends at the "On … wrote:" trailer (also wrapped over two lines), an "Original
// Message" line, Outlook's separator or From:/Sent: block, a signature ("-- ", or "--" once
// HTML's spaces are gone) or a phone's "Sent from my …".
func unquoted(text string) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var kept []string
	for i, line := range lines {
		t := strings.TrimSpace(line)
		next := ""
		if i+1 < len(lines) {
			next = strings.TrimSpace(lines[i+1])
		}
		switch {
		case strings.HasPrefix(t, ">"):
			continue
		case trailer.MatchString(t),
			// Gmail wraps a long trailer: "On …, Ada <ada@example.com>" / "wrote:".
			next != "" && trailer.MatchString(t+" "+next),
			strings.Contains(strings.ToLower(t), "original message") && strings.HasPrefix(t, "-----"),
			len(t) >= 10 && strings.Trim(t, "_") == "",
			headerBlock(lines, i),
			strings.TrimRight(line, " \t") == "--",
			sentFrom.MatchString(t):
			return strings.TrimSpace(strings.Join(kept, "\n"))
		}
		kept = append(kept, strings.TrimRight(line, " \t"))
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
}

// Words that answer an approval by reply.
var (
	approveWords = []string{"approve", "approved", "yes", "y", "ok", "okay", "lgtm", "accept"}
	rejectWords  = []string{"reject", "rejected", "no", "n", "deny", "denied", "decline"}
)

// answerFromReply maps the text of a reply to the answer it gives: for an approval the first
// word is approve/yes or reject/no and the rest a comment; for options the first line names
// one (or, for several, a comma-separated list) by value, label or number, and the rest is a
// comment; for text the whole reply is the answer; anything else is JSON. A reply that is
// JSON is taken as the answer whatever was asked. What cannot be read is returned as problems
// for the person, in words; the engine still validates what can.
func answerFromReply(inq *hitl.Inquiry, text string) (*hitl.ResponseRequest, []string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, []string{"Your reply has no answer in it: write the answer at the top of the reply, above the quoted message."}
	}
	if (text[0] == '{' || text[0] == '[' || text[0] == '"') && json.Valid([]byte(text)) {
		return &hitl.ResponseRequest{Response: json.RawMessage(text)}, nil
	}
	first, rest, _ := strings.Cut(text, "\n")
	first, rest = strings.TrimSpace(first), strings.TrimSpace(rest)
	switch {
	case inq.IsPlainApproval():
		return approvalFromReply(first, rest)
	case len(inq.Options) > 0:
		return optionsFromReply(inq, first, rest)
	case isText(inq):
		b, _ := json.Marshal(text)
		return &hitl.ResponseRequest{Response: b}, nil
	}
	field := schema.FormFor(inq.ResponseSchema)
	switch field.Kind {
	case schema.KindBoolean, schema.KindInteger, schema.KindNumber, schema.KindChoice:
		if field.Kind == schema.KindBoolean {
			first = boolWord(first)
		}
		answer, errs := field.Read(map[string][]string{field.Name: {first}})
		if len(errs) > 0 {
			return nil, []string{"The first line of your reply " + errs[0].Message + "."}
		}
		return &hitl.ResponseRequest{Response: answer, Comment: rest}, nil
	}
	var v json.RawMessage
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		msg := "This question takes its answer as JSON, and your reply is not JSON" + jsonWhere(text, err) + "."
		if field.Example != "" {
			msg += " For example: " + field.Example
		}
		return nil, []string{msg}
	}
	return &hitl.ResponseRequest{Response: v}, nil
}

// isText tells whether the inquiry's answer is a piece of text, which a reply gives whole.
func isText(inq *hitl.Inquiry) bool {
	if len(inq.Options) > 0 {
		return false
	}
	f := schema.FormFor(inq.ResponseSchema)
	return (f.Kind == schema.KindText && f.Format == "") || f.Kind == schema.KindTextArea
}

func approvalFromReply(first, rest string) (*hitl.ResponseRequest, []string) {
	word, more, _ := strings.Cut(first, " ")
	word = strings.ToLower(strings.TrimRight(word, ".,;:!-"))
	var approved bool
	switch {
	case slices.Contains(approveWords, word):
		approved = true
	case slices.Contains(rejectWords, word):
	default:
		return nil, []string{fmt.Sprintf("The first line of your reply, %q, is not an answer: write approve (or yes) or reject (or no) on it; a second line is your comment.", cut(first, 60))}
	}
	comment := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(more), ".,;:!-") + "\n" + rest)
	return hitl.ApprovalResponse(approved, comment), nil
}

func optionsFromReply(inq *hitl.Inquiry, first, rest string) (*hitl.ResponseRequest, []string) {
	items := []string{first}
	if inq.Multiple {
		items = strings.Split(first, ",")
	}
	var picked []string
	var problems []string
	for _, item := range items {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if v, ok := pickOption(inq.Options, item); ok {
			picked = append(picked, v)
			continue
		}
		problems = append(problems, fmt.Sprintf("%q is not one of the options: write an option's value or its number, from 1 to %d.", cut(item, 60), len(inq.Options)))
	}
	if len(problems) > 0 {
		return nil, problems
	}
	var answer any = picked[0]
	if inq.Multiple {
		answer = picked
	}
	b, _ := json.Marshal(answer)
	return &hitl.ResponseRequest{Response: b, Comment: rest}, nil
}

// pickOption finds the option a person named: by number, by value, or by label, ignoring case
// and a full stop after it.
func pickOption(opts []hitl.Option, item string) (string, bool) {
	item = strings.TrimSpace(strings.TrimRight(item, "."))
	if n, err := strconv.Atoi(item); err == nil && n >= 1 && n <= len(opts) {
		return opts[n-1].Value, true
	}
	for _, exact := range []bool{true, false} {
		for _, o := range opts {
			same := strings.EqualFold
			if exact {
				same = func(a, b string) bool { return a == b }
			}
			if same(item, o.Value) || (o.Label != "" && same(item, o.Label)) {
				return o.Value, true
			}
		}
	}
	return "", false
}

func boolWord(s string) string {
	w := strings.ToLower(strings.TrimRight(strings.TrimSpace(s), "."))
	switch {
	case slices.Contains(approveWords, w), w == "true":
		return "true"
	case slices.Contains(rejectWords, w), w == "false":
		return "false"
	}
	return s
}

// jsonWhere says where a reply stops being JSON, for people: " (from line 1, column 3)".
func jsonWhere(text string, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset <= 0 || int(se.Offset) > len(text)+1 {
		return ""
	}
	before := text[:min(int(se.Offset), len(text))]
	line := strings.Count(before, "\n") + 1
	column := utf8.RuneCountInString(before[strings.LastIndex(before, "\n")+1:])
	return fmt.Sprintf(" (from line %d, column %d)", line, max(column, 1))
}
