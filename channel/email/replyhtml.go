package email

import (
	"errors"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Reading an HTML reply. The part is parsed as a browser parses it (golang.org/x/net/html),
// so that malformed markup ends its elements where a mail program ends them, and reduced to
// text twice: as the person sees it, and with the text hidden from them by CSS or the hidden
// attribute put back in place. The answer is read from the first; the second only serves to
// refuse a reply whose hidden text would answer differently (see replyTexts). The quoted
// message and the signature are left out of both, by the marks mail programs give them.

// htmlReading is an HTML part reduced to text.
type htmlReading struct {
	shown string // what a mail program shows, line by line
	all   string // the same with hidden elements' text in place
	// hidden tells whether a hidden element holds any text; when none does, all is shown.
	hidden bool
}

// errTooComplexHTML refuses what would cost too much to read: a part nested deeper than the
// parser goes (512 elements), or style sheets with more hiding rules or nesting than a mail
// program's reply ever has.
var errTooComplexHTML = errors.New("its HTML is nested too deeply or has too many style rules to be read. Reply again with your answer in plain text")

// htmlSpace is what HTML reads as one space.
var htmlSpace = regexp.MustCompile(`[ \t\r\n\f]+`)

// readHTML reduces an HTML part to the text the person wrote.
func readHTML(doc string) (htmlReading, error) {
	root, err := html.ParseWithOptions(strings.NewReader(doc), html.ParseOptionEnableScripting(false))
	if err != nil {
		return htmlReading{}, errTooComplexHTML
	}
	var w htmlWalk
	// Style sheets apply to the whole document, wherever they stand, quoted message included.
	for n := range root.Descendants() {
		if n.Type == html.ElementNode && n.Data == "style" && n.FirstChild != nil {
			if !w.rules.read(n.FirstChild.Data, 0) {
				return htmlReading{}, errTooComplexHTML
			}
		}
	}
	w.node(root, false)
	if w.tooComplex {
		return htmlReading{}, errTooComplexHTML
	}
	return htmlReading{shown: htmlLines(w.shown.String()), all: htmlLines(w.all.String()), hidden: w.hidden}, nil
}

// htmlWalk writes the text of a document in order, once as shown and once whole.
type htmlWalk struct {
	rules      hidingRules
	shown, all strings.Builder
	hidden     bool
	stopped    bool // the quoted message has begun: nothing after it is the reply
	tooComplex bool // a conditional comment nests deeper than the parser goes
}

func (w *htmlWalk) node(n *html.Node, hidden bool) {
	if w.stopped {
		return
	}
	switch n.Type {
	case html.TextNode:
		// Whitespace is one space in HTML, also at a piece's edge: "Release <b>Aurora</b>" keeps
		// the space before the bold word.
		text := htmlSpace.ReplaceAllString(n.Data, " ")
		w.all.WriteString(text)
		if !hidden {
			w.shown.WriteString(text)
		} else if strings.TrimSpace(text) != "" {
			w.hidden = true
		}
		return
	case html.CommentNode:
		w.conditional(n)
		return
	case html.DocumentNode:
	case html.ElementNode:
		switch {
		case neverShown(n):
			return
		case quoteBegins(n):
			w.stopped = true
			return
		case quoted(n):
			return
		case n.Data == "br":
			w.write("\n")
			return
		}
		hidden = hidden || hiddenElement(n, w.rules)
	default: // comments, doctypes
		return
	}
	w.breakAround(n)
	closed := n.Type == html.ElementNode && n.Data == "details" && !hasAttr(n, "open")
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		// A closed <details> shows its <summary> only.
		w.node(c, hidden || closed && !(c.Type == html.ElementNode && c.Data == "summary"))
	}
	w.breakAround(n)
}

// conditional reads an Outlook conditional comment, "<!--[if mso]>…<![endif]-->": Outlook
// for Windows shows what it holds and every other program hides it, so its text counts as
// hidden.
func (w *htmlWalk) conditional(n *html.Node) {
	inner, ok := strings.CutPrefix(n.Data, "[if")
	if !ok {
		return
	}
	_, inner, _ = strings.Cut(inner, "]>")
	inner, _, _ = strings.Cut(inner, "<![endif]")
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragmentWithOptions(strings.NewReader(inner), body, html.ParseOptionEnableScripting(false))
	if err != nil {
		w.tooComplex = true
		return
	}
	for _, c := range nodes {
		w.node(c, true)
	}
}

// breakAround writes the line break a block element makes before and after itself, and the
// space between table cells.
func (w *htmlWalk) breakAround(n *html.Node) {
	if n.Type != html.ElementNode {
		return
	}
	switch n.Data {
	case "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "table", "ul", "ol", "pre",
		"section", "article", "header", "footer", "address", "center", "dd", "dt", "dl", "summary", "details":
		w.write("\n")
	case "td", "th":
		w.write(" ")
	}
}

func (w *htmlWalk) write(s string) {
	w.shown.WriteString(s)
	w.all.WriteString(s)
}

// htmlLines tidies the text of a walk: runs of spaces inside a line and at its ends are
// markup's, not the person's, and so are runs of empty lines.
func htmlLines(text string) string {
	var out []string
	for l := range strings.SplitSeq(text, "\n") {
		l = strings.Join(strings.Fields(l), " ")
		if l == "" && len(out) > 0 && out[len(out)-1] == "" {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// neverShown tells the elements whose content no mail program shows as text, nor is text
// the person wrote: code, the head, Outlook's XML data.
func neverShown(n *html.Node) bool {
	switch n.Data {
	case "script", "style", "head", "title", "xml":
		return true
	}
	return false
}

// quoteBegins tells the elements after which everything is the quoted message: Outlook puts
// the person's text first, then <div id="appendonsend">, a rule and <div id="divRplyFwdMsg">
// with the From:/Sent: block, then the original as siblings, not inside (Outlook on the web
// prefixes the ids with "x_" when the message is quoted again).
func quoteBegins(n *html.Node) bool {
	id := attr(n, "id")
	return strings.HasSuffix(id, "divRplyFwdMsg") || strings.HasSuffix(id, "appendonsend") ||
		strings.HasSuffix(id, "mail-editor-reference-message-container")
}

// quoted tells the elements that hold a quoted message, its "On … wrote:" line, or a
// signature, as Gmail, Apple Mail, Thunderbird, Yahoo and Outlook mark them.
func quoted(n *html.Node) bool {
	if n.Data == "blockquote" {
		return true
	}
	for class := range strings.FieldsSeq(attr(n, "class")) {
		switch class {
		case "gmail_quote", "gmail_attr", "gmail_signature", "moz-cite-prefix", "moz-signature":
			return true
		}
		if strings.HasSuffix(class, "yahoo_quoted") { // Yahoo prefixes its classes: "ydp1a2byahoo_quoted"
			return true
		}
	}
	id := attr(n, "id")
	return id == "Signature" || strings.HasSuffix(id, "_Signature") || id == "ms-outlook-mobile-signature"
}

// hiddenElement tells whether an element hides its text: the hidden attribute, its style
// attribute, or a rule of the document's style sheets. A template is never shown, and what
// an iframe or object holds is shown only by programs that cannot show the frame: their
// text counts as hidden too.
func hiddenElement(n *html.Node, rules hidingRules) bool {
	switch n.Data {
	case "template", "iframe", "object":
		return true
	}
	return hasAttr(n, "hidden") || hidingDeclarations(attr(n, "style")) || rules.selects(n)
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	return slices.ContainsFunc(n.Attr, func(a html.Attribute) bool { return a.Key == key && a.Namespace == "" })
}
