package slack

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/schema"
	slackapi "github.com/slack-go/slack"
)

// The "Answer…" form is a modal built from the same form model as the inbox's
// (schema.FormFor): each field an input block, read back by the model's own Field.Read, so
// the two forms cannot disagree on what an answer is. What a Slack input cannot hold becomes
// text the model parses: a number is typed, a long list of choices is typed, and a schema the
// model cannot split into fields is one JSON input.

// maxModalFields leaves room for the prompt and the comment among the modal's blocks.
const maxModalFields = maxModalBlocks - 2

// Bounds of hitl's own on a field's hint, within Slack's 2,000 characters: the schema's
// description, and the choices of a field typed rather than chosen.
const (
	maxDescription = 500
	maxTypedList   = 1200
)

const (
	modalCallback = "hitl.answer"
	commentBlock  = "comment"
	inputAction   = "value" // the action_id of every input: the block_id tells them apart
)

// modalMetadata is the modal's private_metadata: which inquiry it answers, and the message it
// was opened from, to update once answered.
type modalMetadata struct {
	Inquiry int64  `json:"inquiry"`
	Channel string `json:"channel,omitempty"`
	TS      string `json:"ts,omitempty"`
}

// answerForm is the form of an inquiry's answer, with the leaves that become input blocks.
type answerForm struct {
	root   *schema.Field
	leaves []*schema.Field
	// labels are the options' labels by value, for an inquiry with options.
	labels map[string]string
}

// formOf builds the answer form: options are one choice (several when Multiple), anything
// else the schema's form. A form with more fields than a modal holds is one JSON input.
func formOf(inq *hitl.Inquiry) *answerForm {
	f := &answerForm{}
	if len(inq.Options) > 0 {
		f.labels = map[string]string{}
		root := &schema.Field{Name: schema.RootName, Kind: schema.KindChoice, Required: true, Title: "Your answer"}
		if inq.Multiple {
			root.Kind = schema.KindChoices
		}
		for _, o := range inq.Options {
			root.Choices = append(root.Choices, o.Value)
			f.labels[o.Value] = optionLabel(o)
		}
		f.root = root
	} else {
		f.root = schema.FormFor(inq.ResponseSchema)
	}
	f.leaves = leavesOf(f.root)
	if len(f.leaves) > maxModalFields {
		f.root = &schema.Field{Name: schema.RootName, Kind: schema.KindJSON, Required: true, Example: "{}"}
		f.leaves = []*schema.Field{f.root}
	}
	return f
}

// leavesOf lists the fields that take a value, in the form's order: objects are groups only.
func leavesOf(f *schema.Field) []*schema.Field {
	if f.Kind != schema.KindObject {
		return []*schema.Field{f}
	}
	var out []*schema.Field
	for _, c := range f.Fields {
		out = append(out, leavesOf(c)...)
	}
	return out
}

func leafBlockID(i int) string { return "f" + strconv.Itoa(i) }

// modalFor is the modal that answers the inquiry.
func modalFor(inq *hitl.Inquiry, meta modalMetadata) slackapi.ModalViewRequest {
	f := formOf(inq)
	blocks := []slackapi.Block{
		slackapi.NewSectionBlock(mrkdwn(cutSaying(escape(inq.Prompt), maxSectionText, promptCut)), nil, nil),
	}
	for i, leaf := range f.leaves {
		blocks = append(blocks, f.inputBlock(leafBlockID(i), leaf))
	}
	comment := slackapi.NewPlainTextInputBlockElement(nil, inputAction)
	comment.Multiline, comment.MaxLength = true, maxInputLength
	commentInput := slackapi.NewInputBlock(commentBlock, plain("Comment"), plain("Optional: a note for the agent with your answer."), comment)
	commentInput.Optional = true
	if !inq.IsPlainApproval() { // a plain approval's comment is part of its answer
		blocks = append(blocks, commentInput)
	}
	md, _ := json.Marshal(meta)
	return fitView(slackapi.ModalViewRequest{
		Type:            slackapi.VTModal,
		CallbackID:      modalCallback,
		Title:           plain(fmt.Sprintf("Inquiry %d", inq.ID)),
		Submit:          plain("Send answer"),
		Close:           plain("Cancel"),
		Blocks:          slackapi.Blocks{BlockSet: blocks},
		PrivateMetadata: string(md),
	})
}

// label names a field as the inbox does: its title, else its property name, else "Answer".
func label(leaf *schema.Field) string {
	switch {
	case leaf.Title != "":
		return leaf.Title
	case leaf.Key != "":
		return leaf.Key
	case strings.Contains(leaf.Path, "/"):
		return strings.TrimPrefix(leaf.Path, "/")
	}
	return "Your answer"
}

// hint says what the field takes, in the schema's own words (Field.Expects, as the inbox and
// the CLI say it), with what typing it takes where Slack has no input of the field's kind.
func hint(leaf *schema.Field, typed string) string {
	var parts []string
	add := func(s string) {
		if s = strings.TrimSuffix(strings.TrimSpace(s), "."); s != "" {
			// Each part is a sentence of its own: "A whole number. At most 20."
			r, size := utf8.DecodeRuneInString(s)
			parts = append(parts, string(unicode.ToUpper(r))+s[size:])
		}
	}
	add(cut(leaf.Description, maxDescription))
	add(typed)
	if typed != "" || (leaf.Kind != schema.KindChoice && leaf.Kind != schema.KindChoices) {
		add(leaf.Expects()) // a select says "Choose one" itself
	}
	if leaf.Kind == schema.KindJSON && leaf.Example != "" {
		add("JSON, for example: " + cut(leaf.Example, maxDescription))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ". ") + "."
}

// typedRest ends a list of choices too long for a field's hint.
const typedRest = " (the inbox lists them all)"

// inputBlock is one field's input.
func (f *answerForm) inputBlock(blockID string, leaf *schema.Field) *slackapi.InputBlock {
	var elem slackapi.BlockElement
	typed := ""
	choiceOptions := func() []*slackapi.OptionBlockObject {
		out := make([]*slackapi.OptionBlockObject, len(leaf.Choices))
		for i, c := range leaf.Choices {
			// The value is the index: a choice may be longer than an option's value may be.
			out[i] = slackapi.NewOptionBlockObject(strconv.Itoa(i), plain(f.choiceLabel(c)), nil)
		}
		return out
	}
	switch {
	case leaf.Kind == schema.KindBoolean:
		elem = slackapi.NewRadioButtonsBlockElement(inputAction,
			slackapi.NewOptionBlockObject("true", plain("Yes"), nil),
			slackapi.NewOptionBlockObject("false", plain("No"), nil))
	case leaf.Kind == schema.KindChoice && len(leaf.Choices) <= maxSelectOptions:
		elem = slackapi.NewOptionsSelectBlockElement(slackapi.OptTypeStatic, plain("Choose one"), inputAction, choiceOptions()...)
	case leaf.Kind == schema.KindChoices && len(leaf.Choices) <= maxCheckboxes:
		elem = slackapi.NewCheckboxGroupsBlockElement(inputAction, choiceOptions()...)
	case leaf.Kind == schema.KindChoices && len(leaf.Choices) <= maxSelectOptions:
		elem = slackapi.NewOptionsMultiSelectBlockElement(slackapi.MultiOptTypeStatic, plain("Choose any"), inputAction, choiceOptions()...)
	default:
		in := slackapi.NewPlainTextInputBlockElement(nil, inputAction)
		in.MaxLength = maxInputLength
		switch leaf.Kind {
		case schema.KindTextArea, schema.KindJSON:
			in.Multiline = true
		case schema.KindInteger:
			typed = "A whole number"
		case schema.KindNumber:
			typed = "A number"
		case schema.KindList:
			in.Multiline = true
			typed = "One per line"
		case schema.KindChoices:
			in.Multiline = true
			typed = "One per line, any of: " + listWords(leaf.Choices, maxTypedList, typedRest)
		case schema.KindChoice:
			typed = "Type one of: " + listWords(leaf.Choices, maxTypedList, typedRest)
		}
		if leaf.MaxLength != nil && *leaf.MaxLength > 0 && *leaf.MaxLength < maxInputLength && (leaf.Kind == schema.KindText || leaf.Kind == schema.KindTextArea) {
			in.MaxLength = *leaf.MaxLength
		}
		if leaf.Kind == schema.KindJSON && leaf.Example != "" {
			in.Placeholder = plain(leaf.Example)
		}
		elem = in
	}
	var hintText *slackapi.TextBlockObject
	if h := hint(leaf, typed); h != "" {
		hintText = plain(h)
	}
	block := slackapi.NewInputBlock(blockID, plain(label(leaf)), hintText, elem)
	block.Optional = !leaf.Required
	return block
}

func (f *answerForm) choiceLabel(value string) string {
	if l, ok := f.labels[value]; ok {
		return l
	}
	return value
}

// read turns a submitted modal's state into the answer and comment, or the problems of the
// fields that could not be read.
func (f *answerForm) read(state *slackapi.ViewState) (*hitl.ResponseRequest, []hitl.FieldError) {
	values := map[string][]string{}
	var comment string
	if state != nil {
		for i, leaf := range f.leaves {
			values[leaf.Name] = f.entered(leaf, state.Values[leafBlockID(i)][inputAction])
		}
		comment = strings.TrimSpace(state.Values[commentBlock][inputAction].Value)
	}
	answer, problems := f.root.Read(values)
	return &hitl.ResponseRequest{Response: answer, Comment: comment}, problems
}

// entered is what one input holds, as the form model reads a posted form: the choices by
// their value, a list one row per line.
func (f *answerForm) entered(leaf *schema.Field, in slackapi.BlockAction) []string {
	choice := func(o slackapi.OptionBlockObject) string {
		if leaf.Kind == schema.KindBoolean {
			return o.Value
		}
		i, err := strconv.Atoi(o.Value)
		if err != nil || i < 0 || i >= len(leaf.Choices) {
			return ""
		}
		return leaf.Choices[i]
	}
	switch {
	case in.SelectedOption.Value != "":
		return []string{choice(in.SelectedOption)}
	case len(in.SelectedOptions) > 0:
		out := make([]string, 0, len(in.SelectedOptions))
		for _, o := range in.SelectedOptions {
			out = append(out, choice(o))
		}
		return out
	case leaf.Kind == schema.KindList || leaf.Kind == schema.KindChoices:
		return strings.Split(in.Value, "\n")
	}
	return []string{in.Value}
}

// blockErrors places each problem beside the input of its field, as Slack's
// response_action "errors" shows them: the field at the path or holding it, else the field
// the problem is about (a missing property of an object), else the first input.
func (f *answerForm) blockErrors(problems []hitl.FieldError) map[string]string {
	out := map[string]string{}
	for _, p := range problems {
		block := f.blockFor(p.Path)
		msg := p.Message
		if p.Path == commentPath {
			block = commentBlock
		}
		if out[block] != "" {
			msg = out[block] + "; " + msg
		}
		out[block] = msg
	}
	return out
}

// commentPath is where the engine reports a comment's problems.
const commentPath = "/comment"

func (f *answerForm) blockFor(path string) string {
	best, bestLen := -1, -1
	for i, leaf := range f.leaves {
		if within(path, leaf.Path) && len(leaf.Path) > bestLen {
			best, bestLen = i, len(leaf.Path)
		}
	}
	if best < 0 {
		for i, leaf := range f.leaves {
			if within(leaf.Path, path) {
				best = i
				break
			}
		}
	}
	if best < 0 {
		best = 0
	}
	return leafBlockID(best)
}

// within tells whether the JSON pointer path is outer or inside it.
func within(path, outer string) bool {
	return path == outer || strings.HasPrefix(path, outer+"/")
}
