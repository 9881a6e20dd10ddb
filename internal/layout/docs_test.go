package layout

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The README is a short guide; the reference lives in docs/. These tests keep it that way:
// the README stays short, every link between the pages (and to a heading in them) leads
// somewhere, every page can be reached from the README, and no page speaks in the project's
// internal labels, which mean nothing to a reader.

const readmeMaxLines = 400

func TestTheReadmeIsAShortGuide(t *testing.T) {
	text := readDoc(t, "README.md")
	if n := strings.Count(text, "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines; keep it a guide of at most %d and move the reference to a page in docs/", n, readmeMaxLines)
	}
	linked := map[string]bool{}
	for _, l := range docLinks(text) {
		file, _, _ := strings.Cut(l.target, "#")
		linked[filepath.Clean(file)] = true
	}
	for _, page := range docPages(t) {
		if page == "README.md" || page == "ARCHITECTURE.md" {
			continue
		}
		if !linked[page] {
			t.Errorf("README.md does not link to %s: add it to the map of the documentation", page)
		}
	}
}

func TestDocLinksLeadSomewhere(t *testing.T) {
	headings := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if h, ok := headings[page]; ok {
			return h
		}
		h := headingAnchors(readDoc(t, page))
		headings[page] = h
		return h
	}
	checked := 0
	for _, page := range docPages(t) {
		for _, l := range docLinks(readDoc(t, page)) {
			file, anchor, _ := strings.Cut(l.target, "#")
			target := page
			if file != "" {
				target = filepath.Join(filepath.Dir(page), file)
				if _, err := os.Stat("../../" + target); err != nil {
					t.Errorf("%s:%d links to %s, which does not exist", page, l.line, l.target)
					continue
				}
			}
			checked++
			if anchor == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			if !anchorsOf(target)[anchor] {
				t.Errorf("%s:%d links to %s, but %s has no heading #%s", page, l.line, l.target, target, anchor)
			}
		}
	}
	if checked < 30 {
		t.Fatalf("checked only %d links; does docLinks still find them?", checked)
	}
}

// internalLabel matches the names the project uses for its own work ("seed 002", "issue 18"),
// which a reader of the documentation cannot decode.
var internalLabel = regexp.MustCompile(`(?i)\b(seed\s+0\d\d|issues?\s+\d+)`)

func TestDocsSpeakWithoutInternalLabels(t *testing.T) {
	for _, page := range docPages(t) {
		for i, line := range strings.Split(readDoc(t, page), "\n") {
			if m := internalLabel.FindString(line); m != "" {
				t.Errorf("%s:%d says %q: name the system or the feature instead", page, i+1, m)
			}
		}
	}
}

// docPages are the README, ARCHITECTURE.md and every page under docs/, relative to the
// repository's root.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "ARCHITECTURE.md"}
	more, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		pages = append(pages, strings.TrimPrefix(m, "../../"))
	}
	if len(pages) < 10 {
		t.Fatalf("found only %d pages: %v", len(pages), pages)
	}
	return pages
}

func readDoc(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile("../../" + page)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type docLink struct {
	target string
	line   int
}

var (
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan     = regexp.MustCompile("`[^`]*`")
)

// docLinks are the page's links to other pages, files and headings of this repository:
// outside code blocks and code spans, and not to other sites.
func docLinks(text string) []docLink {
	var out []docLink
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range markdownLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			out = append(out, docLink{target: target, line: i + 1})
		}
	}
	return out
}

// headingAnchors are the anchors GitHub gives a page's headings: lower case, punctuation
// dropped, spaces as hyphens, and -1, -2 … after a repeated one.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var slug strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				slug.WriteRune(r)
			case r == ' ':
				slug.WriteByte('-')
			}
		}
		a := slug.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		anchors[a] = true
	}
	return anchors
}
