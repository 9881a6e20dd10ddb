package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/schema"
)

// How an inquiry is answered on a page: an approval with Approve / Reject, options as radio
// buttons (checkboxes when several may be chosen), or a form built from the schema.
const (
	formApproval = "approval"
	formOptions  = "options"
	formSchema   = "schema"
)

// commentPath is where an answer's comment is reported: the engine checks it as /comment.
const commentPath = "/comment"

// answerForm is the answer form of one inquiry, with what the person entered and what was
// wrong with it when the page comes back.
type answerForm struct {
	formTarget
	Kind     string
	Inquiry  *hitl.Inquiry
	Root     *fieldView // formSchema; formDecision: the arguments to edit
	Decision *decisionForm
	Selected []string
	Comment  string
	Allow    *allowChoice // nil: the form does not offer to approve the same again
	// Errors by the path of their field; Other are those with no field to stand beside.
	Errors map[string]string
	Other  []string
}

// formTarget is where an answer form posts and what it carries to prove it came from there.
type formTarget struct {
	Action string
	CSRF   string
	// Confirm: an answer-link page, where options are ticked, then confirmed with one button.
	Confirm bool
}

// fieldView is one input of a schema form, ready to render.
type fieldView struct {
	*schema.Field
	ID       string
	Value    string   // what was entered
	Values   []string // choices ticked, or the rows of a list
	Error    string
	Children []*fieldView
}

func formKind(inq *hitl.Inquiry) string {
	switch {
	case inq.HasDecisions():
		return formDecision
	case len(inq.Options) > 0:
		return formOptions
	case inq.IsPlainApproval():
		return formApproval
	}
	return formSchema
}

// newAnswerForm builds the form with what was entered (nil: nothing yet) and the errors to show.
func newAnswerForm(inq *hitl.Inquiry, to formTarget, entered url.Values, errs []hitl.FieldError) *answerForm {
	f := &answerForm{formTarget: to, Kind: formKind(inq), Inquiry: inq, Errors: map[string]string{}}
	known := map[string]bool{"": true, commentPath: true}
	if f.Kind == formApproval {
		known["/approved"] = true
	}
	if entered != nil {
		f.Comment = entered.Get("comment")
		f.Selected = entered[schema.RootName]
		if f.Kind == formApproval {
			f.Selected = entered["approved"]
		}
	}
	n := 0
	switch f.Kind {
	case formSchema:
		f.Root = newFieldView(schema.FormFor(inq.ResponseSchema), entered, &n, known)
	case formDecision:
		newDecisionForm(f, inq, entered, &n, known)
	}
	f.Allow = newAllowChoice(inq, to, entered, known)
	for _, e := range errs {
		path := e.Path
		if path == "/response" {
			path = "" // the whole answer is missing
		}
		if f.Kind == formApproval && path == "/approved" {
			path = ""
		}
		switch {
		case !known[path]:
			f.Other = append(f.Other, strings.TrimSpace(e.Path+" "+e.Message))
		case f.Errors[path] == "":
			f.Errors[path] = e.Message
		default:
			f.Errors[path] += "; " + e.Message
		}
	}
	if f.Kind == formDecision && f.Root != nil {
		f.Root.attachErrors(argumentErrors(f.Errors))
	} else if f.Root != nil {
		f.Root.attachErrors(f.Errors)
	}
	return f
}

func newFieldView(fd *schema.Field, entered url.Values, n *int, known map[string]bool) *fieldView {
	*n++
	v := &fieldView{Field: fd, ID: fmt.Sprintf("field-%d", *n)}
	known[fd.Path] = true
	if entered != nil {
		v.Value = entered.Get(fd.Name)
		v.Values = entered[fd.Name]
	}
	if fd.Kind == schema.KindList {
		// The rows entered, and always one empty row to add another without the script.
		var rows []string
		for _, r := range v.Values {
			if strings.TrimSpace(r) != "" {
				rows = append(rows, r)
			}
		}
		v.Values = append(rows, "")
		for i := range v.Values {
			known[fmt.Sprintf("%s/%d", fd.Path, i)] = true
		}
	}
	for _, c := range fd.Fields {
		v.Children = append(v.Children, newFieldView(c, entered, n, known))
	}
	return v
}

// attachErrors puts each error beside its field; a list's row errors go to the list.
func (v *fieldView) attachErrors(errs map[string]string) {
	v.Error = errs[v.Path]
	if v.Kind == schema.KindList {
		for i := range v.Values {
			if e := errs[fmt.Sprintf("%s/%d", v.Path, i)]; e != "" {
				v.Error = strings.TrimPrefix(v.Error+fmt.Sprintf("; row %d: %s", i+1, e), "; ")
			}
		}
	}
	for _, c := range v.Children {
		c.attachErrors(errs)
	}
}

// readAnswer builds the response from a posted answer form, or says what to fix. With what to
// fix in a schema form comes the answer made of the fields that could be read, if any, for
// the schema to judge the rest at the same time (withSchemaProblems).
func readAnswer(inq *hitl.Inquiry, form url.Values) (*hitl.ResponseRequest, []hitl.FieldError) {
	comment := strings.TrimSpace(form.Get("comment"))
	switch formKind(inq) {
	case formDecision:
		return readDecision(inq, form)
	case formApproval:
		var approved bool
		switch form.Get("approved") {
		case "true":
			approved = true
		case "false":
		default:
			return nil, []hitl.FieldError{{Path: "", Message: "choose Approve or Reject"}}
		}
		return hitl.ApprovalResponse(approved, comment), nil
	case formOptions:
		picked := form[schema.RootName]
		var answer any
		switch {
		case inq.Multiple && len(picked) == 0:
			return nil, []hitl.FieldError{{Path: "", Message: "choose at least one option"}}
		case inq.Multiple:
			answer = picked
		case len(picked) != 1 || picked[0] == "":
			return nil, []hitl.FieldError{{Path: "", Message: "choose one option"}}
		default:
			answer = picked[0]
		}
		b, _ := json.Marshal(answer)
		return &hitl.ResponseRequest{Response: b, Comment: comment}, nil
	}
	answer, errs := schema.FormFor(inq.ResponseSchema).Read(form)
	return &hitl.ResponseRequest{Response: answer, Comment: comment}, errs
}

// withSchemaProblems adds to the problems of the fields a form could not read those the
// schema finds in the rest, so that one submit shows them all. What the schema says about a
// field that could not be read, or about what holds one (the object it is in, its list), is
// left out: it judged a value with a part missing.
func withSchemaProblems(unread, checked []hitl.FieldError) []hitl.FieldError {
	out := unread
	for _, c := range checked {
		related := false
		for _, u := range unread {
			related = related || within(c.Path, u.Path) || within(u.Path, c.Path)
		}
		if !related {
			out = append(out, c)
		}
	}
	return out
}

// within tells whether the JSON pointer path is outer or inside it.
func within(path, outer string) bool {
	return path == outer || strings.HasPrefix(path, outer+"/")
}

// fieldErrors are the problems of an invalid answer, for showing beside the fields.
func fieldErrors(err error) ([]hitl.FieldError, bool) {
	var he *hitl.Error
	if !errors.As(err, &he) || (he.Code != hitl.EInvalid && he.Code != hitl.EInvalidResponse) {
		return nil, false
	}
	if len(he.Fields) == 0 {
		return []hitl.FieldError{{Path: "", Message: he.Message}}, true
	}
	return he.Fields, true
}
