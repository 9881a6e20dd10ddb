package email

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html"
)

// The CSS a reply's HTML may hide text with: the declarations of a style attribute or of a
// style sheet's rule, and the selectors of those rules. Only what hides is read, and the
// reading errs on the side of calling text hidden: the cascade is not followed (a later
// display:block does not undo a display:none, a child's visibility:visible does not undo its
// parent's hidden), media queries are taken as always applying, pseudo-classes and attribute
// selectors are dropped and only a selector's last compound is matched. Text wrongly taken
// as hidden can only get a reply refused, never answered by what the person did not see.

// Bounds on the style sheets of one reply: a person's mail program writes a few dozen rules,
// none nested; more is a message built to cost time.
const (
	maxHidingRules  = 200
	maxSheetNesting = 8
)

// hidingDeclarations tells whether CSS declarations ("display: none; color: red") hide the
// text of the element they apply to: display:none, visibility:hidden, opacity:0,
// Outlook's mso-hide:all, a font size below one pixel (font-size, or the font shorthand's
// "0/0"), a zero max-height or max-width, or a zero width or height whose overflow is hidden.
func hidingDeclarations(decls string) bool {
	var zeroBox, overflowHidden bool
	for _, d := range cssDeclarations(decls) {
		switch d.name {
		case "display":
			if d.value == "none" {
				return true
			}
		case "visibility":
			if d.value == "hidden" || d.value == "collapse" {
				return true
			}
		case "opacity":
			if n, _, ok := cssNumber(strings.TrimSuffix(d.value, "%")); ok && n <= 0 {
				return true
			}
		case "mso-hide":
			if d.value == "all" {
				return true
			}
		case "font-size":
			if tinyFont(d.value) {
				return true
			}
		case "font":
			for f := range strings.FieldsSeq(d.value) {
				size, _, _ := strings.Cut(f, "/")
				if tinyFont(size) {
					return true
				}
			}
		case "max-height", "max-width":
			if zeroLength(d.value) {
				return true
			}
		case "height", "width":
			zeroBox = zeroBox || zeroLength(d.value)
		case "overflow", "overflow-x", "overflow-y":
			for f := range strings.FieldsSeq(d.value) {
				overflowHidden = overflowHidden || f == "hidden" || f == "clip"
			}
		}
	}
	return zeroBox && overflowHidden
}

// declaration is one "name: value" of CSS, both lowercased, the value without !important.
type declaration struct{ name, value string }

// cssDeclarations reads a declaration block. Comments and escapes are undone first, so that
// "display:/**/n\one" reads as what a browser reads.
func cssDeclarations(s string) []declaration {
	var out []declaration
	for d := range strings.SplitSeq(cssUnescape(withoutCSSComments(s)), ";") {
		name, value, ok := strings.Cut(d, ":")
		if !ok {
			continue
		}
		value = strings.ToLower(strings.TrimSpace(value))
		if i := strings.Index(value, "!"); i >= 0 && strings.TrimSpace(value[i+1:]) == "important" {
			value = strings.TrimSpace(value[:i])
		}
		out = append(out, declaration{strings.ToLower(strings.TrimSpace(name)), value})
	}
	return out
}

// cssNumber reads a number and its unit: "0.5px" is 0.5 and "px". ok is false when the value
// is not a number followed by letters (a keyword, a function).
func cssNumber(v string) (n float64, unit string, ok bool) {
	end := 0
	for end < len(v) && (v[end] >= '0' && v[end] <= '9' || v[end] == '.' || end == 0 && (v[end] == '-' || v[end] == '+')) {
		end++
	}
	n, err := strconv.ParseFloat(v[:end], 64)
	if err != nil {
		return 0, "", false
	}
	unit = v[end:]
	for _, r := range unit {
		if !(r >= 'a' && r <= 'z' || r == '%') {
			return 0, "", false
		}
	}
	return n, unit, true
}

func zeroLength(v string) bool {
	n, _, ok := cssNumber(v)
	return ok && n == 0
}

// tinyFont tells a font size nobody reads: zero in any unit, or under a pixel or a point.
func tinyFont(v string) bool {
	n, unit, ok := cssNumber(v)
	return ok && (n <= 0 || (unit == "px" || unit == "pt") && n < 1)
}

// withoutCSSComments removes /* comments */, and the <!-- --> that mail programs wrap style
// sheets in (CSS ignores both).
func withoutCSSComments(s string) string {
	if !strings.Contains(s, "/*") && !strings.Contains(s, "<!--") && !strings.Contains(s, "-->") {
		return s
	}
	var b strings.Builder
	for {
		open := strings.Index(s, "/*")
		if open < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:open])
		b.WriteByte(' ')
		end := strings.Index(s[open+2:], "*/")
		if end < 0 {
			break
		}
		s = s[open+2+end+2:]
	}
	return strings.NewReplacer("<!--", " ", "-->", " ").Replace(b.String())
}

// cssUnescape undoes CSS escapes: "\6e " and "\n" are both "n".
func cssUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		hex := i + 1
		for hex < len(s) && hex < i+7 && strings.IndexByte("0123456789abcdefABCDEF", s[hex]) >= 0 {
			hex++
		}
		if hex == i+1 { // an escaped character stands for itself; an escaped newline for nothing
			if s[i+1] != '\n' {
				b.WriteByte(s[i+1])
			}
			i++
			continue
		}
		r, _ := strconv.ParseUint(s[i+1:hex], 16, 32)
		if r == 0 || r > unicode.MaxRune {
			r = unicode.ReplacementChar
		}
		b.WriteRune(rune(r))
		if hex < len(s) && (s[hex] == ' ' || s[hex] == '\t' || s[hex] == '\n') {
			hex++ // the space that ends a hex escape is part of it
		}
		i = hex - 1
	}
	return b.String()
}

// hidingRules are the selectors of a document's style-sheet rules that hide text.
type hidingRules []compound

// compound is the last compound of a selector: "p.note#x" is the tag p, the id x and the
// class note; an empty tag selects any element.
type compound struct {
	tag, id string
	classes []string
}

// read adds the hiding rules of a style sheet; it is false when the sheet has more hiding
// rules or deeper nesting than this server reads.
func (r *hidingRules) read(css string, depth int) bool {
	if depth == 0 {
		css = withoutCSSComments(css)
	}
	if depth > maxSheetNesting {
		return false
	}
	for {
		open := strings.IndexByte(css, '{')
		if open < 0 {
			return true
		}
		prelude := css[:open]
		// What precedes a rule may end a statement: "@import url(x); .hide".
		prelude = strings.TrimSpace(prelude[strings.LastIndexAny(prelude, ";}")+1:])
		var body string
		body, css = cssBlock(css[open+1:])
		if at, ok := strings.CutPrefix(prelude, "@"); ok {
			name := strings.ToLower(strings.FieldsFunc(at+" ", func(c rune) bool { return unicode.IsSpace(c) || c == '(' })[0])
			switch strings.TrimPrefix(name, "-moz-") {
			case "media", "supports", "document", "layer", "container", "scope", "starting-style":
				if !r.read(body, depth+1) {
					return false
				}
			}
			continue // @font-face, @page, @keyframes: no element's text
		}
		if hidingDeclarations(body) {
			for sel := range strings.SplitSeq(withoutBrackets(prelude), ",") {
				if c, ok := lastCompound(sel); ok {
					*r = append(*r, c)
				}
			}
			if len(*r) > maxHidingRules {
				return false
			}
		}
		// CSS nesting: ".a { .b { display: none } }".
		if strings.Contains(body, "{") && !r.read(body, depth+1) {
			return false
		}
	}
}

// cssBlock splits what follows a "{" into the block's content and what follows its "}".
func cssBlock(s string) (body, rest string) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '{':
			depth++
		case c == '}':
			if depth == 0 {
				return s[:i], s[i+1:]
			}
			depth--
		}
	}
	return s, ""
}

// withoutBrackets removes the attribute selectors and pseudo-class arguments of a selector,
// which may hold spaces, commas and combinators of their own: "a[title='x, y'] > :not(.b)"
// is "a > :not".
func withoutBrackets(sel string) string {
	var b strings.Builder
	depth := 0
	for _, c := range sel {
		switch {
		case c == '[' || c == '(':
			depth++
		case (c == ']' || c == ')') && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// lastCompound reads the compound of a selector that names the element itself: in
// "div.note > p.hide:hover" it is p.hide. ok is false for no selector, and for a
// pseudo-element (::before, ::after…), whose hiding leaves the element's own text shown.
func lastCompound(sel string) (compound, bool) {
	fields := strings.FieldsFunc(sel, func(c rune) bool { return unicode.IsSpace(c) || c == '>' || c == '+' || c == '~' })
	if len(fields) == 0 {
		return compound{}, false
	}
	last := fields[len(fields)-1]
	if i := strings.IndexByte(last, ':'); i >= 0 {
		switch pseudo := strings.ToLower(last[i:]); {
		case strings.HasPrefix(pseudo, "::"), pseudo == ":before", pseudo == ":after", pseudo == ":first-line", pseudo == ":first-letter":
			return compound{}, false
		}
		last = last[:i]
	}
	var c compound
	i := strings.IndexAny(last, "#.")
	if i < 0 {
		i = len(last)
	}
	if tag := strings.ToLower(last[:i]); tag != "*" && tag != "&" {
		c.tag = tag
	}
	for rest := last[i:]; rest != ""; {
		end := strings.IndexAny(rest[1:], "#.") + 1
		if end == 0 {
			end = len(rest)
		}
		if name := cssUnescape(rest[1:end]); rest[0] == '#' {
			c.id = name
		} else {
			c.classes = append(c.classes, name)
		}
		rest = rest[end:]
	}
	return c, true
}

// selects tells whether a rule hides the element.
func (r hidingRules) selects(n *html.Node) bool {
	if len(r) == 0 {
		return false
	}
	id, classes := attr(n, "id"), strings.Fields(attr(n, "class"))
outer:
	for _, c := range r {
		if c.tag != "" && c.tag != n.Data || c.id != "" && c.id != id {
			continue
		}
		for _, want := range c.classes {
			if !slices.Contains(classes, want) {
				continue outer
			}
		}
		return true
	}
	return false
}
