package storetest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
)

// testSearchBesideDeepContext: text search does not parse stored documents, so an inquiry
// whose context nests deeper than SQLite's JSON functions go (1,000) breaks no search, its
// own or the others'. The engine refuses such a context; the store keeps what it is given.
func testSearchBesideDeepContext(t *testing.T, s hitl.Store) {
	const depth = 2000
	deep := insert(t, s, newInquiry(1, func(i *hitl.Inquiry) {
		i.Prompt = "Deep context here"
		i.Context = json.RawMessage(strings.Repeat("[", depth) + strings.Repeat("]", depth))
	}))
	plain := insert(t, s, newInquiry(2, func(i *hitl.Inquiry) { i.Prompt = "Plain question" }))
	all := hitl.Visibility{All: true}
	for _, tc := range []struct {
		text string
		want []int64
	}{
		{"deep", []int64{deep.ID}},
		{"plain", []int64{plain.ID}},
		{"question", []int64{plain.ID}},
		{"e", []int64{plain.ID, deep.ID}},
	} {
		f := hitl.InquiryFilter{Text: tc.text, Visibility: all}
		if got := list(t, s, f); !same(got, tc.want) {
			t.Errorf("text %q: got %v, want %v", tc.text, got, tc.want)
		}
		n, err := s.CountInquiries(context.Background(), f)
		if err != nil || n != len(tc.want) {
			t.Errorf("count of text %q: %d, %v; want %d", tc.text, n, err, len(tc.want))
		}
	}
	got, err := s.Inquiry(context.Background(), deep.ID)
	must(t, err)
	if string(got.Context) != string(deep.Context) {
		t.Errorf("the deep context did not read back as written")
	}
}

// testSearchMeaning: a search finds the inquiries whose prompt holds the text, in any case,
// wherever it stands (in the middle of a word too), whatever characters it holds: the same
// in every store, whether the store reads an index (three characters or more) or scans
// every prompt (fewer).
func testSearchMeaning(t *testing.T, s hitl.Store) {
	prompt := func(p string) func(*hitl.Inquiry) { return func(i *hitl.Inquiry) { i.Prompt = p } }
	billing := insert(t, s, newInquiry(1, prompt("Deploy the BILLING service?")))
	percent := insert(t, s, newInquiry(2, prompt("Raise it by 50% for prod_eu?")))
	prodX := insert(t, s, newInquiry(3, prompt("Raise it by 500 for prodXeu?")))
	path := insert(t, s, newInquiry(4, prompt(`Delete C:\temp\old?`)))
	summer := insert(t, s, newInquiry(5, prompt("Dateigröße im Sommer: été, 東京")))
	quoted := insert(t, s, newInquiry(6, prompt(`Say "yes" or 'no'?`)))
	all := hitl.Visibility{All: true}
	for _, tc := range []struct {
		text string
		want []int64
	}{
		{"illin", []int64{billing.ID}},           // in the middle of a word
		{"billing SERVICE", []int64{billing.ID}}, // any case, across words
		{"50%", []int64{percent.ID}},             // % is itself, not any characters
		{"%", []int64{percent.ID}},
		{"d_eu", []int64{percent.ID}}, // _ is itself, not any one character
		{"_", []int64{percent.ID}},
		{`C:\temp`, []int64{path.ID}}, // \ is itself, not an escape
		{`\`, []int64{path.ID}},
		{`\%`, nil},
		{"größe", []int64{summer.ID}}, // not ASCII
		{"ÉTÉ", []int64{summer.ID}},   // not ASCII, in any case
		{"東京", []int64{summer.ID}},    // two characters, not ASCII
		{"京", []int64{summer.ID}},
		{"ß", []int64{summer.ID}},
		{"Ö", []int64{summer.ID}},     // one character, not ASCII, in any case
		{`"yes"`, []int64{quoted.ID}}, // quotes are themselves
		{`'no'`, []int64{quoted.ID}},
		{`"`, []int64{quoted.ID}},
		{"EU", []int64{prodX.ID, percent.ID}}, // one or two characters, in any case
		{"Z", nil},
		{"billing service!", nil}, // all of the text, not some of its characters
		{"no such text", nil},
	} {
		f := hitl.InquiryFilter{Text: tc.text, Visibility: all}
		if got := list(t, s, f); !same(got, tc.want) {
			t.Errorf("text %q: got %v, want %v", tc.text, got, tc.want)
		}
		if n, err := s.CountInquiries(context.Background(), f); err != nil || n != len(tc.want) {
			t.Errorf("count of text %q: %d, %v; want %d", tc.text, n, err, len(tc.want))
		}
	}
	// A search's pages follow one another, in either order, as a list's do.
	for _, order := range []hitl.InquiryOrder{hitl.OrderNewest, hitl.OrderDeadline} {
		f := hitl.InquiryFilter{Text: "RAISE it", Visibility: all, Order: order}
		want := []int64{prodX.ID, percent.ID}
		if order == hitl.OrderDeadline {
			want = []int64{percent.ID, prodX.ID}
		}
		if got := allPages(t, s, f, 1); !same(got, want) {
			t.Errorf("pages of a search in order %q: %v; want %v", order, got, want)
		}
	}
}
