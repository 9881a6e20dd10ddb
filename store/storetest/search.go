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
