package email

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Colours, as CSS and HTML's attributes write them, and whether text can be seen on what is
// behind it.

// rgba is a colour: red, green and blue from 0 to 255, alpha from 0 (transparent) to 1.
type rgba struct{ r, g, b, a float64 }

var (
	black = rgba{0, 0, 0, 1}
	white = rgba{255, 255, 255, 1}
)

// minContrast is the contrast (as WCAG measures it) below which text is taken as unreadable:
// #ddd on white is below it, #ccc above.
const minContrast = 1.5

// colourKind tells what a colour value stands for.
type colourKind int

const (
	colourUnknown   colourKind = iota // a value not worked out here: var(), lab(), color-mix()…
	colourValue                       // a colour
	colourInherited                   // inherit, unset: the parent's
	colourCurrent                     // currentcolor: the text's
	colourInitial                     // initial: black text, or no background
)

// cssColour reads a CSS colour value.
func cssColour(v string) (rgba, colourKind) {
	switch v = strings.TrimSpace(v); v {
	case "inherit", "unset", "revert", "revert-layer":
		return rgba{}, colourInherited
	case "currentcolor":
		return rgba{}, colourCurrent
	case "initial":
		return rgba{}, colourInitial
	case "transparent":
		return rgba{}, colourValue
	}
	if c, ok := namedColours[v]; ok {
		return c, colourValue
	}
	if c, ok := systemColours[v]; ok {
		return c, colourValue
	}
	if hex, ok := strings.CutPrefix(v, "#"); ok {
		if c, ok := hexColour(hex); ok {
			return c, colourValue
		}
		return rgba{}, colourUnknown
	}
	fn, args, ok := strings.Cut(v, "(")
	args, closed := strings.CutSuffix(args, ")")
	if !ok || !closed || strings.ContainsAny(args, "()") {
		return rgba{}, colourUnknown
	}
	parts := strings.Fields(strings.NewReplacer(",", " ", "/", " ").Replace(args))
	if len(parts) != 3 && len(parts) != 4 {
		return rgba{}, colourUnknown
	}
	c := rgba{a: 1}
	if len(parts) == 4 {
		if c.a, ok = fraction(parts[3]); !ok {
			return rgba{}, colourUnknown
		}
	}
	switch fn {
	case "rgb", "rgba":
		var ch [3]float64
		for i, p := range parts[:3] {
			n, unit, ok := cssNumber(p)
			switch {
			case p == "none":
				n = 0
			case !ok || unit != "" && unit != "%":
				return rgba{}, colourUnknown
			case unit == "%":
				n *= 2.55
			}
			ch[i] = math.Max(0, math.Min(255, n))
		}
		c.r, c.g, c.b = ch[0], ch[1], ch[2]
		return c, colourValue
	case "hsl", "hsla":
		h, unit, ok := cssNumber(parts[0])
		if !ok {
			return rgba{}, colourUnknown
		}
		switch unit {
		case "", "deg":
		case "rad":
			h *= 180 / math.Pi
		case "grad":
			h *= 0.9
		case "turn":
			h *= 360
		default:
			return rgba{}, colourUnknown
		}
		var sl [2]float64
		for i, p := range parts[1:3] {
			n, unit, ok := cssNumber(p)
			if !ok || unit != "" && unit != "%" {
				return rgba{}, colourUnknown
			}
			sl[i] = math.Max(0, math.Min(100, n)) / 100
		}
		c.r, c.g, c.b = hsl(h, sl[0], sl[1])
		return c, colourValue
	}
	return rgba{}, colourUnknown
}

// fraction reads an alpha or an opacity: 0.5 or 50%, clamped to 0…1.
func fraction(v string) (float64, bool) {
	n, unit, ok := cssNumber(v)
	switch {
	case v == "none":
		return 0, true
	case !ok || unit != "" && unit != "%":
		return 0, false
	case unit == "%":
		n /= 100
	}
	return math.Max(0, math.Min(1, n)), true
}

func hexColour(hex string) (rgba, bool) {
	digit := func(i, n int) (float64, bool) {
		v, err := strconv.ParseUint(hex[i:i+n], 16, 8)
		if n == 1 {
			v *= 17
		}
		return float64(v), err == nil
	}
	var ch [4]float64
	ch[3] = 255
	n := 0
	switch len(hex) {
	case 3, 4:
		n = 1
	case 6, 8:
		n = 2
	default:
		return rgba{}, false
	}
	for i := 0; i*n < len(hex); i++ {
		v, ok := digit(i*n, n)
		if !ok {
			return rgba{}, false
		}
		ch[i] = v
	}
	return rgba{ch[0], ch[1], ch[2], ch[3] / 255}, true
}

func hsl(h, s, l float64) (r, g, b float64) {
	h = math.Mod(h, 360)
	if h < 0 {
		h += 360
	}
	f := func(n float64) float64 {
		k := math.Mod(n+h/30, 12)
		a := s * math.Min(l, 1-l)
		return 255 * (l - a*math.Max(-1, math.Min(math.Min(k-3, 9-k), 1)))
	}
	return f(0), f(8), f(4)
}

// css writes a colour as CSS reads it.
func (c rgba) css() string {
	return fmt.Sprintf("rgb(%g %g %g / %g)", c.r, c.g, c.b, c.a)
}

// legacyColour reads a colour attribute (<font color>, bgcolor) as HTML does, which takes
// "ffffff" without its # and makes a colour of any word ("the rules for parsing a legacy
// colour value"); ok is false for an empty value and transparent, which set nothing.
func legacyColour(v string) (rgba, bool) {
	v = strings.Trim(v, " \t\n\f\r")
	if v == "" || strings.EqualFold(v, "transparent") {
		return rgba{}, false
	}
	if c, ok := namedColours[strings.ToLower(v)]; ok {
		return c, true
	}
	if len(v) == 4 && v[0] == '#' {
		if c, ok := hexColour(v[1:]); ok {
			return c, true
		}
	}
	var b []byte
	for _, r := range v {
		switch {
		case r > 0xFFFF:
			b = append(b, '0', '0')
		case r < 0x80 && strings.ContainsRune("0123456789abcdefABCDEF", r):
			b = append(b, byte(r))
		default:
			b = append(b, '0')
		}
	}
	if len(b) > 128 {
		b = b[:128]
	}
	if v[0] == '#' {
		b = b[1:]
	}
	for len(b) == 0 || len(b)%3 != 0 {
		b = append(b, '0')
	}
	n := len(b) / 3
	parts := [3][]byte{b[:n], b[n : 2*n], b[2*n:]}
	if n > 8 {
		for i := range parts {
			parts[i] = parts[i][n-8:]
		}
		n = 8
	}
	for n > 2 && parts[0][0] == '0' && parts[1][0] == '0' && parts[2][0] == '0' {
		for i := range parts {
			parts[i] = parts[i][1:]
		}
		n--
	}
	var ch [3]float64
	for i := range parts {
		p := parts[i][:min(n, 2)]
		x, _ := strconv.ParseUint(string(p), 16, 8)
		ch[i] = float64(x)
	}
	return rgba{ch[0], ch[1], ch[2], 1}, true
}

// blend is a colour drawn with an alpha over another, opaque one.
func blend(c, under rgba, alpha float64) rgba {
	mix := func(x, y float64) float64 { return x*alpha + y*(1-alpha) }
	return rgba{mix(c.r, under.r), mix(c.g, under.g), mix(c.b, under.b), 1}
}

// contrast is the ratio of the lighter colour's luminance to the darker's (WCAG 2), from 1
// (the same) to 21 (black and white).
func contrast(x, y rgba) float64 {
	lx, ly := luminance(x), luminance(y)
	return (math.Max(lx, ly) + 0.05) / (math.Min(lx, ly) + 0.05)
}

func luminance(c rgba) float64 {
	linear := func(v float64) float64 {
		if v /= 255; v <= 0.04045 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*linear(c.r) + 0.7152*linear(c.g) + 0.0722*linear(c.b)
}

// systemColours are the colours CSS names after the system's, as browsers show them by
// default; Outlook writes windowtext.
var systemColours = map[string]rgba{
	"windowtext": black, "canvastext": black, "buttontext": black, "fieldtext": black, "captiontext": black,
	"infotext": black, "menutext": black, "marktext": black, "selecteditemtext": black, "highlighttext": black,
	"window": white, "canvas": white, "field": white, "menu": white, "infobackground": white,
	"buttonface": {240, 240, 240, 1}, "graytext": {109, 109, 109, 1}, "linktext": {0, 0, 238, 1},
	"visitedtext": {85, 26, 139, 1}, "activetext": {255, 0, 0, 1}, "mark": {255, 255, 0, 1},
}

// namedColours are CSS's named colours.
var namedColours = map[string]rgba{}

func init() {
	f := strings.Fields(`aliceblue f0f8ff antiquewhite faebd7 aqua 00ffff aquamarine 7fffd4 azure f0ffff beige f5f5dc
	bisque ffe4c4 black 000000 blanchedalmond ffebcd blue 0000ff blueviolet 8a2be2 brown a52a2a
	burlywood deb887 cadetblue 5f9ea0 chartreuse 7fff00 chocolate d2691e coral ff7f50
	cornflowerblue 6495ed cornsilk fff8dc crimson dc143c cyan 00ffff darkblue 00008b darkcyan
	008b8b darkgoldenrod b8860b darkgray a9a9a9 darkgreen 006400 darkgrey a9a9a9 darkkhaki
	bdb76b darkmagenta 8b008b darkolivegreen 556b2f darkorange ff8c00 darkorchid 9932cc darkred
	8b0000 darksalmon e9967a darkseagreen 8fbc8f darkslateblue 483d8b darkslategray 2f4f4f
	darkslategrey 2f4f4f darkturquoise 00ced1 darkviolet 9400d3 deeppink ff1493 deepskyblue
	00bfff dimgray 696969 dimgrey 696969 dodgerblue 1e90ff firebrick b22222 floralwhite fffaf0
	forestgreen 228b22 fuchsia ff00ff gainsboro dcdcdc ghostwhite f8f8ff gold ffd700 goldenrod
	daa520 gray 808080 green 008000 greenyellow adff2f grey 808080 honeydew f0fff0 hotpink
	ff69b4 indianred cd5c5c indigo 4b0082 ivory fffff0 khaki f0e68c lavender e6e6fa
	lavenderblush fff0f5 lawngreen 7cfc00 lemonchiffon fffacd lightblue add8e6 lightcoral f08080
	lightcyan e0ffff lightgoldenrodyellow fafad2 lightgray d3d3d3 lightgreen 90ee90 lightgrey
	d3d3d3 lightpink ffb6c1 lightsalmon ffa07a lightseagreen 20b2aa lightskyblue 87cefa
	lightslategray 778899 lightslategrey 778899 lightsteelblue b0c4de lightyellow ffffe0 lime
	00ff00 limegreen 32cd32 linen faf0e6 magenta ff00ff maroon 800000 mediumaquamarine 66cdaa
	mediumblue 0000cd mediumorchid ba55d3 mediumpurple 9370db mediumseagreen 3cb371
	mediumslateblue 7b68ee mediumspringgreen 00fa9a mediumturquoise 48d1cc mediumvioletred
	c71585 midnightblue 191970 mintcream f5fffa mistyrose ffe4e1 moccasin ffe4b5 navajowhite
	ffdead navy 000080 oldlace fdf5e6 olive 808000 olivedrab 6b8e23 orange ffa500 orangered
	ff4500 orchid da70d6 palegoldenrod eee8aa palegreen 98fb98 paleturquoise afeeee
	palevioletred db7093 papayawhip ffefd5 peachpuff ffdab9 peru cd853f pink ffc0cb plum dda0dd
	powderblue b0e0e6 purple 800080 rebeccapurple 663399 red ff0000 rosybrown bc8f8f royalblue
	4169e1 saddlebrown 8b4513 salmon fa8072 sandybrown f4a460 seagreen 2e8b57 seashell fff5ee
	sienna a0522d silver c0c0c0 skyblue 87ceeb slateblue 6a5acd slategray 708090 slategrey
	708090 snow fffafa springgreen 00ff7f steelblue 4682b4 tan d2b48c teal 008080 thistle d8bfd8
	tomato ff6347 turquoise 40e0d0 violet ee82ee wheat f5deb3 white ffffff whitesmoke f5f5f5
	yellow ffff00 yellowgreen 9acd32`)
	for i := 0; i+1 < len(f); i += 2 {
		c, _ := hexColour(f[i+1])
		namedColours[f[i]] = c
	}
}

// colourToken tells a token of the background shorthand that is its colour.
func colourToken(t string) bool {
	if fn, _, ok := strings.Cut(t, "("); ok {
		switch fn {
		case "rgb", "rgba", "hsl", "hsla", "hwb", "lab", "lch", "oklab", "oklch", "color", "color-mix", "light-dark", "device-cmyk":
			return true
		}
		return false
	}
	_, named := namedColours[t]
	_, system := systemColours[t]
	return named || system || strings.HasPrefix(t, "#") || t == "transparent" || t == "currentcolor"
}
