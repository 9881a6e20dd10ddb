package email

import (
	"iter"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html"
)

// The CSS a reply's HTML may hide text with: the declarations of a style attribute or of a
// style sheet's rule, and the selectors of those rules. Only what can hide is read, and the
// reading errs on the side of calling text hidden (see replystyle.go for what hides):
//
//   - the cascade is followed only where it is certain: a style attribute overrides a rule,
//     unless the rule is !important; rules among themselves are not ranked, so that every
//     value any of them sets counts, and a declaration that hides by itself (display:none)
//     hides wherever it stands;
//   - rules inside media queries, @supports or another rule count as applying, but not for
//     sure: what they would override counts too;
//   - of a selector, only its last compound is matched (tag, id, classes), ignoring case as
//     mail programs' quirks mode does; what this reader does not evaluate (attribute
//     selectors, pseudo-classes, combinators, escapes, *) is left out, so that the rule
//     matches every element it might match: "[data-x]" and ":not(p)" match all;
//   - a style sheet that is not in the message (<link rel=stylesheet>, @import), and text
//     written by the style sheet (::before { content: "…" }), make all of the reply's text
//     count as hidden: what the person sees cannot be known.
//
// Text wrongly taken as hidden can only get a reply refused, never answered by what the
// person did not see.

// Bounds on the style sheets of one reply: a person's mail program writes a few dozen rules,
// none nested; more is a message built to cost time.
const (
	maxHidingRules        = 200        // rules that hide by themselves (display:none)
	maxStyleRules         = 500        // all the rules kept: those with a declaration read here
	maxStyleDeclarations  = 2000       // their declarations
	maxRuleTries          = 10_000_000 // rules tried on the elements of a document
	maxDeclarationsRead   = 1_000_000  // declarations read for them
	maxSheetNesting       = 8
	maxColourCandidates   = 16 // colours a text may have (see textStyle), beyond which it counts as hidden
	defaultFontPx         = 16.0
	minReadableFontPx     = 4.0  // 3pt, a quarter of the default size: below, nobody reads it
	maxShiftPx            = 16.0 // a box moved further than a line is drawn over other text
	offPagePx             = 1000.0
	percentPx             = 10.0 // 1% of a wide window, for offsets: errs toward far
	viewportPercentFontPx = 3.2  // 1vw of a phone, for font sizes: errs toward small
)

// declaration is one "name: value" of CSS, both lowercased, the value without !important.
// Vendor prefixes are removed from names ("-webkit-transform" is transform), and shorthands
// are read as the properties they set ("margin: 0 0 0 -9999px" is margin-left: -9999px…).
type declaration struct {
	name, value string
	important   bool
}

// cssDeclarations reads a declaration block. Comments and escapes are undone first, so that
// "display:/**/n\one" reads as what a browser reads; nested rules are left out.
func cssDeclarations(s string) []declaration {
	var out []declaration
	for d := range strings.SplitSeq(ownDeclarations(cssUnescape(withoutCSSComments(s))), ";") {
		name, value, ok := strings.Cut(d, ":")
		if !ok {
			continue
		}
		value = strings.ToLower(strings.TrimSpace(value))
		important := false
		if i := strings.LastIndex(value, "!"); i >= 0 && strings.TrimSpace(value[i+1:]) == "important" {
			value, important = strings.TrimSpace(value[:i]), true
		}
		name = strings.ToLower(strings.TrimSpace(name))
		for _, prefix := range []string{"-webkit-", "-moz-", "-ms-", "-o-"} {
			if cut, ok := strings.CutPrefix(name, prefix); ok {
				name = cut
				break
			}
		}
		out = append(out, expand(declaration{name, value, important})...)
	}
	return out
}

// ownDeclarations is a declaration block without the rules nested in it: in ".a { .b { color:
// red } display: none }" the block of .a is "display: none".
func ownDeclarations(s string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	var b strings.Builder
	start, skip := 0, 0 // where the declaration being read begins; the end of a nested block
	for i, c := range cssTopLevel(s) {
		switch {
		case i < skip:
		case c == ';':
			b.WriteString(s[start : i+1])
			start = i + 1
		case c == '{':
			_, rest := cssBlock(s[i+1:])
			b.WriteByte(';')
			skip = len(s) - len(rest)
			start = skip
		}
	}
	b.WriteString(s[min(start, len(s)):])
	return b.String()
}

// cssTopLevel yields the bytes of CSS that stand outside strings, parentheses and brackets,
// with their index: a quote, parenthesis or bracket that opens is yielded, what it holds and
// what closes it are not. A string ends at a newline, as in a browser.
func cssTopLevel(s string) iter.Seq2[int, byte] {
	return func(yield func(int, byte) bool) {
		depth := 0
		var quote byte
		for i := 0; i < len(s); i++ {
			c, top := s[i], depth == 0
			switch {
			case quote != 0:
				if c == '\\' {
					i++
				} else if c == quote || c == '\n' {
					quote = 0
				}
				continue
			case c == '"' || c == '\'':
				quote = c
			case c == '(' || c == '[':
				depth++
			case c == ')' || c == ']':
				depth = max(depth-1, 0)
				continue
			}
			if top && !yield(i, c) {
				return
			}
		}
	}
}

// logicalSides are the physical sides of the logical properties, for left-to-right text.
var logicalSides = map[string]string{"inline-start": "left", "inline-end": "right", "block-start": "top", "block-end": "bottom"}

// expand reads a shorthand as the properties it sets, as far as they are read here.
func expand(d declaration) []declaration {
	set := func(name, value string) declaration { return declaration{name, value, d.important} }
	base, rest, _ := strings.Cut(d.name, "-")
	// side names one side's property: margin-top, but top for inset.
	side := func(s string) string {
		if base == "inset" {
			return s
		}
		return base + "-" + s
	}
	switch {
	case d.name == "margin" || d.name == "padding" || d.name == "inset":
		t := cssTokens(d.value, false)
		if len(t) == 0 || len(t) > 4 {
			return nil
		}
		top, right, bottom, left := t[0], t[0], t[0], t[0]
		if len(t) > 1 {
			right, left = t[1], t[1]
		}
		if len(t) > 2 {
			bottom = t[2]
		}
		if len(t) > 3 {
			left = t[3]
		}
		return []declaration{set(side("top"), top), set(side("right"), right), set(side("bottom"), bottom), set(side("left"), left)}
	case (base == "margin" || base == "padding" || base == "inset") && (rest == "inline" || rest == "block"):
		t := cssTokens(d.value, false)
		if len(t) == 0 || len(t) > 2 {
			return nil
		}
		return []declaration{set(side(logicalSides[rest+"-start"]), t[0]), set(side(logicalSides[rest+"-end"]), t[len(t)-1])}
	case (base == "margin" || base == "padding" || base == "inset") && logicalSides[rest] != "":
		return []declaration{set(side(logicalSides[rest]), d.value)}
	case d.name == "font":
		return expandFont(d)
	case d.name == "background":
		colour, image := "transparent", "none"
		if cssWideKeyword(d.value) {
			colour, image = d.value, d.value
		}
		for _, t := range cssTokens(d.value, true) {
			switch {
			case imageToken(t):
				image = t
			case colourToken(t), substituted(t):
				colour = t
			}
		}
		return []declaration{set("background-color", colour), set("background-image", image)}
	}
	return []declaration{d}
}

// expandFont reads the font shorthand: "italic 0/0 serif" sets the size 0, the line height 0
// and the family serif. Without a size it is not a font a browser reads, and sets nothing.
func expandFont(d declaration) []declaration {
	set := func(name, value string) declaration { return declaration{name, value, d.important} }
	switch v := d.value; {
	case cssWideKeyword(v):
		return []declaration{set("font-size", v), set("line-height", v), set("font-family", v)}
	case v == "caption" || v == "icon" || v == "menu" || v == "message-box" || v == "small-caption" || v == "status-bar":
		return []declaration{set("font-size", "13px"), set("line-height", "normal"), set("font-family", v)}
	case substituted(v):
		return []declaration{set("font-size", v), set("line-height", v), set("font-family", v)}
	}
	t := cssTokens(strings.ReplaceAll(d.value, "/", " / "), false)
	for i, tok := range t {
		if !fontSizeToken(tok) {
			continue
		}
		out := []declaration{set("font-size", tok), set("line-height", "normal")}
		rest := t[i+1:]
		if len(rest) >= 2 && rest[0] == "/" {
			out[1].value, rest = rest[1], rest[2:]
		}
		return append(out, set("font-family", strings.Join(rest, " ")))
	}
	return nil
}

// fontSizeToken tells a token of the font shorthand that is its size: a keyword, a length,
// a percentage, or a function that computes one.
func fontSizeToken(t string) bool {
	if _, ok := fontSizeKeywords[t]; ok || t == "smaller" || t == "larger" {
		return true
	}
	if n, unit, ok := cssNumber(t); ok {
		return unit != "" || n == 0
	}
	return mathFunction(t)
}

func mathFunction(t string) bool {
	for _, f := range []string{"calc(", "min(", "max(", "clamp("} {
		if strings.HasPrefix(t, f) {
			return true
		}
	}
	return substituted(t)
}

// substituted tells a value that the browser fills in from elsewhere (a custom property, the
// environment, an attribute), which this reading cannot know.
func substituted(v string) bool {
	return strings.Contains(v, "var(") || strings.Contains(v, "env(") || strings.Contains(v, "attr(")
}

// cssWideKeyword tells the keywords every property takes.
func cssWideKeyword(v string) bool {
	switch v {
	case "inherit", "initial", "unset", "revert", "revert-layer":
		return true
	}
	return false
}

// isNone tells a value that sets nothing: none, an empty value, or a keyword every property
// takes (which, for the properties this is asked of, is none or the parent's value, read in
// the parent).
func isNone(v string) bool {
	return v == "none" || v == "" || cssWideKeyword(v)
}

// imageToken tells a value that draws an image: url(), gradients, image-set()…
func imageToken(t string) bool {
	for _, f := range []string{"url(", "gradient(", "image(", "image-set(", "cross-fade(", "element(", "paint("} {
		if strings.Contains(t, f) {
			return true
		}
	}
	return false
}

// cssTokens splits a value at the spaces (and, if commas, the commas) outside parentheses and
// strings: "rgb(0, 0, 0) url('a b')" is "rgb(0, 0, 0)" and "url('a b')".
func cssTokens(v string, commas bool) []string {
	var out []string
	start := -1
	for i, c := range cssTopLevel(v) {
		separator := c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || commas && c == ','
		switch {
		case separator && start >= 0:
			out = append(out, v[start:i])
			start = -1
		case !separator && start < 0:
			start = i
		}
	}
	if start >= 0 {
		out = append(out, v[start:])
	}
	return out
}

// cssNumber reads a number and its unit: "0.5px" is 0.5 and "px", "1e3px" 1000 and "px". ok
// is false when the value is not a number followed by letters (a keyword, a function).
func cssNumber(v string) (n float64, unit string, ok bool) {
	end := 0
	digits := func() {
		for end < len(v) && (v[end] >= '0' && v[end] <= '9' || v[end] == '.') {
			end++
		}
	}
	if end < len(v) && (v[end] == '-' || v[end] == '+') {
		end++
	}
	digits()
	// An exponent, but not the e of "em" or "ex".
	if end+1 < len(v) && (v[end] == 'e' || v[end] == 'E') {
		next := end + 1
		if v[next] == '-' || v[next] == '+' {
			next++
		}
		if next < len(v) && v[next] >= '0' && v[next] <= '9' {
			end = next
			digits()
		}
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

// lengthBase is what the relative units of a length are: the font size em is, the root's, a
// hundred percent, and 1vw.
type lengthBase struct{ em, rem, percent, vw float64 }

// fontLengths are the bases of a font size or spacing: the element's font (or its parent's,
// for the font's own size) and the root's.
func fontLengths(em, rem float64) lengthBase {
	return lengthBase{em: em, rem: rem, percent: em, vw: viewportPercentFontPx}
}

// offsets are the bases of a box's offsets, margins and indents: percentages and viewport
// units as in a wide window, so that a negative one reads as far.
func offsets(em, rem float64) lengthBase {
	return lengthBase{em: em, rem: rem, percent: 100 * percentPx, vw: percentPx}
}

// px reads a length in pixels; ok is false for what is not one (a keyword, a function, a
// unitless number other than 0).
func (b lengthBase) px(v string) (float64, bool) {
	n, unit, ok := cssNumber(v)
	if !ok {
		return 0, false
	}
	switch unit {
	case "":
		return 0, n == 0
	case "px":
		return n, true
	case "pt":
		return n * 4 / 3, true
	case "pc":
		return n * 16, true
	case "in":
		return n * 96, true
	case "cm":
		return n * 96 / 2.54, true
	case "mm":
		return n * 96 / 25.4, true
	case "q":
		return n * 96 / 101.6, true
	case "em", "ic":
		return n * b.em, true
	case "rem":
		return n * b.rem, true
	case "ex", "ch":
		return n * b.em / 2, true
	case "cap":
		return n * b.em * 0.7, true
	case "lh":
		return n * b.em * 1.2, true
	case "rlh":
		return n * b.rem * 1.2, true
	case "%":
		return n * b.percent / 100, true
	}
	switch strings.TrimLeft(unit, "sld") { // svw, lvh, dvmin…
	case "vw", "vh", "vi", "vb", "vmin", "vmax":
		return n * b.vw, true
	}
	switch unit {
	case "cqw", "cqh", "cqi", "cqb", "cqmin", "cqmax":
		return n * b.vw, true
	}
	return 0, false
}

// withoutCSSComments removes /* comments */, and the <!-- --> that mail programs wrap style
// sheets in (CSS ignores both).
func withoutCSSComments(s string) string {
	if !strings.Contains(s, "/*") && !strings.Contains(s, "<!--") && !strings.Contains(s, "-->") {
		return s
	}
	var b strings.Builder
	var quote byte // "/*" in a string is no comment
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(s) {
				b.WriteByte(c)
				i++
				c = s[i]
			} else if c == quote || c == '\n' {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '/' && strings.HasPrefix(s[i+1:], "*"):
			b.WriteByte(' ')
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				i = len(s)
			} else {
				i += 2 + end + 1
			}
			continue
		}
		b.WriteByte(c)
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

// styleSheets are the rules of a document's style sheets that may hide text.
type styleSheets struct {
	rules []styleRule
	// The rules by what their compound names first: its id, else a class, else its tag; any
	// holds those that name none. Classes are numbered, and has marks an element's.
	byID, byTag map[string][]int
	byClass     map[int][]int
	any         []int
	classIndex  map[string]int
	has         []uint64

	hiding, declarations int
	// The rules tried on elements and the declarations read for them, against maxRuleTries and
	// maxDeclarationsRead.
	tries, declarationsRead int
	webFonts                map[string]bool // the font families the sheets load (@font-face with a src)
	scratch                 []applied       // the memory declarationsOf reuses
	// unknowable is set by what makes the text the person sees unknowable: a style sheet that
	// is not in the message, or one that writes text of its own (::before { content: "…" }).
	unknowable bool
}

// styleRule is a compound and the declarations a rule gives it, those read here.
type styleRule struct {
	compound
	classIDs []int // the compound's classes, numbered
	decls    []declaration
}

// compound is what a selector asks of the element it styles, as far as it is read here: the
// tag, the id and the classes of its last compound, lowercased. An empty one matches all.
type compound struct {
	tag, id string
	classes []string
	// exact tells a rule that applies to every element it matches, for sure: its selector is
	// this compound alone, read whole, and no @media or nesting stands around it.
	exact bool
}

// read adds the rules of a style sheet; it is false when the sheet has more rules or deeper
// nesting than this server reads. conditional tells rules inside @media, @supports or
// another rule, which may not apply.
func (s *styleSheets) read(css string, depth int, conditional bool) bool {
	if depth == 0 {
		css = withoutCSSComments(css)
		if strings.Contains(strings.ToLower(cssUnescape(css)), "@import") {
			s.unknowable = true
		}
	}
	if depth > maxSheetNesting {
		return false
	}
	for {
		open, start := -1, 0 // the rule's "{", and where its prelude begins
		for i, c := range cssTopLevel(css) {
			if c == '{' {
				open = i
				break
			}
			if c == ';' || c == '}' { // what precedes a rule may end a statement: "@import url(x); .hide"
				start = i + 1
			}
		}
		if open < 0 {
			return true
		}
		prelude := strings.TrimSpace(css[start:open])
		var body string
		body, css = cssBlock(css[open+1:])
		if at, ok := strings.CutPrefix(prelude, "@"); ok {
			words := strings.FieldsFunc(cssUnescape(at), func(c rune) bool { return unicode.IsSpace(c) || c == '(' })
			if len(words) == 0 { // "@{…}": a rule of no name holds no element's text
				continue
			}
			switch strings.TrimPrefix(strings.ToLower(words[0]), "-moz-") {
			case "media", "supports", "document", "container", "scope", "starting-style":
				if !s.read(body, depth+1, true) {
					return false
				}
			case "layer":
				if !s.read(body, depth+1, conditional) {
					return false
				}
			case "font-face":
				s.fontFace(body)
			}
			continue // @page, @keyframes: no element's text
		}
		if !s.rule(prelude, body, conditional) {
			return false
		}
		// CSS nesting: ".a { .b { display: none } }".
		if strings.Contains(body, "{") && !s.read(body, depth+1, true) {
			return false
		}
	}
}

// fontFace notes the family of an @font-face that loads a font: its glyphs may be blank.
func (s *styleSheets) fontFace(body string) {
	var families []string
	loads := false
	for _, d := range cssDeclarations(body) {
		switch d.name {
		case "src":
			loads = true
		case "font-family":
			families = fontFamilies(d.value)
		}
	}
	if !loads {
		return
	}
	if s.webFonts == nil {
		s.webFonts = map[string]bool{}
	}
	for _, f := range families {
		s.webFonts[f] = true
	}
}

// fontFamilies reads a font-family value: `"Blank", serif` is blank and serif.
func fontFamilies(v string) []string {
	var out []string
	for f := range strings.SplitSeq(v, ",") {
		out = append(out, strings.Trim(strings.TrimSpace(f), `"'`))
	}
	return out
}

// rule adds a style rule's compounds, with the declarations read here.
func (s *styleSheets) rule(prelude, body string, conditional bool) bool {
	var decls []declaration
	for _, d := range cssDeclarations(body) {
		if weighed[d.name] {
			decls = append(decls, d)
		}
	}
	if len(decls) == 0 {
		return true
	}
	hides := hidingDecls(decls)
	for _, sel := range cssSplit(prelude, ',') {
		c, pseudo, ok := readSelector(sel)
		if !ok {
			switch pseudo {
			case "before", "after", "marker":
				for _, d := range decls {
					s.unknowable = s.unknowable || d.name == "content" && writesText(d.value)
				}
			}
			continue
		}
		c.exact = c.exact && !conditional
		s.add(styleRule{compound: c, decls: decls})
		if hides {
			s.hiding++
		}
	}
	return s.hiding <= maxHidingRules && len(s.rules) <= maxStyleRules && s.declarations <= maxStyleDeclarations
}

// writesText tells a content value that writes text (a string, a counter, attr()), not only
// none or an empty string.
func writesText(v string) bool {
	if isNone(v) || v == "normal" {
		return false
	}
	return strings.Trim(v, "\"' \t\n\u00a0") != ""
}

// weighed are the properties read here, as cssDeclarations names them.
var weighed = map[string]bool{}

func init() {
	for _, p := range strings.Fields(`display visibility content-visibility opacity mso-hide
		font-size line-height font-family font-size-adjust zoom letter-spacing word-spacing
		height width max-height max-width block-size inline-size max-block-size max-inline-size
		overflow overflow-x overflow-y overflow-block overflow-inline white-space text-wrap text-wrap-mode line-clamp
		position top right bottom left text-indent margin-top margin-right margin-bottom margin-left padding-left
		clip clip-path mask mask-image mask-border mask-border-source mask-box-image filter content
		transform translate scale rotate offset offset-path animation animation-name
		grid-area grid-row grid-column grid-row-start grid-row-end grid-column-start grid-column-end
		color text-fill-color background-color background-image`) {
		weighed[p] = true
	}
}

func (s *styleSheets) add(r styleRule) {
	if s.byID == nil {
		s.byID, s.byClass, s.byTag, s.classIndex = map[string][]int{}, map[int][]int{}, map[string][]int{}, map[string]int{}
	}
	for _, c := range r.classes {
		i, ok := s.classIndex[c]
		if !ok {
			i = len(s.classIndex)
			s.classIndex[c] = i
			if i/64 == len(s.has) {
				s.has = append(s.has, 0)
			}
		}
		if !slices.Contains(r.classIDs, i) {
			r.classIDs = append(r.classIDs, i)
		}
	}
	i := len(s.rules)
	s.rules = append(s.rules, r)
	s.declarations += len(r.decls)
	switch {
	case r.id != "":
		s.byID[r.id] = append(s.byID[r.id], i)
	case len(r.classIDs) > 0:
		s.byClass[r.classIDs[0]] = append(s.byClass[r.classIDs[0]], i)
	case r.tag != "":
		s.byTag[r.tag] = append(s.byTag[r.tag], i)
	default:
		s.any = append(s.any, i)
	}
}

// cssBlock splits what follows a "{" into the block's content and what follows its "}".
func cssBlock(s string) (body, rest string) {
	depth := 0
	for i, c := range cssTopLevel(s) {
		switch c {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return s[:i], s[i+1:]
			}
			depth--
		}
	}
	return s, ""
}

// cssSplit splits at the separators outside brackets, parentheses and strings: the
// selectors of "a[title='x, y'], :is(.b, .c)" are "a[title='x, y']" and " :is(.b, .c)".
func cssSplit(s string, separator byte) []string {
	var out []string
	start := 0
	for i, c := range cssTopLevel(s) {
		if c == separator {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// readSelector reads the compound of a selector that names the element it styles: in
// "div.note > p.hide:hover" it is p.hide. ok is false for no selector, and for a
// pseudo-element other than ::first-line and ::first-letter (which style the element's own
// text): pseudo names it, as "before" for p::before.
func readSelector(sel string) (c compound, pseudo string, ok bool) {
	sel = strings.TrimSpace(sel)
	if sel == "" {
		return c, "", false
	}
	if strings.ContainsRune(sel, '\\') { // escaped names are not matched: the rule matches all
		return c, "", true
	}
	// The last compound begins after the last combinator outside brackets and strings.
	start := 0
	for i, c := range cssTopLevel(sel) {
		if strings.IndexByte(" \t\n\r\f>+~", c) >= 0 {
			start = i + 1
		}
	}
	last, exact := sel[start:], start == 0
	if last == "" {
		return c, "", false // "a >": no selector a browser reads
	}
	name := func(i int) int { // the end of the name that begins at i
		for i < len(last) && strings.IndexByte(".#[:", last[i]) < 0 {
			i++
		}
		return i
	}
	i := name(0)
	tag := last[:i]
	if j := strings.LastIndexByte(tag, '|'); j >= 0 { // a namespace: "svg|a"
		tag, exact = tag[j+1:], false
	}
	switch tag {
	case "&":
		exact = false
	case "*":
	default:
		c.tag = strings.ToLower(tag)
	}
	for i < len(last) {
		switch last[i] {
		case '.', '#':
			end := name(i + 1)
			if n := strings.ToLower(last[i+1 : end]); last[i] == '#' {
				c.id = n
			} else {
				c.classes = append(c.classes, n)
			}
			i = end
		case '[':
			exact = false
			i = closing(last, i)
		case ':':
			exact = false
			j := i + 1
			element := j < len(last) && last[j] == ':'
			if element {
				j++
			}
			k := j
			for k < len(last) && strings.IndexByte(".#[:(", last[k]) < 0 {
				k++
			}
			p := strings.ToLower(last[j:k])
			if k < len(last) && last[k] == '(' {
				k = closing(last, k)
			}
			switch p {
			case "first-line", "first-letter":
			case "before", "after":
				return compound{}, p, false
			default:
				if element {
					return compound{}, p, false
				}
			}
			i = k
		default:
			i++
		}
	}
	c.exact = exact
	return c, "", true
}

// closing is the index after the bracket or parenthesis that closes the one at s[i].
func closing(s string, i int) int {
	for j := range cssTopLevel(s[i:]) {
		if j > 0 {
			return i + j
		}
	}
	return len(s)
}

// match calls f with each rule that may style the element.
func (s *styleSheets) match(n *html.Node, f func(*styleRule)) {
	if len(s.rules) == 0 {
		return
	}
	// The element's classes that rules name, as bits.
	var marked []int
	for c := range strings.FieldsSeq(strings.ToLower(attr(n, "class"))) {
		if i, ok := s.classIndex[c]; ok && s.has[i/64]&(1<<(i%64)) == 0 {
			s.has[i/64] |= 1 << (i % 64)
			marked = append(marked, i)
		}
	}
	id := strings.ToLower(attr(n, "id"))
	try := func(rules []int) {
		s.tries += len(rules)
	next:
		for _, i := range rules {
			r := &s.rules[i]
			if r.tag != "" && !strings.EqualFold(r.tag, n.Data) || r.id != "" && r.id != id {
				continue
			}
			for _, c := range r.classIDs {
				if s.has[c/64]&(1<<(c%64)) == 0 {
					continue next
				}
			}
			f(r)
		}
	}
	if id != "" {
		try(s.byID[id])
	}
	for _, c := range marked {
		try(s.byClass[c])
	}
	try(s.byTag[strings.ToLower(n.Data)])
	try(s.any)
	for _, i := range marked {
		s.has[i/64] = 0
	}
}
