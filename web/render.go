package web

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/wording"
	"github.com/hitl-dev/hitl/schema"
)

var pageNames = []string{"login", "error", "inbox", "inquiry", "session", "link", "bulk", "stats", "signin-failed", "moving", "away", "rules"}

// parsePages parses each page with the frame and the shared parts, and the functions of funcs
// and more (those that need the handler's engine); a broken template stops the server at
// start, in tests, not at a person's first visit.
func parsePages(more template.FuncMap) map[string]*template.Template {
	pages := make(map[string]*template.Template, len(pageNames))
	for _, name := range pageNames {
		pages[name] = template.Must(template.New("layout.html").Funcs(funcs).Funcs(more).ParseFS(templateFiles,
			"templates/layout.html", "templates/parts*.html", "templates/"+name+".html"))
	}
	return pages
}

// render writes a whole page, or nothing but an error page when the template fails: the
// page is built in memory first.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, l *layout, data any) {
	var buf bytes.Buffer
	page := h.pages[name]
	if l != nil && l.Viewer != nil && l.Viewer.TimeZone != "" {
		var err error
		if page, err = h.inZone(name, l.Viewer.TimeZone); err != nil {
			h.log.Error("page failed to render", "page", name, "err", err)
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
	}
	if err := page.Execute(&buf, map[string]any{"Layout": l, "Data": data}); err != nil {
		h.log.Error("page failed to render", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// inZone is the page that shows its moments in a viewer's zone rather than UTC, made once
// per page and zone. It is cloned from the page's master, which is never executed: a template
// cannot be cloned once it has run (the UTC page in h.pages has).
func (h *Handler) inZone(name, zone string) (*template.Template, error) {
	key := [2]string{name, zone}
	if page, ok := h.zoned.Load(key); ok {
		return page.(*template.Template), nil
	}
	c, err := h.masters[name].Clone()
	if err != nil {
		return nil, err
	}
	loc := hitl.Location(zone)
	page, _ := h.zoned.LoadOrStore(key, c.Funcs(template.FuncMap{"clock": clockIn(loc), "hour": hourIn(loc)}))
	return page.(*template.Template), nil
}

// masterCopies are unexecuted copies of the pages, for inZone to clone.
func masterCopies(pages map[string]*template.Template) map[string]*template.Template {
	out := make(map[string]*template.Template, len(pages))
	for name, page := range pages {
		out[name] = template.Must(page.Clone())
	}
	return out
}

func clockIn(zone *time.Location) func(time.Time) string {
	return func(t time.Time) string { return t.In(zone).Format("2006-01-02 15:04:05 MST") }
}

func hourIn(zone *time.Location) func(time.Time) string {
	return func(t time.Time) string { return t.In(zone).Format("15:04:05 MST") }
}

var funcs = template.FuncMap{
	"iso":           func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"clock":         clockIn(time.UTC),
	"hour":          hourIn(time.UTC),
	"instant":       instant,
	"ago":           ago,
	"left":          left,
	"soon":          func(t time.Time) bool { return time.Until(t) < 5*time.Minute },
	"short":         short,
	"join":          strings.Join,
	"tree":          tree,
	"pretty":        pretty,
	"answer":        answerText,
	"comment":       separateComment,
	"summary":       answerSummary,
	"fields":        answerFields,
	"kind":          kindText,
	"delivery":      deliveryText,
	"optLabel":      optionLabel,
	"status":        statusText,
	"contains":      slices.Contains[[]string],
	"num":           func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) },
	"inputType":     inputType,
	"inc":           func(i int) int { return i + 1 },
	"count":         count,
	"nudge":         wording.Nudge,
	"resumed":       resumedInWords,
	"assignees":     wording.Assignees,
	"progress":      wording.Progress,
	"answeredBy":    wording.AnsweredBy,
	"fallback":      wording.Fallback,
	"sessionStatus": wording.SessionStatus,
	"edits":         editedArguments,
	"took":          took,
	"rowName":       rowName,
	"mayStats":      mayStats,
	"canAnswer":     func(v *viewer) bool { return v != nil && engine.CanAnswer(v.Principal) },
	"map":           pairs,
	"allowPeriods":  func() any { return allowPeriods },
}

// instant reads a date-time a form's answer holds, nil when it is not one.
func instant(s string) *time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil
	}
	return &t
}

// pairs makes a map of name, value pairs, for a template that takes several values.
func pairs(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, fmt.Errorf("map takes name, value pairs; got %d values", len(kv))
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		name, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("map: name %v is not a string", kv[i])
		}
		m[name] = kv[i+1]
	}
	return m, nil
}

// resumedInWords says when the agent resumed: "40 ms after the answer to".
func resumedInWords(inq *hitl.Inquiry) string {
	after, ok := engine.ResumedAfter(inq)
	if !ok {
		return "after"
	}
	what := "the answer to"
	switch {
	case inq.Status == hitl.StatusTimeout:
		what = "the deadline of"
	case inq.Status == hitl.StatusCancelled:
		what = "the cancellation of"
	}
	var d string
	switch {
	case after < time.Second:
		d = strconv.FormatInt(max(after.Milliseconds(), 0), 10) + " ms"
	case after < time.Minute:
		d = strconv.FormatFloat(after.Seconds(), 'f', 1, 64) + " s"
	default:
		d = after.Round(time.Second).String()
	}
	return d + " after " + what
}

// count says how many of a noun, in the singular for one: "1 field", "3 fields".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// inputType is the input that fits a string format: the browser's own pickers and checks.
func inputType(format string) string {
	switch format {
	case "email":
		return "email"
	case "uri":
		return "url"
	case "date":
		return "date"
	case "date-time":
		return "datetime-local"
	case "password":
		return "password"
	}
	return "text"
}

// ago says how long ago t was, in the largest unit that fits.
func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

// left says how long until t; the script keeps it counting down.
func left(t time.Time) string {
	d := time.Until(t)
	if d <= 0 {
		return "due now"
	}
	s := int(math.Ceil(d.Seconds()))
	switch {
	case s < 60:
		return fmt.Sprintf("%ds left", s)
	case s < 3600:
		return fmt.Sprintf("%dm %02ds left", s/60, s%60)
	case s < 48*3600:
		return fmt.Sprintf("%dh %02dm left", s/3600, s/60%60)
	}
	return fmt.Sprintf("%d days left", s/86400)
}

// short cuts text to n characters, on a character boundary.
func short(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n])) + "…"
}

func statusText(s hitl.Status) string {
	switch s {
	case hitl.StatusPending:
		return "Waiting for an answer"
	case hitl.StatusResponded:
		return "Answered"
	case hitl.StatusTimeout:
		return "Timed out"
	case hitl.StatusCancelled:
		return "Cancelled"
	}
	return string(s)
}

// pretty indents JSON for reading; what is not JSON is shown as it is.
func pretty(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return string(raw)
	}
	return buf.String()
}

// node is one value of a JSON document as the context viewer shows it: objects and arrays
// fold open and shut, strings wrap.
type node struct {
	Key      string
	Kind     string // object, array, string, number, bool, null
	Text     string
	Lines    bool // a string of several lines, shown as a block that keeps its indentation
	Children []node
}

const maxTreeDepth = 12

// tree reads a JSON document into nodes, keeping the order of object members.
func tree(raw json.RawMessage) *node {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := readNode(dec, 0)
	if err != nil {
		return &node{Kind: "string", Text: string(raw)}
	}
	return &n
}

func readNode(dec *json.Decoder, depth int) (node, error) {
	t, err := dec.Token()
	if err != nil {
		return node{}, err
	}
	switch v := t.(type) {
	case json.Delim:
		n := node{Kind: "object"}
		if v == '[' {
			n.Kind = "array"
		}
		for i := 0; dec.More(); i++ {
			key := fmt.Sprint(i)
			if n.Kind == "object" {
				kt, err := dec.Token()
				if err != nil {
					return node{}, err
				}
				key = kt.(string)
			}
			var child node
			if depth >= maxTreeDepth {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return node{}, err
				}
				child = node{Kind: "string", Text: string(raw)}
			} else if child, err = readNode(dec, depth+1); err != nil {
				return node{}, err
			}
			child.Key = key
			n.Children = append(n.Children, child)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return node{}, err
		}
		return n, nil
	case string:
		return node{Kind: "string", Text: v, Lines: strings.Contains(v, "\n")}, nil
	case json.Number:
		return node{Kind: "number", Text: v.String()}, nil
	case bool:
		return node{Kind: "bool", Text: fmt.Sprint(v)}, nil
	}
	return node{Kind: "null", Text: "null"}, nil
}

// optionLabel is how an option is shown: its label, else its value.
func optionLabel(o hitl.Option) string {
	if o.Label != "" {
		return o.Label
	}
	return o.Value
}

// answerText shows an answer in words where the inquiry tells how: option labels, approved or
// rejected, a plain string; anything else as indented JSON.
func answerText(inq *hitl.Inquiry, raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	labels := map[string]string{}
	for _, o := range inq.Options {
		labels[o.Value] = optionLabel(o)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if l, ok := labels[s]; ok {
			return l
		}
		return s
	}
	var list []string
	if len(labels) > 0 && json.Unmarshal(raw, &list) == nil {
		for i, v := range list {
			if l, ok := labels[v]; ok {
				list[i] = l
			}
		}
		return strings.Join(list, ", ")
	}
	if text, ok := decisionText(inq, raw); ok {
		return text
	}
	if a, ok := readApproval(inq, raw); ok {
		out := "Rejected"
		if *a.Approved {
			out = "Approved"
		}
		if a.Comment != "" {
			out += " — " + a.Comment
		}
		return out
	}
	return pretty(raw)
}

// approvalAnswer is the answer to an approval.
type approvalAnswer struct {
	Approved *bool  `json:"approved"`
	Comment  string `json:"comment"`
}

// readApproval reads raw as the answer to an approval, when inq is one and raw is such an answer.
func readApproval(inq *hitl.Inquiry, raw json.RawMessage) (approvalAnswer, bool) {
	var a approvalAnswer
	if !inq.IsPlainApproval() || json.Unmarshal(raw, &a) != nil || a.Approved == nil {
		return approvalAnswer{}, false
	}
	return a, true
}

// separateComment is the answer's comment to show beside it: none when the answer already
// says it, as an approval answered with the same comment in both places does
// ("Approved — ship it").
func separateComment(inq *hitl.Inquiry) string {
	if inq.Comment == nil {
		return ""
	}
	if a, ok := readApproval(inq, inq.Response); ok && strings.TrimSpace(a.Comment) == strings.TrimSpace(*inq.Comment) {
		return ""
	}
	return *inq.Comment
}

// answerField is one field of a form's answer as the page shows it: the field's title and
// what was entered, in words, or the fields of a group.
type answerField struct {
	Label string
	// Values: one value; the rows of a list or the choices ticked, each on its own.
	Values []string
	// Time: a date-time value, which the page shows in the viewer's time zone.
	Time   bool
	Fields []answerField
}

// answerFields is a form's answer as its fields show it, with their titles, in the form's
// order, rather than JSON with its keys sorted: nil when the answer is not a form's (an
// object answering an object schema). Fields left empty are left out; members the schema
// does not name come last, under their own names.
func answerFields(inq *hitl.Inquiry, raw json.RawMessage) []answerField {
	if len(inq.Options) > 0 || inq.HasDecisions() || inq.IsPlainApproval() || len(raw) == 0 {
		return nil
	}
	form := schema.FormFor(inq.ResponseSchema)
	var obj map[string]json.RawMessage
	if form.Kind != schema.KindObject || json.Unmarshal(raw, &obj) != nil || obj == nil {
		return nil
	}
	return objectFields(form, obj)
}

func objectFields(form *schema.Field, obj map[string]json.RawMessage) []answerField {
	var out []answerField
	named := map[string]bool{}
	for _, f := range form.Fields {
		named[f.Key] = true
		v, ok := obj[f.Key]
		if !ok || string(v) == "null" {
			continue
		}
		af := answerField{Label: cmp.Or(f.Title, f.Key)}
		var inner map[string]json.RawMessage
		switch {
		case f.Kind == schema.KindObject && json.Unmarshal(v, &inner) == nil:
			af.Fields = objectFields(f, inner)
		case f.Kind == schema.KindBoolean && string(v) == "true":
			af.Values = []string{"Yes"}
		case f.Kind == schema.KindBoolean && string(v) == "false":
			af.Values = []string{"No"}
		default:
			af.Values = f.Values(v)[f.Name]
			af.Time = f.Format == "date-time" && len(af.Values) == 1
			if f.Kind == schema.KindList && f.Item.Format == "date-time" {
				af.Time = true
			}
		}
		if len(af.Values) == 0 && len(af.Fields) == 0 {
			continue // an empty list, a group of nothing
		}
		out = append(out, af)
	}
	var others []string
	for k := range obj {
		if !named[k] {
			others = append(others, k)
		}
	}
	slices.Sort(others)
	for _, k := range others {
		out = append(out, answerField{Label: k, Values: []string{wording.Value(obj[k])}})
	}
	return out
}

// kindText says how an inquiry is answered, as a person reads it: "an approval", "a form",
// "a choice of one option" (the request type is the agent's word for it).
func kindText(inq *hitl.Inquiry) string {
	switch formKind(inq) {
	case formDecision:
		return "a decision on a tool call"
	case formApproval:
		return "an approval"
	case formOptions:
		if inq.Multiple {
			return "a choice of several options"
		}
		return "a choice of one option"
	}
	switch schema.FormFor(inq.ResponseSchema).Kind {
	case schema.KindObject:
		return "a form"
	case schema.KindText, schema.KindTextArea:
		return "a written answer"
	case schema.KindBoolean:
		return "yes or no"
	case schema.KindInteger, schema.KindNumber:
		return "a number"
	case schema.KindChoice:
		return "a choice of one option"
	case schema.KindChoices:
		return "a choice of several options"
	case schema.KindList:
		return "a list"
	}
	return "an answer in JSON"
}

// deliveryText says how far a notification got: "delivered", "not delivered yet" (it is
// being sent, or tried again), "could not be delivered".
func deliveryText(s string) string {
	switch hitl.DeliveryStatus(s) {
	case hitl.DeliveryPending:
		return "not delivered yet"
	case hitl.DeliveryFailed:
		return "could not be delivered"
	}
	return s
}

// answerSummary is an answer on one short line, for a row of the inbox.
func answerSummary(inq *hitl.Inquiry) string {
	text := answerText(inq, inq.Response)
	if c := separateComment(inq); c != "" {
		text += " — " + c
	}
	return short(strings.Join(strings.Fields(text), " "), 160)
}
