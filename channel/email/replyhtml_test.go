package email

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestStyleSheets(t *testing.T) {
	var s styleSheets
	if !s.read(`@font-face { font-family: "Cambria Math"; panose-1: 2 4 5 3 5 4 6 3 2 4 } @font-face { font-family: 'Blank'; src: url(x.woff) }
		p.MsoNormal { margin: 0; font-family: Calibri } span.EmailStyle17 { mso-style-type: personal-compose }
		@import url("x.css"); .A, div#b > .c:hover, a[title="x, y"].d, p::before, span:after, [data-x], *, svg|text, .E\41 { display: none }
		@m\65 dia (max-width: 600px) { @supports (display: grid) { .e { opacity: 0 } } }
		.f { color: red; .g { visibility: hidden } }
		a[title="{;}"].t { display: none }
		p::first-line { font-size: 0 }
		.unclosed { display: none`, 0, false) {
		t.Fatal("the sheet was refused")
	}
	var got []string
	for _, r := range s.rules {
		got = append(got, fmt.Sprintf("%s#%s.%s %v", r.tag, r.id, strings.Join(r.classes, "."), r.exact))
	}
	want := []string{"p#.msonormal true", "#.a true", "#.c false", "a#.d false", "#. false", "#. true", "text#. false", "#. false",
		"#.e false", "#.f true", "#.g false", "a#.t false", "p#. false", "#.unclosed true"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the rules are\n%q\nwant\n%q", got, want)
	}
	if !s.unknowable || !reflect.DeepEqual(s.webFonts, map[string]bool{"blank": true}) {
		t.Errorf("unknowable %v, web fonts %v; want true (for the @import) and blank", s.unknowable, s.webFonts)
	}
	for css, want := range map[string]bool{
		`.x::after { content: "approve" }`:          true,
		`.x:before { content: attr(title) }`:        true,
		`.x::after { content: ""; display: table }`: false,
		`.x::marker { color: red }`:                 false,
		`p { content: "x" }`:                        false,
	} {
		var s styleSheets
		if s.read(css, 0, false); s.unknowable != want {
			t.Errorf("%s: unknowable is %v", css, s.unknowable)
		}
	}

	var many, deep, rules, declarations styleSheets
	if many.read(strings.Repeat(".x{display:none}", maxHidingRules+1), 0, false) {
		t.Errorf("%d hiding rules were read", maxHidingRules+1)
	}
	if deep.read(strings.Repeat("@media screen{", maxSheetNesting+2)+".x{display:none}", 0, false) {
		t.Errorf("rules nested %d deep were read", maxSheetNesting+2)
	}
	if rules.read(strings.Repeat(".x{color:red}", maxStyleRules+1), 0, false) {
		t.Errorf("%d rules were read", maxStyleRules+1)
	}
	if declarations.read(".x{"+strings.Repeat("color:red;", maxStyleDeclarations+1)+"}", 0, false) {
		t.Errorf("%d declarations were read", maxStyleDeclarations+1)
	}
}

func TestHidingDeclarations(t *testing.T) {
	for decls, want := range map[string]bool{
		"display:none":                             true,
		"display: block; DISPLAY: None":            true, // the cascade is not followed: hidden once is hidden
		"visibility:hidden":                        true,
		"opacity: 0.0":                             true,
		"opacity: 0%":                              true,
		"font-size: 0em":                           true,
		"font-size: .5pt":                          true,
		"font: italic 0px/0 serif":                 true,
		"max-width: 0":                             true,
		"width: 0; height: 20px; overflow: hidden": true,
		"height: 0; overflow: clip":                true,
		"display: n\\6F ne":                        true,
		"display: no\\\nne":                        true,
		"display:/* a comment */none":              true,
		"content: '/*'; display: none; /* */":      true,
		"display: block":                           false,
		"visibility: visible":                      false,
		"opacity: 0.5":                             false,
		"font-size: 4px":                           false,
		"font-size: 0.8em":                         false,
		"font: bold 12px Arial":                    false,
		"font: 700 1em/1.2 x":                      false,
		"height: 0":                                false, // what overflows a zero box is shown
		"width: 0; overflow: visible":              false,
		"max-height: 10px":                         false,
		"color: red; content: 'display:none'":      false,
		"":                                         false,
		";;:;:":                                    false,
		"display":                                  false,

		// A font nobody reads, or lines and letters drawn over each other.
		"font-size: 0.01em":                true,
		"font-size: 1%":                    true,
		"font-size: 0.001rem":              true,
		"font-size: 1px":                   true,
		"font-size: 3.9px":                 true,
		"font-size: 0.1vw":                 true,
		"font-size: calc(1px + 0em)":       true, // not worked out here
		"font: 2px serif":                  true,
		"zoom: 0.1":                        true,
		"font-size-adjust: 0.05":           true,
		"line-height: 0; overflow: hidden": true,
		"line-height: 0.2":                 true,
		"height: 1px; overflow: hidden":    true,
		"width: 10em; white-space: nowrap; overflow: hidden": true,
		"-webkit-line-clamp: 1":                              true,
		"letter-spacing: -1em":                               true,
		"font-size: 3pt":                                     false,
		"font-size: 0.25em":                                  false,
		"font-size: 25%":                                     false,
		"font-size: x-small":                                 false,
		"font-size: 11.0pt; line-height: 115%":               false,
		"mso-line-height-rule: exactly; line-height: 12.0pt": false,
		"letter-spacing: -.1pt":                              false,
		"overflow: hidden":                                   false,
		"max-width: 600px; margin: 0 auto":                   false,
		// Text the colour of what is behind it.
		"color: transparent":                        true,
		"color: #fff":                               true,
		"color: #FFFFFF":                            true,
		"color: white":                              true,
		"color: rgb(255, 255, 255)":                 true,
		"color: rgb(100% 100% 100%)":                true,
		"color: #eee":                               true,
		"color: rgba(0,0,0,0)":                      true,
		"color: #0000":                              true,
		"color: hsla(0, 0%, 0%, 0)":                 true,
		"color: hsl(0deg 0% 100%)":                  true,
		"color: var(--c)":                           true,
		"color: oklch(0.5 0.1 120)":                 true,
		"-webkit-text-fill-color: transparent":      true,
		"background: #000":                          true,
		"background-color: #123; color: #123":       true,
		"background: #123456; color: rgb(18 52 86)": true,
		"background-color: currentcolor":            true,
		"background: url(x.png) no-repeat":          true, // an image is not worked out here
		"background: linear-gradient(#fff, #fff)":   true,
		"opacity: 0.05":                             true,
		"filter: opacity(0)":                        true,
		"filter: blur(5px)":                         true,
		"color: #1F497D":                            false,
		"color: windowtext":                         false,
		"color: #888":                               false,
		"color: #ccc":                               false,
		"color: inherit; background: yellow":        false,
		"background-color: #000; color: #fff":       false,
		"background: #1f6feb; color: #ffffff":       false,
		"background: rgba(0,0,0,0.05)":              false,
		"filter: none; opacity: 1":                  false,
		// Text moved out of view, clipped, or drawn out of its place.
		"position: absolute":                     true,
		"position: fixed; top: -1000px":          true,
		"position: relative; left: -9999px":      true,
		"position: relative; top: 2em":           true,
		"text-indent: -9999px":                   true,
		"text-indent: -2em":                      true,
		"text-indent: 200%":                      true,
		"margin-left: -100px":                    true,
		"margin: 0 0 0 -9999px":                  true,
		"margin-top: -2em":                       true,
		"clip: rect(0 0 0 0)":                    true,
		"clip: rect(1px, 1px, 1px, 1px)":         true,
		"clip-path: inset(50%)":                  true,
		"clip-path: circle(0)":                   true,
		"mask-image: url(x.svg)":                 true,
		"transform: scale(0)":                    true,
		"-webkit-transform: scaleX(0.01)":        true,
		"transform: translateX(-9999px)":         true,
		"translate: -9999px":                     true,
		"scale: 0":                               true,
		"animation: k 0s forwards":               true,
		"content-visibility: hidden":             true,
		"content: url(x.png)":                    true,
		"grid-area: 1 / 1":                       true,
		"text-indent: -.25in; margin-left: .5in": false, // a list's hanging indent
		"margin-left: -5.4pt":                    false, // Outlook's tables
		"position: relative; top: -1.5pt":        false, // Outlook's raised text
		"clip: auto; transform: none":            false,
	} {
		if got := hidingDecls(cssDeclarations(decls)); got != want {
			t.Errorf("the declarations %q hide: %v; want %v", decls, got, want)
		}
	}
}

func TestLegacyColour(t *testing.T) {
	for in, want := range map[string]string{
		"#ffffff":     "rgb(255 255 255 / 1)",
		"ffffff":      "rgb(255 255 255 / 1)",
		"#fff":        "rgb(255 255 255 / 1)",
		"fff":         "rgb(15 15 15 / 1)",
		"White":       "rgb(255 255 255 / 1)",
		"chucknorris": "rgb(192 0 0 / 1)",
		" #0a0B0c ":   "rgb(10 11 12 / 1)",
	} {
		if c, ok := legacyColour(in); !ok || c.css() != want {
			t.Errorf("legacyColour(%q) = %s, %v; want %s", in, c.css(), ok, want)
		}
	}
	for _, in := range []string{"", "  ", "transparent"} {
		if _, ok := legacyColour(in); ok {
			t.Errorf("legacyColour(%q) is a colour", in)
		}
	}
}

// What mail programs write is read whole: nothing in it counts as hidden.
func TestOrdinaryHTMLHidesNothing(t *testing.T) {
	for name, doc := range map[string]string{
		"gmail":      `<div dir="ltr"><div class="gmail_default" style="font-family:arial,sans-serif;font-size:small;color:#000000">approve</div><div>ok <a href="https://x">link</a></div><br clear="all"><div><div dir="ltr" class="gmail_signature"><font color="#888888">Ada</font></div></div></div>`,
		"gmail font": `<div dir="ltr"><font size="2">approve</font> <font color="#888888" size="1">small print</font> <small>fine</small></div>`,
		"apple":      `<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body style="word-wrap: break-word; -webkit-nbsp-mode: space; line-break: after-white-space;" dir="auto"><div style="caret-color: rgb(0, 0, 0); color: rgb(0, 0, 0);">approve</div><div><br></div><div><span style="caret-color: rgb(0, 0, 0); color: rgba(0, 0, 0, 0.85);">go</span></div></body></html>`,
		"owa":        `<html><head><style type="text/css" style="display:none;"> P {margin-top:0;margin-bottom:0;} </style></head><body dir="ltr"><div class="elementToProof" style="font-family: Aptos, Aptos_EmbeddedFont, Aptos_MSFontService, Calibri, Helvetica, sans-serif; font-size: 12pt; color: rgb(0, 0, 0); background-color: rgb(255, 255, 255);">approve</div><div style="font-family: Aptos; font-size: 12pt; color: rgb(0, 0, 0);"><span style="background-color: rgb(255, 255, 0);">highlighted</span></div></body></html>`,
		"thunderbird": `<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"></head><body><p>approve</p><p><font size="-1">small</font></p><pre class="moz-signature" cols="72">-- 
Ada</pre></body></html>`,
		"outlook mac":        `<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><style><!-- @font-face {font-family:"Cambria Math"; panose-1:2 4 5 3 5 4 6 3 2 4;} @font-face {font-family:Aptos;} p.MsoNormal, li.MsoNormal, div.MsoNormal {margin:0in; font-size:12.0pt; font-family:"Aptos",sans-serif; mso-ligatures:standardcontextual;} span.EmailStyle19 {mso-style-type:personal-reply; font-family:"Aptos",sans-serif; color:windowtext;} .MsoChpDefault {mso-style-type:export-only; font-size:10.0pt; mso-ligatures:none;} @page WordSection1 {size:8.5in 11.0in; margin:1.0in 1.0in 1.0in 1.0in;} div.WordSection1 {page:WordSection1;} --></style></head><body lang="EN-US" link="#467886" vlink="#96607D" style='word-wrap:break-word'><div class="WordSection1"><p class="MsoNormal"><span style='font-size:11.0pt'>approve<o:p></o:p></span></p><p class=MsoNormal><span style='font-size:11.0pt;color:#1F3864;mso-themecolor:accent1;mso-themeshade:128'>ok</span></p><table class=MsoNormalTable border=0 cellspacing=0 cellpadding=0 style='margin-left:-5.4pt;border-collapse:collapse'><tr><td width=200 style='width:150.0pt;padding:0in 5.4pt 0in 5.4pt'><p class=MsoNormal><b><span style='font-size:10.0pt;color:#7F7F7F'>Ada Lovelace</span></b></p></td></tr></table></div></body></html>`,
		"outlook spacer":     `<p class=MsoNormal style='mso-line-height-rule:exactly;line-height:12.0pt'><span style='font-size:11.0pt'>approve</span></p><p class=MsoNormal><span style='font-size:11.0pt;font-family:"Calibri",sans-serif;color:#1F497D'><o:p>&nbsp;</o:p></span></p>`,
		"dark body":          `<body bgcolor="#000000" text="#ffffff"><p>approve</p><a href="x" style="color:#8ab4f8">link</a></body>`,
		"marketing clearfix": `<style>.clearfix:after{content:"";display:table;clear:both} a[x-apple-data-detectors]{color:inherit !important;text-decoration:none !important} #MessageViewBody a{color:inherit} u + #body a{color:inherit} @media only screen and (max-width:600px){.mobile{width:100% !important}}</style><div class="clearfix">approve</div>`,
	} {
		h, err := readHTML(doc)
		if err != nil || h.hidden {
			t.Errorf("%s: %v hidden=%v shown=%q all=%q", name, err, h.hidden, h.shown, h.all)
		}
	}
}

// What hides text, and what undoes it, in a document.
func TestReadHTMLHidesText(t *testing.T) {
	for doc, want := range map[string]string{
		`<div style="font-size:0">reject <span style="font-size:16px">approve</span></div>`:                                                     "approve",
		`<style>p::first-line { font-size: 0 }</style><p>reject<br>approve</p>`:                                                                 "",
		`<style>.x { height: 1.2em; overflow: hidden }</style><div class="x"><br>reject</div>approve`:                                           "approve",
		`<style>.h\69 de { display: none }</style><div class="hide">reject</div>approve`:                                                        "",
		`<font color="fff">approve</font>`:                                                                                                      "approve", // HTML reads "fff" as #0f0f0f
		`<font color="white">reject</font>approve`:                                                                                              "approve",
		`<div style="color:#fff;background:#000">approve</div>`:                                                                                 "approve",
		`<table bgcolor="black"><tr><td style="background:white">approve</td></tr></table>`:                                                     "approve",
		`<body background="x.png"><div style="background:#fff">approve</div>reject</body>`:                                                      "approve",
		`<!--[if !mso]><!-->reject<!--<![endif]-->approve`:                                                                                      "approve",
		`<p style="margin-left:.5in;text-indent:-.25in">approve</p>`:                                                                            "approve",
		`<a href="x" style="background:#00e">reject</a>approve`:                                                                                 "approve",
		`<body link="#ffffff"><a href="x">reject</a>approve</body>`:                                                                             "approve",
		`<div style="margin-left:-9999px"><p style="margin-left:9999px">approve</p></div>`:                                                      "",
		`<small><small><small><small><small><small><small><small>reject</small></small></small></small></small></small></small></small>approve`: "approve",
		`<p style="word-spacing:-1em">reject it</p>approve`:                                                                                     "approve",
		`<input type="hidden" value="reject">approve`:                                                                                           "approve",
	} {
		if got := strings.TrimSpace(shownHTML(t, doc)); got != want {
			t.Errorf("readHTML(%s) shows %q; want %q", doc, got, want)
		}
	}
}

// A reply built to cost time is refused or read quickly, never a stall or a crash.
func TestReadHTMLBoundsItsWork(t *testing.T) {
	const size = 250 << 10 // within MaxReplyBytes
	for name, doc := range map[string]string{
		"nested 600 deep":             strings.Repeat("<div>", 600) + "approve",
		"nested 600 deep for Outlook": "<p>reject</p><!--[if mso]>" + strings.Repeat("<div>", 600) + "approve<![endif]-->",
		"too many hiding rules":       "<style>" + strings.Repeat(".x{display:none}", 201) + "</style><p>approve</p>",
		"rules that match every element, against many": "<style>" + strings.Repeat("[x]{color:#111;font-size:12px;margin:0}", maxStyleDeclarations/6) + "</style>" +
			strings.Repeat(`<i x>y</i>`, (size-15000)/10),
		"style sheets nested": "<style>" + strings.Repeat("@media screen {", size/15) + "</style>",
		"more rule tries than the bound": "<style>" + strings.Repeat(".a.z{color:red}", maxStyleRules) + "</style>" +
			strings.Repeat(`<br class=a>`, maxRuleTries/maxStyleRules+1),
	} {
		if _, err := readHTML(doc); !errors.Is(err, errTooComplexHTML) {
			t.Errorf("%s: %v; want it refused as too complex", name, err)
		}
	}
	for name, doc := range map[string]string{
		"siblings":                        strings.Repeat("<br>", size/4) + "approve",
		"formatting elements reopened":    strings.Repeat("<p><b>", size/6),
		"200 rules against many elements": "<style>" + strings.Repeat(".a.b.c{display:none}", 200) + "</style>" + strings.Repeat(`<i class="a b">x</i>`, (size-5000)/20),
		"many classes against many rules": "<style>" + strings.Repeat(".a.b.c.d.e.f.g.h.i.z{color:red}", maxStyleRules) + "</style>" +
			strings.Repeat(`<i class="a b c d e f g h i j k">y</i>`, (size-16000)/38),
		"a thousand classes":      "<style>.a{color:red}</style>" + strings.Repeat(`<i class="`+strings.Repeat("a ", 1000)+`b">y</i>`, size/2020),
		"unterminated everything": `<div style="display:none><style>/* .x{` + strings.Repeat(`<!--"'[(`, size/8),
		"conditional comments":    strings.Repeat("<!--[if mso]><b>x</b><![endif]-->", size/33),
		"not HTML at all":         strings.Repeat("\x00\xff<>&;", size/8),
	} {
		start := time.Now()
		if _, err := readHTML(doc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("%s took %s to read", name, took)
		}
	}
}

func FuzzReadHTML(f *testing.F) {
	for _, seed := range []string{
		`<div style="display:none">approve</div><p>reject</p>`,
		`<style>.h{font:0/0 a}</style><p class=h>x</p><blockquote>y</blockquote><div id=appendonsend></div>z`,
		`<details open><summary>a</summary>b</details><table><tr><td>c<td>d</table>`,
		`<style>@{}</style><p>approve</p>`, // an at-rule of no name once made the reader panic
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		h, err := readHTML(doc)
		// A hidden element of spaces alone hides nothing, but may leave a space in all.
		if words := func(s string) string { return strings.Join(strings.Fields(s), "") }; err == nil && !h.hidden && words(h.shown) != words(h.all) {
			t.Errorf("nothing is hidden, yet the readings differ: %q and %q", h.shown, h.all)
		}
	})
}
