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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/htmlindex"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/schema"
)

// Reading a reply: the text a person wrote above the quoted message, from the text/plain
// part (or the HTML part reduced to text when there is none), attachments ignored.

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

// replyText is what the person wrote in the reply, quoted text and trailers left out.
func replyText(msg *mail.Message) (string, error) {
	var b bodies
	if err := b.walk(textproto.MIMEHeader(msg.Header), msg.Body, 0); err != nil {
		return "", err
	}
	switch {
	case b.hasPlain:
		return unquoted(b.plain), nil
	case b.hasHTML:
		return unquoted(htmlText(b.html)), nil
	}
	return "", fmt.Errorf("it has no text: write the answer in the message, not in an attachment")
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

// htmlText reduces an HTML reply to its text: blocks and <br> become line breaks, and what
// mail programs quote (<blockquote>) is left out with scripts and styles.
// htmlSpace is what HTML reads as one space.
var htmlSpace = regexp.MustCompile(`[ \t\r\n\f]+`)

func htmlText(doc string) string {
	z := html.NewTokenizer(strings.NewReader(doc))
	var out strings.Builder
	skip := 0 // depth inside elements whose text is not the reply
	for {
		switch z.Next() {
		case html.ErrorToken:
			// Runs of spaces inside a line, and at its ends, are markup's, not the person's.
			lines := strings.Split(out.String(), "\n")
			for i, l := range lines {
				lines[i] = strings.Join(strings.Fields(l), " ")
			}
			return strings.Join(lines, "\n")
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "blockquote", "script", "style", "head", "title":
				skip++
			case "br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6":
				out.WriteByte('\n')
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "blockquote", "script", "style", "head", "title":
				skip = max(0, skip-1)
			case "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6":
				out.WriteByte('\n')
			}
		case html.TextToken:
			if skip == 0 {
				// Whitespace is one space in HTML, also at a piece's edge: "Release <b>Aurora</b>"
				// keeps the space before the bold word.
				out.WriteString(htmlSpace.ReplaceAllString(string(z.Text()), " "))
			}
		}
	}
}

// trailer matches the line mail programs write above the quoted message: "On Mon, 23 Nov
// 2026 at 10:00, Ada <ada@example.com> wrote:", and its common translations.
var trailer = regexp.MustCompile(`(?i)^(on|le|am|el|il|op) .*(wrote|a écrit|schrieb|escribió|ha scritto|schreef)\s*:$`)

// unquoted is the text above the quoted message: lines quoted with ">" are dropped, and the
// text ends at the "On … wrote:" trailer, an "Original Message" line, an Outlook separator or
// a signature ("-- ").
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
			strings.HasPrefix(strings.ToLower(t), "on ") && strings.EqualFold(next, "wrote:"),
			strings.Contains(strings.ToLower(t), "original message") && strings.HasPrefix(t, "-----"),
			len(t) >= 10 && strings.Trim(t, "_") == "",
			line == "-- ":
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
	answer := map[string]any{}
	switch {
	case slices.Contains(approveWords, word):
		answer["approved"] = true
	case slices.Contains(rejectWords, word):
		answer["approved"] = false
	default:
		return nil, []string{fmt.Sprintf("The first line of your reply, %q, is not an answer: write approve (or yes) or reject (or no) on it; a second line is your comment.", cut(first, 60))}
	}
	comment := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(more), ".,;:!-") + "\n" + rest)
	if comment != "" {
		answer["comment"] = comment
	}
	b, _ := json.Marshal(answer)
	return &hitl.ResponseRequest{Response: b}, nil
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
