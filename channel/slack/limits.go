package slack

import (
	"fmt"
	"strings"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"
)

// Slack's Block Kit limits. Beyond any one of them Slack refuses the whole message
// (invalid_blocks) or form (invalid_arguments), and the person gets nothing at all. So every
// message and form passes through fitMessage or fitView on its way out, which cuts each text
// to what its place takes; the builders keep within the counts by design, and say in words
// what does not fit ("and 7 more: open the inbox").
const (
	// https://docs.slack.dev/reference/block-kit/blocks: "up to 50 blocks in each message,
	// and 100 blocks in modals".
	maxMessageBlocks = 50
	maxModalBlocks   = 100

	// https://docs.slack.dev/reference/block-kit/blocks/section-block
	maxSectionText = 3000
	maxFields      = 10
	maxFieldText   = 2000

	// https://docs.slack.dev/reference/block-kit/blocks/context-block: 10 elements, each a
	// text object (https://docs.slack.dev/reference/block-kit/composition-objects/text-object:
	// 1 to 3000 characters).
	maxContextElements = 10
	maxText            = 3000

	// https://docs.slack.dev/reference/block-kit/blocks/actions-block
	maxActionElements = 25

	// https://docs.slack.dev/reference/block-kit/block-elements/button-element
	maxButtonText = 75
	maxURL        = 3000

	// https://docs.slack.dev/reference/block-kit/blocks/input-block
	maxLabel = 2000
	maxHint  = 2000

	// https://docs.slack.dev/reference/block-kit/block-elements/plain-text-input-element
	// (max_length 1 to 3000), and the placeholder of select menus too.
	maxInputLength = 3000
	maxPlaceholder = 150

	// https://docs.slack.dev/reference/block-kit/block-elements/select-menu-element and
	// multi-select-menu-element: 100 options; checkboxes-element and
	// radio-button-group-element: 10.
	maxSelectOptions = 100
	maxCheckboxes    = 10

	// https://docs.slack.dev/reference/block-kit/composition-objects/option-object: text and
	// description 75 characters (option values are indexes here, far below their 150).
	maxOptionText = 75

	// https://docs.slack.dev/reference/views/modal-views: title, submit and close 24.
	maxModalTitle = 24

	// A message's own text: Slack truncates it beyond 40,000 characters and may split it into
	// several messages beyond 4,000
	// (https://api.slack.com/changelog/2018-04-truncating-really-long-messages).
	maxMessageText = 4000
)

// fitMessage is a message's text and blocks within Slack's limits.
func fitMessage(text string, blocks []slackapi.Block) (string, []slackapi.Block) {
	return cutMrkdwn(text, maxMessageText), fitBlocks(blocks, maxMessageBlocks)
}

// fitView is a modal within Slack's limits. Its private_metadata and callback_id are hitl's
// own short identifiers, far below their 3,000 and 255 characters.
func fitView(v slackapi.ModalViewRequest) slackapi.ModalViewRequest {
	for _, t := range []*slackapi.TextBlockObject{v.Title, v.Submit, v.Close} {
		fitText(t, maxModalTitle)
	}
	v.Blocks.BlockSet = fitBlocks(v.Blocks.BlockSet, maxModalBlocks)
	return v
}

// fitBlocks cuts every text of the blocks to its place's limit, and what is over a count to
// the count. The builders stay within the counts themselves and say what they leave out; the
// counts here are the last line of defence, so that a mistake costs a part of the message,
// not all of it.
func fitBlocks(blocks []slackapi.Block, most int) []slackapi.Block {
	if len(blocks) > most {
		left := len(blocks) - most + 1
		blocks = append(blocks[:most-1:most-1], slackapi.NewContextBlock("", mrkdwn(fmt.Sprintf(
			"%d more %s did not fit in Slack; the inbox shows everything.", left, plural(left, "part", "parts")))))
	}
	for _, b := range blocks {
		switch b := b.(type) {
		case *slackapi.SectionBlock:
			b.Fields = firstOf(b.Fields, maxFields)
		case *slackapi.ContextBlock:
			b.ContextElements.Elements = firstOf(b.ContextElements.Elements, maxContextElements)
		case *slackapi.ActionBlock:
			if b.Elements != nil {
				b.Elements.ElementSet = firstOf(b.Elements.ElementSet, maxActionElements)
			}
		case *slackapi.InputBlock:
			if in, ok := b.Element.(*slackapi.PlainTextInputBlockElement); ok {
				in.MaxLength = min(in.MaxLength, maxInputLength)
			}
			if n := fitOptions(b.Element); n > 0 {
				note := fmt.Sprintf("Only the first %d choices fit in Slack; the inbox has them all.", n)
				if b.Hint == nil {
					b.Hint = plain(note)
				} else {
					b.Hint.Text = cut(b.Hint.Text, maxHint-len(note)-1) + " " + note
				}
			}
		}
	}
	eachText(blocks, fitText)
	return blocks
}

func firstOf[T any](list []T, n int) []T {
	if len(list) > n {
		return list[:n]
	}
	return list
}

// fitOptions cuts the options of a choice to what the element takes; it returns how many
// are left when it cut, else 0. The form types a long list of choices instead.
func fitOptions(e slackapi.BlockElement) int {
	opts, most := optionsOf(e)
	if opts == nil || len(*opts) <= most {
		return 0
	}
	*opts = (*opts)[:most]
	return most
}

// optionsOf is where an element keeps its options, and how many Slack takes there; nil for
// an element without options.
func optionsOf(e slackapi.BlockElement) (*[]*slackapi.OptionBlockObject, int) {
	switch e := e.(type) {
	case *slackapi.SelectBlockElement:
		return &e.Options, maxSelectOptions
	case *slackapi.MultiSelectBlockElement:
		return &e.Options, maxSelectOptions
	case *slackapi.CheckboxGroupsBlockElement:
		return &e.Options, maxCheckboxes
	case *slackapi.RadioButtonsBlockElement:
		return &e.Options, maxCheckboxes
	}
	return nil, 0
}

// eachText calls f with every text object of the blocks and the most characters Slack takes
// in its place.
func eachText(blocks []slackapi.Block, f func(t *slackapi.TextBlockObject, most int)) {
	for _, b := range blocks {
		switch b := b.(type) {
		case *slackapi.SectionBlock:
			f(b.Text, maxSectionText)
			for _, t := range b.Fields {
				f(t, maxFieldText)
			}
			if b.Accessory != nil {
				elementTexts(b.Accessory.ButtonElement, f)
			}
		case *slackapi.ContextBlock:
			for _, e := range b.ContextElements.Elements {
				if t, ok := e.(*slackapi.TextBlockObject); ok {
					f(t, maxText)
				}
			}
		case *slackapi.ActionBlock:
			if b.Elements != nil {
				for _, e := range b.Elements.ElementSet {
					elementTexts(e, f)
				}
			}
		case *slackapi.InputBlock:
			f(b.Label, maxLabel)
			f(b.Hint, maxHint)
			elementTexts(b.Element, f)
		}
	}
}

func elementTexts(e slackapi.BlockElement, f func(t *slackapi.TextBlockObject, most int)) {
	switch e := e.(type) {
	case *slackapi.ButtonBlockElement:
		if e != nil { // a section's accessory that is no button
			f(e.Text, maxButtonText)
		}
	case *slackapi.PlainTextInputBlockElement:
		f(e.Placeholder, maxPlaceholder)
	case *slackapi.SelectBlockElement:
		f(e.Placeholder, maxPlaceholder)
	case *slackapi.MultiSelectBlockElement:
		f(e.Placeholder, maxPlaceholder)
	}
	if opts, _ := optionsOf(e); opts != nil {
		for _, o := range *opts {
			f(o.Text, maxOptionText)
			f(o.Description, maxOptionText)
		}
	}
}

// fitText cuts a text to most characters; an empty one, which Slack refuses, says so.
func fitText(t *slackapi.TextBlockObject, most int) {
	switch {
	case t == nil:
	case t.Text == "":
		t.Text = "(empty)"
	case t.Type == slackapi.MarkdownType:
		t.Text = cutMrkdwn(t.Text, most)
	default:
		t.Text = cut(t.Text, most)
	}
}

// textLength is how many characters of text the blocks hold.
func textLength(blocks []slackapi.Block) int {
	n := 0
	eachText(blocks, func(t *slackapi.TextBlockObject, _ int) {
		if t != nil {
			n += utf8.RuneCountInString(t.Text)
		}
	})
	return n
}

// cut shortens s to at most n characters, marking the cut with an ellipsis; it cuts between
// characters, never inside one.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// cutMrkdwn is cut for escaped mrkdwn: it never leaves half an entity ("&am…"), which Slack
// would show as it is.
func cutMrkdwn(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	end := n - 1
	for i := end - 1; i >= 0 && i >= end-len("&amp;"); i-- {
		if r[i] == ';' {
			break
		}
		if r[i] == '&' {
			end = i
			break
		}
	}
	return string(r[:end]) + "…"
}

// cutSaying is cutMrkdwn that says, after the ellipsis, where the rest is.
func cutSaying(s string, n int, rest string) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return cutMrkdwn(s, n-utf8.RuneCountInString(rest)) + rest
}

// listWords joins items with commas within about most characters, and says how many more
// there are, then rest: "ada approved, bob rejected and 12 more".
func listWords(items []string, most int, rest string) string {
	var b strings.Builder
	for i, it := range items {
		sep := ""
		if i > 0 {
			sep = ", "
		}
		more := fmt.Sprintf(" and %d more%s", len(items)-i, rest)
		if i > 0 && b.Len()+len(sep)+len(it)+len(more) > most {
			b.WriteString(more)
			break
		}
		b.WriteString(sep + it)
	}
	return b.String()
}
