package email

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestHidingRules(t *testing.T) {
	var r hidingRules
	if !r.read(`@import url("x.css"); @font-face { font-family: x; src: url(x) } p.MsoNormal { margin: 0 }
		.a, div#b > .c:hover, a[title="x, y"].d, p::before, span:after { display: none }
		@media (max-width: 600px) { @supports (display: grid) { .e { opacity: 0 } } }
		.f { color: red; .g { visibility: hidden } }
		.unclosed { display: none`, 0) {
		t.Fatal("the sheet was refused")
	}
	want := hidingRules{{classes: []string{"a"}}, {classes: []string{"c"}}, {tag: "a", classes: []string{"d"}},
		{classes: []string{"e"}}, {classes: []string{"g"}}, {classes: []string{"unclosed"}}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("the hiding rules are %+v; want %+v", r, want)
	}

	var many, deep hidingRules
	if many.read(strings.Repeat(".x{display:none}", maxHidingRules+1), 0) {
		t.Errorf("%d hiding rules were read", maxHidingRules+1)
	}
	if deep.read(strings.Repeat("@media screen{", maxSheetNesting+2)+".x{display:none}", 0) {
		t.Errorf("rules nested %d deep were read", maxSheetNesting+2)
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
		"display: block":                           false,
		"visibility: visible":                      false,
		"opacity: 0.5":                             false,
		"font-size: 1px":                           false,
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
	} {
		if got := hidingDeclarations(decls); got != want {
			t.Errorf("hidingDeclarations(%q) = %v; want %v", decls, got, want)
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
		"style sheets nested":         "<style>" + strings.Repeat("@media screen {", size/15) + "</style>",
	} {
		if _, err := readHTML(doc); !errors.Is(err, errTooComplexHTML) {
			t.Errorf("%s: %v; want it refused as too complex", name, err)
		}
	}
	for name, doc := range map[string]string{
		"siblings":                        strings.Repeat("<br>", size/4) + "approve",
		"formatting elements reopened":    strings.Repeat("<p><b>", size/6),
		"200 rules against many elements": "<style>" + strings.Repeat(".a.b.c{display:none}", 200) + "</style>" + strings.Repeat(`<i class="a b">x</i>`, (size-5000)/20),
		"unterminated everything":         `<div style="display:none><style>/* .x{` + strings.Repeat(`<!--"'[(`, size/8),
		"conditional comments":            strings.Repeat("<!--[if mso]><b>x</b><![endif]-->", size/33),
		"not HTML at all":                 strings.Repeat("\x00\xff<>&;", size/8),
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
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		h, err := readHTML(doc)
		if err == nil && !h.hidden && h.shown != h.all {
			t.Errorf("nothing is hidden, yet the readings differ: %q and %q", h.shown, h.all)
		}
	})
}
