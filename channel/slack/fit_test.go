package slack

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"

	"github.com/hitl-dev/hitl/internal/slackpeer"
)

// oversize is blocks beyond every limit fitBlocks knows, of every kind hitl builds.
func oversize(n int) []slackapi.Block {
	big := strings.Repeat("&<>🙂", 2000)
	var opts []*slackapi.OptionBlockObject
	for i := range 150 {
		opts = append(opts, slackapi.NewOptionBlockObject(fmt.Sprint(i), plain(big), plain(big)))
	}
	var fields []*slackapi.TextBlockObject
	var context []slackapi.MixedElement
	var buttons []slackapi.BlockElement
	for i := range 30 {
		fields = append(fields, mrkdwn(escape(big)))
		context = append(context, mrkdwn(escape(big)))
		buttons = append(buttons, slackapi.NewButtonBlockElement(fmt.Sprint("b", i), "v", plain(big)))
	}
	input := slackapi.NewPlainTextInputBlockElement(plain(big), "x")
	input.MaxLength = 5000
	blocks := []slackapi.Block{
		slackapi.NewSectionBlock(mrkdwn(escape(big)), fields, nil),
		slackapi.NewSectionBlock(mrkdwn(""), nil, nil),
		slackapi.NewContextBlock("", context...),
		slackapi.NewActionBlock("a", buttons...),
		slackapi.NewInputBlock("i1", plain(big), plain(big), input),
		slackapi.NewInputBlock("i2", plain(big), nil, slackapi.NewOptionsSelectBlockElement(slackapi.OptTypeStatic, plain(big), "x", opts...)),
		slackapi.NewInputBlock("i3", plain(big), plain(big), slackapi.NewOptionsMultiSelectBlockElement(slackapi.MultiOptTypeStatic, plain(big), "x", opts...)),
		slackapi.NewInputBlock("i4", plain(big), nil, slackapi.NewCheckboxGroupsBlockElement("x", opts[:20]...)),
		slackapi.NewInputBlock("i5", plain(big), nil, slackapi.NewRadioButtonsBlockElement("x", opts[:20]...)),
	}
	for len(blocks) < n {
		blocks = append(blocks, slackapi.NewDividerBlock())
	}
	return blocks
}

// fitMessage and fitView bring anything within Slack's limits, as Slack's reference states
// them (the peer's checks, written apart from these constants): the last line of defence
// behind the builders.
func TestFitKeepsAnythingWithinSlack(t *testing.T) {
	text, blocks := fitMessage(strings.Repeat("&<>🙂", 5000), oversize(60))
	for _, p := range slackpeer.MessageProblems(text, blocks) {
		t.Error("message:", p)
	}
	last, _ := blocks[len(blocks)-1].(*slackapi.ContextBlock)
	if len(blocks) != 50 || last == nil || !strings.Contains(last.ContextElements.Elements[0].(*slackapi.TextBlockObject).Text, "11 more parts did not fit") {
		t.Errorf("60 blocks became %d, the last %#v", len(blocks), blocks[len(blocks)-1])
	}
	if hint := blocks[5].(*slackapi.InputBlock).Hint; hint == nil || !strings.Contains(hint.Text, "Only the first 100 choices fit") {
		t.Errorf("a select's cut options are not said: %v", hint)
	}

	view := fitView(slackapi.ModalViewRequest{Type: slackapi.VTModal, Title: plain("Inquiry 1234567890123456789"),
		Submit: plain("Send the answer to the agent"), Close: plain("Cancel"), Blocks: slackapi.Blocks{BlockSet: oversize(120)}})
	for _, p := range slackpeer.ViewProblems(view) {
		t.Error("modal:", p)
	}
	if n := len(view.Blocks.BlockSet); n != 100 {
		t.Errorf("120 blocks of a modal became %d", n)
	}
}

// A cut text ends in an ellipsis, between characters, and never in the middle of an entity
// that escaping mrkdwn made.
func TestCutMrkdwn(t *testing.T) {
	s := escape("a&b<c>🙂d&&e") + "xyz"
	for n := 1; n <= utf8.RuneCountInString(s)+1; n++ {
		got := cutMrkdwn(s, n)
		kept, cutHere := strings.CutSuffix(got, "…")
		switch {
		case utf8.RuneCountInString(got) > n || !utf8.ValidString(got):
			t.Errorf("cutMrkdwn(%q, %d) = %q: too long or not UTF-8", s, n, got)
		case got != s && (!cutHere || !strings.HasPrefix(s, kept)):
			t.Errorf("cutMrkdwn(%q, %d) = %q: not a prefix and an ellipsis", s, n, got)
		case strings.Count(kept, "&") != strings.Count(kept, ";"):
			t.Errorf("cutMrkdwn(%q, %d) = %q: half an entity", s, n, got)
		}
	}
}

func TestListWords(t *testing.T) {
	items := []string{"ada approved", "bob approved", "cy rejected", "di approved"}
	for _, c := range []struct {
		most int
		want string
	}{
		{100, "ada approved, bob approved, cy rejected, di approved"},
		{40, "ada approved, bob approved and 2 more."},
		{10, "ada approved and 3 more."},
	} {
		if got := listWords(items, c.most, "."); got != c.want {
			t.Errorf("listWords(…, %d) = %q, want %q", c.most, got, c.want)
		}
	}
}
