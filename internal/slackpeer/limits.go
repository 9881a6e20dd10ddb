package slackpeer

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Slack's Block Kit limits, as its reference states them. Slack refuses a whole message
// (invalid_blocks) or form (invalid_arguments) that breaks any one of them, so the peer does
// too, and every test that posts a message or opens a form checks them on the way. They are
// written here from the reference, not taken from channel/slack: a limit mistyped there is
// caught here. Characters are counted as Unicode code points.
//
//   - blocks per message 50, per modal 100: https://docs.slack.dev/reference/block-kit/blocks
//   - block_id 255: every block's reference page
//   - section text 3000, fields 10 of 2000: https://docs.slack.dev/reference/block-kit/blocks/section-block
//   - context elements 10: https://docs.slack.dev/reference/block-kit/blocks/context-block
//   - actions elements 25: https://docs.slack.dev/reference/block-kit/blocks/actions-block
//   - header text 150: https://docs.slack.dev/reference/block-kit/blocks/header-block
//   - input label 2000, hint 2000: https://docs.slack.dev/reference/block-kit/blocks/input-block
//   - a text object's text 1 to 3000: https://docs.slack.dev/reference/block-kit/composition-objects/text-object
//   - button text 75, action_id 255, url 3000, value 2000: https://docs.slack.dev/reference/block-kit/block-elements/button-element
//   - static and multi-static select: options 100, placeholder 150:
//     https://docs.slack.dev/reference/block-kit/block-elements/select-menu-element and …/multi-select-menu-element
//   - checkboxes and radio buttons: options 10:
//     https://docs.slack.dev/reference/block-kit/block-elements/checkboxes-element and …/radio-button-group-element
//   - option text 75, value 150, description 75: https://docs.slack.dev/reference/block-kit/composition-objects/option-object
//   - plain_text_input placeholder 150, min_length 0 to 3000, max_length 1 to 3000:
//     https://docs.slack.dev/reference/block-kit/block-elements/plain-text-input-element
//   - modal title, submit and close 24, private_metadata 3000, callback_id 255:
//     https://docs.slack.dev/reference/views/modal-views
//   - a message's text: Slack truncates it beyond 40,000 characters and may split it beyond
//     4,000 (https://api.slack.com/changelog/2018-04-truncating-really-long-messages); the
//     peer holds hitl to the 4,000, where a message still arrives whole.
const (
	maxMessageBlocks = 50
	maxModalBlocks   = 100
	maxMessageText   = 4000
)

// MessageProblems lists how a message breaks Slack's limits: its text, and its blocks as JSON
// ([]any, []map[string]any, or anything that encodes to a JSON array). Empty when it fits.
func MessageProblems(text string, blocks any) []string {
	c := &checker{}
	if n := utf8.RuneCountInString(text); n > maxMessageText {
		c.bad("/text", "has %d characters; at most %d arrive in one piece", n, maxMessageText)
	}
	if b := normalize(blocks); b != nil { // a message of text alone has no blocks
		c.blocks("/blocks", b, maxMessageBlocks)
	}
	return c.problems
}

// ViewProblems lists how a modal view (as JSON) breaks Slack's limits. Empty when it fits.
func ViewProblems(view any) []string {
	c := &checker{}
	v, _ := normalize(view).(map[string]any)
	if v == nil {
		return []string{"/view: not an object"}
	}
	if v["type"] != "modal" {
		c.bad("/view/type", "is %v, not modal", v["type"])
	}
	c.text("/view/title", v["title"], 24, true)
	c.text("/view/close", v["close"], 24, false)
	c.text("/view/submit", v["submit"], 24, false)
	c.str("/view/private_metadata", v["private_metadata"], 3000)
	c.str("/view/callback_id", v["callback_id"], 255)
	c.blocks("/view/blocks", v["blocks"], maxModalBlocks)
	if blocks, _ := v["blocks"].([]any); v["submit"] == nil {
		for _, b := range blocks {
			if m, _ := b.(map[string]any); m["type"] == "input" {
				c.bad("/view/submit", "is missing, and a modal with inputs needs one")
				break
			}
		}
	}
	return c.problems
}

// normalize turns any JSON-shaped value into what encoding/json decodes into any.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

type checker struct{ problems []string }

func (c *checker) bad(path, format string, args ...any) {
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

// count checks that a list has from least to most items.
func (c *checker) count(path string, v any, least, most int) []any {
	list, ok := v.([]any)
	if !ok && v != nil {
		c.bad(path, "is not a list")
	}
	if len(list) < least || len(list) > most {
		c.bad(path, "has %d items; Slack takes %d to %d", len(list), least, most)
	}
	return list
}

// str checks an optional string's length.
func (c *checker) str(path string, v any, most int) {
	if v == nil {
		return
	}
	s, ok := v.(string)
	if !ok {
		c.bad(path, "is not a string")
		return
	}
	if n := utf8.RuneCountInString(s); n > most {
		c.bad(path, "has %d characters; Slack takes %d", n, most)
	}
}

// text checks a text object: plain_text or mrkdwn, with 1 to most characters.
func (c *checker) text(path string, v any, most int, required bool) {
	if v == nil {
		if required {
			c.bad(path, "is missing")
		}
		return
	}
	t, ok := v.(map[string]any)
	if !ok {
		c.bad(path, "is not a text object")
		return
	}
	if t["type"] != "plain_text" && t["type"] != "mrkdwn" {
		c.bad(path+"/type", "is %v, not plain_text or mrkdwn", t["type"])
	}
	s, _ := t["text"].(string)
	if n := utf8.RuneCountInString(s); n < 1 || n > most {
		c.bad(path+"/text", "has %d characters; Slack takes 1 to %d", n, most)
	}
}

func (c *checker) blocks(path string, v any, most int) {
	for i, b := range c.count(path, v, 1, most) {
		p := fmt.Sprintf("%s/%d", path, i)
		block, ok := b.(map[string]any)
		if !ok {
			c.bad(p, "is not an object")
			continue
		}
		c.str(p+"/block_id", block["block_id"], 255)
		c.block(p, block)
	}
}

func (c *checker) block(p string, b map[string]any) {
	switch b["type"] {
	case "section":
		if b["text"] == nil && b["fields"] == nil {
			c.bad(p, "has neither text nor fields")
		}
		c.text(p+"/text", b["text"], 3000, false)
		if b["fields"] != nil {
			for i, f := range c.count(p+"/fields", b["fields"], 1, 10) {
				c.text(fmt.Sprintf("%s/fields/%d", p, i), f, 2000, true)
			}
		}
		if a, ok := b["accessory"].(map[string]any); ok {
			c.element(p+"/accessory", a)
		}
	case "context":
		for i, e := range c.count(p+"/elements", b["elements"], 1, 10) {
			if m, _ := e.(map[string]any); m["type"] != "image" {
				c.text(fmt.Sprintf("%s/elements/%d", p, i), e, 3000, true)
			}
		}
	case "actions":
		for i, e := range c.count(p+"/elements", b["elements"], 1, 25) {
			m, _ := e.(map[string]any)
			c.element(fmt.Sprintf("%s/elements/%d", p, i), m)
		}
	case "header":
		c.text(p+"/text", b["text"], 150, true)
	case "input":
		c.text(p+"/label", b["label"], 2000, true)
		c.text(p+"/hint", b["hint"], 2000, false)
		e, _ := b["element"].(map[string]any)
		c.element(p+"/element", e)
	case "divider":
	default:
		c.bad(p+"/type", "is %v, a block whose limits the peer does not know: add them here", b["type"])
	}
}

func (c *checker) element(p string, e map[string]any) {
	if e == nil {
		c.bad(p, "is missing")
		return
	}
	c.str(p+"/action_id", e["action_id"], 255)
	switch e["type"] {
	case "button":
		c.text(p+"/text", e["text"], 75, true)
		c.str(p+"/value", e["value"], 2000)
		c.str(p+"/url", e["url"], 3000)
	case "static_select", "multi_static_select":
		c.text(p+"/placeholder", e["placeholder"], 150, false)
		c.options(p+"/options", e["options"], 100)
	case "checkboxes", "radio_buttons":
		c.options(p+"/options", e["options"], 10)
	case "plain_text_input":
		c.text(p+"/placeholder", e["placeholder"], 150, false)
		c.between(p+"/min_length", e["min_length"], 0, 3000)
		c.between(p+"/max_length", e["max_length"], 1, 3000)
	default:
		c.bad(p+"/type", "is %v, an element whose limits the peer does not know: add them here", e["type"])
	}
}

func (c *checker) options(p string, v any, most int) {
	for i, o := range c.count(p, v, 1, most) {
		op := fmt.Sprintf("%s/%d", p, i)
		m, _ := o.(map[string]any)
		c.text(op+"/text", m["text"], 75, true)
		c.text(op+"/description", m["description"], 75, false)
		if s, _ := m["value"].(string); s == "" {
			c.bad(op+"/value", "is missing")
		}
		c.str(op+"/value", m["value"], 150)
	}
}

// between checks an optional number's range.
func (c *checker) between(p string, v any, least, most float64) {
	if v == nil {
		return
	}
	if n, ok := v.(float64); !ok || n < least || n > most {
		c.bad(p, "is %v; Slack takes %v to %v", v, least, most)
	}
}
