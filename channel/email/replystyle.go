package email

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// What hides an element's text from the person, read from the CSS that may apply to it (see
// replycss.go) and its HTML attributes. Three ways:
//
//   - the element hides all it holds, whatever its children say: display:none,
//     visibility:hidden, mso-hide:all, clipping (clip, clip-path, masks, a box too small for
//     its text with overflow:hidden), filters other than opacity;
//   - its text cannot be read where it is drawn, which its children may undo (textStyle): a
//     font under about 4px, lines or letters drawn over each other, text in the colour of
//     what is behind it or nearly transparent, a colour or background not worked out here
//     (var(), an image), a font the message loads, text moved out of the page by indents;
//   - a box is drawn out of its place (displaced): positioned absolutely, moved, transformed
//     or animated. It may be drawn over any other text, so when a reply has one, all of its
//     text counts as hidden.

// source is where a declaration comes from, and ranks it.
type source int

const (
	fromAttribute source = iota // an HTML attribute: <font color>, bgcolor
	fromSheet                   // a style sheet's rule
	fromStyle                   // the style attribute
)

// applied is a declaration that may apply to an element.
type applied struct {
	declaration
	from source
	// certain tells a declaration that applies for sure (an attribute, the style attribute,
	// an exact rule's), so that what it overrides does not.
	certain bool
}

// declarationsOf are the declarations that may apply to an element: those of its presentational
// attributes, of the rules that may match it, and of its style attribute. They are good until
// the next call, which reuses their memory.
func (s *styleSheets) declarationsOf(n *html.Node) []applied {
	if s.tooMuch() { // readHTML refuses the message
		return nil
	}
	out := presentational(n, s.scratch[:0])
	defer func() { s.scratch = out[:0] }()
	s.match(n, func(r *styleRule) {
		for _, d := range r.decls {
			out = append(out, applied{d, fromSheet, r.exact})
		}
	})
	for _, d := range cssDeclarations(attr(n, "style")) {
		out = append(out, applied{d, fromStyle, true})
	}
	s.declarationsRead += len(out)
	return out
}

// tooMuch tells a document whose style costs more to work out than this server spends.
func (s *styleSheets) tooMuch() bool {
	return s.tries > maxRuleTries || s.declarationsRead > maxDeclarationsRead
}

// presentational are the declarations HTML's attributes stand for: <font color size>, and
// the colours and images of <body> and tables.
func presentational(n *html.Node, out []applied) []applied {
	add := func(name, value string) {
		out = append(out, applied{declaration{name: name, value: value}, fromAttribute, true})
	}
	colour := func(name, key string) {
		if c, ok := legacyColour(attr(n, key)); ok {
			add(name, c.css())
		}
	}
	image := func() {
		if strings.TrimSpace(attr(n, "background")) != "" {
			add("background-image", "url()")
		}
	}
	switch n.Data {
	case "font":
		colour("color", "color")
		if size, ok := legacyFontSize(attr(n, "size")); ok {
			add("font-size", size)
		}
	case "body":
		colour("color", "text")
		colour("background-color", "bgcolor")
		image()
	case "table", "thead", "tbody", "tfoot", "tr", "td", "th":
		colour("background-color", "bgcolor")
		image()
		for _, key := range []string{"width", "height"} {
			if v := strings.TrimSpace(attr(n, key)); v != "" {
				add(key, v)
			}
		}
	}
	return out
}

// legacyFontSize is the font size of <font size>: 1 to 7, or relative to 3 ("+1").
func legacyFontSize(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", false
	}
	relative := v[0] == '+' || v[0] == '-'
	digits := strings.TrimLeft(v, "+-")
	end := 0
	for end < len(digits) && digits[end] >= '0' && digits[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(digits[:end])
	if err != nil {
		return "", false
	}
	switch {
	case v[0] == '-':
		n = 3 - n
	case relative:
		n = 3 + n
	}
	return []string{"x-small", "small", "medium", "large", "x-large", "xx-large", "xxx-large"}[max(1, min(7, n))-1], true
}

// textStyle is what an element's text inherits that decides whether it can be read.
type textStyle struct {
	font, root float64 // the font size and the root element's, px
	scale      float64 // what zoom and font-size-adjust multiply the drawn size by
	line       lineHeight
	// The letter and word spacing, px: negative, letters are drawn over each other.
	letter, word float64
	// The first line's indent (its smallest and largest candidates), and how far margins and
	// padding move the text from its place, px.
	indentMin, indentMax, x float64
	// The colours the text may have (color, and -webkit-text-fill-color which overrides it),
	// the backgrounds it may be drawn on, and the colours links have.
	colours, fills, backs, links []rgba
	opacity                      float64
	// A colour, or what is behind the text, that is not worked out here.
	unknownColour, unknownBack bool
	webFont                    bool // a font the message loads, whose glyphs may be blank
	// invisible tells text that cannot be read: worked out from the above.
	invisible bool
}

// lineHeight is a line's height: a multiple of the font size, or px.
type lineHeight struct {
	v     float64
	ratio bool
}

func (l lineHeight) px(font float64) float64 {
	if l.ratio {
		return l.v * font
	}
	return l.v
}

// defaultStyle is a browser's: 16px black text on white, blue and purple links.
func defaultStyle() *textStyle {
	return &textStyle{font: defaultFontPx, root: defaultFontPx, scale: 1, line: lineHeight{1.2, true},
		colours: []rgba{black}, backs: []rgba{white}, links: []rgba{{0, 0, 238, 1}, {85, 26, 139, 1}}, opacity: 1}
}

// candidates are the values an element may have for a property, among the declarations for
// it, and whether it may instead keep the value it inherits or starts with. The cascade is
// followed as far as it is certain: !important in the style attribute, then !important in
// rules, then the style attribute, then rules, then attributes; a rank with a declaration that
// applies for sure hides those below it, and every value of the ranks above it counts.
func candidates(list []applied) (values []string, open bool) {
	rank := func(d applied) int {
		switch {
		case d.important && d.from == fromStyle:
			return 4
		case d.important:
			return 3
		case d.from == fromStyle:
			return 2
		case d.from == fromSheet:
			return 1
		}
		return 0
	}
	for r := 4; r >= 0 && len(list) > 0; r-- {
		certain := false
		for _, d := range list {
			if rank(d) == r {
				values = append(values, d.value)
				certain = certain || d.certain
			}
		}
		if certain {
			return values, false
		}
	}
	return values, true
}

// computeStyle works out the style of an element's text from its parent's and the
// declarations that may apply to it, which it sorts; hidden tells an element that hides all
// it holds.
func computeStyle(n *html.Node, ds []applied, parent *textStyle, webFonts map[string]bool) (st textStyle, hidden bool) {
	st = *parent
	if len(ds) == 0 {
		switch n.Data {
		case "html", "body", "a", "small", "sub", "sup", "code", "kbd", "samp", "tt", "pre":
		default: // nothing changes
			return st, false
		}
	}
	hidden = hides(ds)
	slices.SortStableFunc(ds, func(a, b applied) int { return strings.Compare(a.name, b.name) })
	p := byName(ds)

	// The font size: what em is in the element's own font-size is its parent's.
	def := parent.font
	switch n.Data {
	case "small", "sub", "sup":
		def /= 1.2
	case "code", "kbd", "samp", "tt", "pre":
		def *= 13.0 / 16
	}
	st.font = def
	if values, open := candidates(p.get("font-size")); len(values) > 0 {
		lo := math.Inf(1)
		if open {
			lo = def
		}
		for _, v := range values {
			px, ok := fontSize(v, parent.font, parent.root)
			hidden = hidden || !ok // a size not worked out here
			if ok {
				lo = math.Min(lo, px)
			}
		}
		if !math.IsInf(lo, 1) {
			st.font = lo
		}
	}
	if n.Data == "html" {
		st.root = st.font
	}
	for _, d := range p.get("zoom") {
		z, ok := zoom(d.value)
		hidden = hidden || !ok
		st.scale *= min(z, 1)
	}
	for _, d := range p.get("font-size-adjust") {
		if t := cssTokens(d.value, false); len(t) > 0 {
			if a, unit, ok := cssNumber(t[len(t)-1]); ok && unit == "" && a < 0.5 {
				st.scale *= math.Max(a, 0) / 0.5 // the size is scaled for an x-height of a, against a font's usual 0.5
			}
		}
	}

	// Line height and spacing.
	if values, open := candidates(p.get("line-height")); len(values) > 0 {
		var best lineHeight
		have := false
		consider := func(l lineHeight) {
			if !have || l.px(st.font) < best.px(st.font) {
				best, have = l, true
			}
		}
		if open {
			consider(parent.line)
		}
		for _, v := range values {
			switch n, unit, ok := cssNumber(v); {
			case v == "normal" || v == "initial":
				consider(lineHeight{1.2, true})
			case cssWideKeyword(v):
				consider(parent.line)
			case ok && unit == "":
				consider(lineHeight{n, true})
			default:
				px, ok := fontLengths(st.font, st.root).px(v)
				hidden = hidden || !ok
				consider(lineHeight{px, false})
			}
		}
		st.line = best
	}
	spacing := func(name string, inherited float64) float64 {
		values, open := candidates(p.get(name))
		if len(values) == 0 {
			return inherited
		}
		lo := math.Inf(1)
		if open {
			lo = inherited
		}
		for _, v := range values {
			px, ok := fontLengths(st.font, st.root).px(v)
			switch {
			case v == "normal" || v == "initial":
				px = 0
			case cssWideKeyword(v):
				px = inherited
			case !ok:
				hidden = true
			}
			lo = math.Min(lo, px)
		}
		return lo
	}
	st.letter, st.word = spacing("letter-spacing", parent.letter), spacing("word-spacing", parent.word)

	// Where the text is: the first line's indent (inherited), margins and padding.
	at := offsets(st.font, st.root)
	if values, open := candidates(p.get("text-indent")); len(values) > 0 {
		lo, hi := math.Inf(1), math.Inf(-1)
		if open {
			lo, hi = parent.indentMin, parent.indentMax
		}
		for _, v := range values {
			if cssWideKeyword(v) {
				lo, hi = math.Min(lo, parent.indentMin), math.Max(hi, parent.indentMax)
				continue
			}
			indent, hanging := 0.0, false
			for _, t := range cssTokens(v, false) {
				px, ok := at.px(t)
				switch {
				case ok:
					indent = px
				case t == "hanging":
					hanging = true
				case t != "each-line":
					hidden = true
				}
			}
			lo, hi = math.Min(lo, indent), math.Max(hi, indent)
			if hanging {
				lo, hi = math.Min(lo, -indent), math.Max(hi, -indent)
			}
		}
		st.indentMin, st.indentMax = lo, hi
	}
	leftmost := func(name string) float64 {
		values, open := candidates(p.get(name))
		lo := math.Inf(1)
		if open {
			lo = 0
		}
		for _, v := range values {
			px, ok := at.px(v)
			if !ok { // auto, a keyword; a margin not worked out here displaces the box
				px = 0
			}
			lo = math.Min(lo, px)
		}
		return lo
	}
	st.x = parent.x + leftmost("margin-left") + leftmost("padding-left")

	// Colours.
	st.colourStyle(n, p, parent)
	o := 1.0
	for _, d := range p.get("opacity") {
		a, ok := fraction(d.value)
		if cssWideKeyword(d.value) {
			a, ok = 1, true
		}
		hidden = hidden || !ok
		o = math.Min(o, a)
	}
	for _, d := range p.get("filter") {
		for _, t := range cssTokens(d.value, false) {
			if arg, ok := strings.CutPrefix(t, "opacity("); ok {
				arg = strings.TrimSpace(strings.TrimSuffix(arg, ")"))
				a, ok := fraction(arg)
				if arg == "" {
					a, ok = 1, true
				}
				hidden = hidden || !ok
				o = math.Min(o, a)
			}
		}
	}
	st.opacity = parent.opacity * o

	// A font the message loads.
	if values, open := candidates(p.get("font-family")); len(values) > 0 {
		web := open && parent.webFont
		for _, v := range values {
			web = web || cssWideKeyword(v) && parent.webFont
			for _, f := range fontFamilies(v) {
				web = web || webFonts[f]
			}
		}
		st.webFont = web
	}
	st.invisible = st.unreadable()
	return st, hidden
}

// byName are declarations sorted by their property's name.
type byName []applied

// get are the declarations of a property.
func (p byName) get(name string) []applied {
	i, _ := slices.BinarySearchFunc(p, name, func(d applied, name string) int { return strings.Compare(d.name, name) })
	j := i
	for j < len(p) && p[j].name == name {
		j++
	}
	return p[i:j]
}

// colourStyle works out the colours of an element's text and what is behind it.
func (st *textStyle) colourStyle(n *html.Node, p byName, parent *textStyle) {
	if n.Data == "body" {
		if c, ok := legacyColour(attr(n, "link")); ok {
			st.links = []rgba{c, st.links[1]}
		}
		if c, ok := legacyColour(attr(n, "vlink")); ok {
			st.links = []rgba{st.links[0], c}
		}
	}
	base := parent.colours
	if n.Data == "a" && hasAttr(n, "href") {
		base = parent.links
	}
	st.colours = base
	if values, open := candidates(p.get("color")); len(values) > 0 {
		var cs []rgba
		known := true
		if open {
			cs = append(cs, base...)
		}
		for _, v := range values {
			switch c, kind := cssColour(v); kind {
			case colourValue:
				cs = append(cs, c)
			case colourInherited, colourCurrent:
				cs = append(cs, parent.colours...)
			case colourInitial:
				cs = append(cs, black)
			default:
				known = false
			}
		}
		st.colours = cs
		st.unknownColour = !known || open && parent.unknownColour
	}
	if values, open := candidates(p.get("text-fill-color")); len(values) > 0 {
		var fs []rgba
		if open {
			fs = append(fs, parent.fills...)
		}
		for _, v := range values {
			switch c, kind := cssColour(v); kind {
			case colourValue:
				fs = append(fs, c)
			case colourInherited:
				fs = append(fs, parent.fills...)
			case colourUnknown:
				st.unknownColour = true
			}
		}
		st.fills = fs
	}
	if values, open := candidates(p.get("background-color")); len(values) > 0 {
		var bs []rgba
		opaque := !open
		if open {
			bs = append(bs, parent.backs...)
		}
		over := func(cs ...rgba) {
			for _, c := range cs {
				for _, under := range parent.backs {
					bs = append(bs, blend(c, under, c.a))
				}
				opaque = opaque && c.a == 1
			}
		}
		for _, v := range values {
			switch c, kind := cssColour(v); kind {
			case colourValue:
				over(c)
			case colourCurrent:
				over(st.colours...)
			case colourInherited, colourInitial:
				bs = append(bs, parent.backs...)
				opaque = false
			default:
				st.unknownBack, opaque = true, false
			}
		}
		st.backs = bs
		if opaque { // an image behind the parent's text is hidden behind this background
			st.unknownBack = false
		}
	}
	for _, d := range p.get("background-image") {
		st.unknownBack = st.unknownBack || !isNone(d.value)
	}
	var ok [3]bool
	st.colours, ok[0] = distinct(st.colours)
	st.fills, ok[1] = distinct(st.fills)
	st.backs, ok[2] = distinct(st.backs)
	if !ok[0] || !ok[1] || !ok[2] {
		st.unknownColour = true
	}
}

// distinct removes repeated colours; ok is false when more than maxColourCandidates remain,
// of which the first are kept.
func distinct(cs []rgba) ([]rgba, bool) {
	var out []rgba
	for _, c := range cs {
		if slices.Contains(out, c) {
			continue
		}
		if len(out) == maxColourCandidates {
			return out, false
		}
		out = append(out, c)
	}
	return out, true
}

// unreadable tells text that cannot be read as the style draws it.
func (st *textStyle) unreadable() bool {
	switch {
	case st.unknownColour, st.unknownBack, st.webFont,
		st.font*st.scale < minReadableFontPx,
		st.line.px(st.font) < st.font/2, // lines drawn over each other
		st.letter <= -st.font/4, st.word <= -st.font/4,
		st.x+math.Min(0, st.indentMin) < -maxShiftPx, st.x+math.Max(0, st.indentMax) >= offPagePx:
		return true
	}
	for _, cs := range [][]rgba{st.colours, st.fills} {
		for _, c := range cs {
			for _, b := range st.backs {
				if contrast(blend(c, b, c.a*st.opacity), b) < minContrast {
					return true
				}
			}
		}
	}
	return false
}

// fontSizeKeywords are the sizes of font-size's keywords, px.
var fontSizeKeywords = map[string]float64{"xx-small": 9, "x-small": 10, "small": 13, "medium": 16, "large": 18, "x-large": 24, "xx-large": 32, "xxx-large": 48}

// fontSize reads a font-size value, px; ok is false for one not worked out here (calc()).
func fontSize(v string, parent, root float64) (float64, bool) {
	if px, ok := fontSizeKeywords[v]; ok {
		return px, true
	}
	switch v {
	case "smaller":
		return parent / 1.2, true
	case "larger":
		return parent * 1.2, true
	case "initial":
		return defaultFontPx, true
	case "inherit", "unset", "revert", "revert-layer", "math":
		return parent, true
	}
	px, ok := fontLengths(parent, root).px(v)
	return math.Max(px, 0), ok
}

// zoom reads a zoom value as the factor it draws with.
func zoom(v string) (float64, bool) {
	if v == "normal" || v == "reset" || isNone(v) {
		return 1, true
	}
	n, unit, ok := cssNumber(v)
	switch {
	case !ok || unit != "" && unit != "%" || n < 0:
		return 1, false
	case unit == "%":
		n /= 100
	}
	if n == 0 { // zoom: 0 is taken as 1
		return 1, true
	}
	return n, true
}

// hides tells declarations that hide everything the element holds. Any one of them counts,
// wherever it stands in the cascade.
func hides(ds []applied) bool {
	var overflowHidden, sized, nowrap bool
	for _, d := range ds {
		switch v := d.value; d.name {
		case "display":
			if v == "none" {
				return true
			}
		case "visibility":
			if v == "hidden" || v == "collapse" {
				return true
			}
		case "content-visibility":
			if v == "hidden" {
				return true
			}
		case "mso-hide":
			if v == "all" {
				return true
			}
		case "max-height", "max-width", "max-block-size", "max-inline-size":
			if zeroLength(v) {
				return true
			}
			sized = sized || !isNone(v)
		case "height", "width", "block-size", "inline-size":
			sized = sized || v != "auto" && !isNone(v)
		case "overflow", "overflow-x", "overflow-y", "overflow-block", "overflow-inline":
			for f := range strings.FieldsSeq(v) {
				overflowHidden = overflowHidden || f == "hidden" || f == "clip"
			}
		case "white-space", "text-wrap", "text-wrap-mode":
			nowrap = nowrap || strings.Contains(v, "nowrap") || v == "pre"
		case "line-clamp":
			if !isNone(v) {
				return true
			}
		case "clip":
			if v != "auto" && !isNone(v) {
				return true
			}
		case "clip-path", "mask", "mask-image", "mask-border", "mask-border-source", "mask-box-image":
			if !isNone(v) {
				return true
			}
		case "filter":
			for _, t := range cssTokens(v, false) {
				if !isNone(t) && !strings.HasPrefix(t, "opacity(") {
					return true
				}
			}
		case "content":
			if imageToken(v) { // content: url(x) replaces the element with an image
				return true
			}
		}
	}
	// A box sized, or a line kept from wrapping, that cuts off what overflows it.
	return overflowHidden && (sized || nowrap)
}

// displaced tells declarations that draw a box out of its place, maybe over other text:
// absolute or fixed positions, a relative position or a negative margin that moves it more
// than a line, transforms, animations, grid placement.
func displaced(ds []applied) bool {
	at := offsets(defaultFontPx, defaultFontPx)
	moved := false
	for _, d := range ds {
		switch v := d.value; d.name {
		case "position":
			switch v {
			case "absolute", "fixed":
				return true
			case "relative", "sticky":
				moved = true
			}
		case "margin-top", "margin-right", "margin-bottom", "margin-left":
			if v == "auto" || isNone(v) {
				continue
			}
			if px, ok := at.px(v); !ok || px < -maxShiftPx {
				return true
			}
		case "transform", "translate", "scale", "rotate", "offset", "offset-path", "animation", "animation-name":
			if !isNone(v) {
				return true
			}
		case "grid-area", "grid-row", "grid-column", "grid-row-start", "grid-row-end", "grid-column-start", "grid-column-end":
			if v != "auto" && !isNone(v) {
				return true
			}
		}
	}
	if moved {
		for _, d := range ds {
			switch d.name {
			case "top", "right", "bottom", "left":
				if d.value == "auto" || isNone(d.value) {
					continue
				}
				if px, ok := at.px(d.value); !ok || math.Abs(px) > maxShiftPx {
					return true
				}
			}
		}
	}
	return false
}

// hidingDecls tells declarations that hide the text of an element they apply to, in a page
// with nothing else: it hides, its text is unreadable, or it is displaced.
func hidingDecls(decls []declaration) bool {
	ds := make([]applied, len(decls))
	for i, d := range decls {
		ds[i] = applied{d, fromStyle, true}
	}
	st, hidden := computeStyle(&html.Node{Type: html.ElementNode, Data: "div"}, ds, defaultStyle(), nil)
	return hidden || st.invisible || displaced(ds)
}

// hiddenKind tells the elements whose text is not shown as text: the hidden attribute, a
// closed <dialog>, what a template, a frame, a plugin, media or a form control holds
// (shown only by programs that cannot show the thing itself, or in a box that may scroll),
// and SVG, whose text is drawn with colours and at places not worked out here.
func hiddenKind(n *html.Node) bool {
	switch n.Data {
	case "template", "iframe", "object", "svg", "canvas", "video", "audio", "meter", "progress",
		"datalist", "select", "textarea", "noembed", "noframes", "rp":
		return true
	case "dialog":
		return !hasAttr(n, "open")
	}
	return hasAttr(n, "hidden")
}
