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
// text twice: as the person sees it, and with the text hidden from them (by CSS, see
// replycss.go and replystyle.go, by HTML, or by Outlook's conditional comments) put back in
// place. The answer is read from the first; the second only serves to refuse a reply whose
// hidden text would answer differently (see replyTexts). The quoted message and the
// signature are left out of both, by the marks mail programs give them.

// htmlReading is an HTML part reduced to text.
type htmlReading struct {
	shown string // what a mail program shows, line by line
	all   string // the same with hidden elements' text in place
	// hidden tells whether a hidden element holds any text; when none does, all differs from
	// shown at most in spaces.
	hidden bool
}

// errTooComplexHTML refuses what would cost too much to read: a part nested deeper than the
// parser goes (512 elements), or style sheets with more rules or nesting than a mail
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
	w := htmlWalk{conditionals: map[*html.Node][]*html.Node{}, walked: map[*html.Node]bool{}}
	// Style sheets apply to the whole document, wherever they stand: the quoted message
	// included, and inside Outlook's conditional comments (Outlook applies those).
	sheet := func(n *html.Node) bool {
		switch {
		case n.Type != html.ElementNode:
		case n.Data == "style" && n.FirstChild != nil:
			return w.sheets.read(n.FirstChild.Data, 0, false)
		case n.Data == "link" && slices.Contains(strings.Fields(strings.ToLower(attr(n, "rel"))), "stylesheet"):
			w.sheets.unknowable = true
		}
		return true
	}
	for n := range root.Descendants() {
		if n.Type != html.CommentNode {
			if !sheet(n) {
				return htmlReading{}, errTooComplexHTML
			}
			continue
		}
		inner, ok := conditionalContent(n.Data)
		if !ok {
			continue
		}
		body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
		nodes, err := html.ParseFragmentWithOptions(strings.NewReader(inner), body, html.ParseOptionEnableScripting(false))
		if err != nil { // nested deeper than the parser goes
			return htmlReading{}, errTooComplexHTML
		}
		w.conditionals[n] = nodes
		for _, c := range nodes {
			if !sheet(c) {
				return htmlReading{}, errTooComplexHTML
			}
			for d := range c.Descendants() {
				if !sheet(d) {
					return htmlReading{}, errTooComplexHTML
				}
			}
		}
	}
	w.node(root, false, defaultStyle())
	// All the text counts as hidden when what the person sees cannot be known: the style
	// sheets say so, or a box is drawn out of its place, where it may cover any text. Such a
	// box may also stand in the quoted message, which the walk left out (Outlook's own shapes
	// in its conditional comments are left out).
	for n := range root.Descendants() {
		if w.displaced || w.sheets.unknowable {
			break
		}
		w.displaced = n.Type == html.ElementNode && !w.walked[n] && !neverShown(n) && displaced(w.sheets.declarationsOf(n))
	}
	if w.sheets.tooMuch() {
		return htmlReading{}, errTooComplexHTML
	}
	all := htmlLines(w.all.String())
	if w.displaced || w.sheets.unknowable {
		return htmlReading{all: all, hidden: strings.TrimSpace(all) != ""}, nil
	}
	return htmlReading{shown: htmlLines(w.shown.String()), all: all, hidden: w.hidden}, nil
}

// htmlWalk writes the text of a document in order, once as shown and once whole.
type htmlWalk struct {
	sheets       styleSheets
	conditionals map[*html.Node][]*html.Node // what Outlook's conditional comments hold, parsed
	shown, all   strings.Builder
	hidden       bool
	stopped      bool // the quoted message has begun: nothing after it is the reply
	// downlevel is set between "<!--[if !mso]><!-->" and "<!--<![endif]-->": what stands
	// there is shown by every program but Outlook.
	downlevel bool
	walked    map[*html.Node]bool // the elements whose style the walk has read
	displaced bool                // one of them is drawn out of its place
	// inConditional is set in a conditional comment, whose shapes are Outlook's own.
	inConditional bool
}

// node writes the text of a node; hidden tells that an element around it hides it, and st is
// the style it inherits.
func (w *htmlWalk) node(n *html.Node, hidden bool, st *textStyle) {
	if w.stopped {
		return
	}
	switch n.Type {
	case html.TextNode:
		// Whitespace is one space in HTML, also at a piece's edge: "Release <b>Aurora</b>" keeps
		// the space before the bold word.
		w.text(htmlSpace.ReplaceAllString(n.Data, " "), hidden || st.invisible || w.downlevel)
		return
	case html.CommentNode:
		w.comment(n, st)
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
		case n.Data == "input":
			// What a form field holds is shown in its box, maybe in part: hidden text.
			value := strings.TrimSpace(attr(n, "value") + " " + attr(n, "placeholder"))
			if t := strings.ToLower(attr(n, "type")); value != "" && t != "hidden" && t != "checkbox" && t != "radio" && t != "image" && t != "file" {
				w.text(" "+value+" ", true)
			}
			return
		}
		ds := w.sheets.declarationsOf(n)
		w.walked[n], w.displaced = true, w.displaced || displaced(ds) && !w.inConditional
		own, elementHides := computeStyle(n, ds, st, w.sheets.webFonts)
		hidden, st = hidden || elementHides || hiddenKind(n), &own
	default: // doctypes
		return
	}
	w.breakAround(n)
	closed := n.Type == html.ElementNode && n.Data == "details" && !hasAttr(n, "open")
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		// A closed <details> shows its <summary> only.
		w.node(c, hidden || closed && !(c.Type == html.ElementNode && c.Data == "summary"), st)
	}
	w.breakAround(n)
}

// text writes a piece of text, to the shown reading unless it is hidden.
func (w *htmlWalk) text(s string, hidden bool) {
	w.all.WriteString(s)
	if !hidden {
		w.shown.WriteString(s)
	} else if strings.TrimSpace(s) != "" {
		w.hidden = true
	}
}

// comment reads an Outlook conditional comment, "<!--[if mso]>…<![endif]-->": Outlook for
// Windows shows what it holds and every other program hides it, so its text counts as
// hidden. "<!--[if !mso]><!-->…<!--<![endif]-->" is the other way round: what stands between
// is hidden from Outlook's readers.
func (w *htmlWalk) comment(n *html.Node, st *textStyle) {
	switch d := strings.TrimSpace(n.Data); {
	case d == "<![endif]":
		w.downlevel = false
	case downlevelRevealed(d):
		w.downlevel = true
	default:
		w.inConditional = true
		for _, c := range w.conditionals[n] {
			w.node(c, true, st)
		}
		w.inConditional = false
	}
}

// conditionalContent is the markup an Outlook conditional comment holds.
func conditionalContent(comment string) (string, bool) {
	inner, ok := strings.CutPrefix(comment, "[if")
	if !ok || downlevelRevealed(strings.TrimSpace(comment)) {
		return "", false
	}
	_, inner, _ = strings.Cut(inner, "]>")
	inner, _, _ = strings.Cut(inner, "<![endif]")
	return inner, true
}

// downlevelRevealed tells the comment that opens what every program but Outlook shows:
// "[if !mso]><!" (or "<!-- ", as some write it).
func downlevelRevealed(d string) bool {
	inner, ok := strings.CutPrefix(d, "[if")
	if !ok {
		return false
	}
	_, after, ok := strings.Cut(inner, "]>")
	after = strings.TrimSpace(after)
	return ok && (after == "<!" || after == "<!--")
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
