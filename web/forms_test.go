package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
)

// rolloutSchema is issue 12's form: a required region, replicas up to 20, an owner in
// lower-case letters, a canary share in steps of 0.5; and a list of limits typed as JSON.
const rolloutSchema = `{"type":"object","required":["region","replicas","owner","canary"],"properties":{
	"region":{"title":"Region","enum":["eu-west-1","us-east-1","ap-south-1"]},
	"replicas":{"title":"Replicas","type":"integer","minimum":1,"maximum":20},
	"owner":{"title":"Owner","type":"string","minLength":2,"maxLength":40,"pattern":"^[a-z]+$"},
	"canary":{"title":"Canary share (%)","type":"number","minimum":0,"maximum":100,"multipleOf":0.5},
	"limits":{"title":"Limits","type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"}}}}}}`

// fieldHTML is the markup of the form field named name: from its first input to the start of
// the next field. Each field ends with its error, so an error in it stands beside that field.
func fieldHTML(t *testing.T, page, name string) string {
	t.Helper()
	start := strings.Index(page, `name="`+name+`"`)
	if start < 0 {
		t.Fatalf("no field %s on the page", name)
	}
	rest := page[start:]
	if end := regexp.MustCompile(`<(div|fieldset) class="field`).FindStringIndex(rest); end != nil {
		rest = rest[:end[0]]
	}
	return rest
}

// One submit shows every problem of the form, each beside its field and in words, without a
// script; nothing is recorded; fixed, the answer is.
func TestEveryProblemAtOnce(t *testing.T) {
	e := start(t)
	b := e.browser()
	b.signIn(e.responderToken)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Roll out?", ResponseSchema: json.RawMessage(rolloutSchema)})
	path := fmt.Sprintf("/inquiries/%d", inq.ID)
	csrf := b.get(path).csrf()

	res := b.post(path, url.Values{"csrf": {csrf}, "answer/replicas": {"50"}, "answer/owner": {"A"}, "answer/canary": {"12.3"}})
	if res.status != http.StatusUnprocessableEntity {
		t.Fatalf("the invalid answer: %d", res.status)
	}
	for name, want := range map[string][]string{
		"answer/region":   {"is required"},
		"answer/replicas": {"must be at most 20"},
		"answer/owner":    {"must be at least 2 characters long", "must use lower-case letters only (^[a-z]+$)"},
		"answer/canary":   {"must be a multiple of 0.5"},
	} {
		field := html.UnescapeString(fieldHTML(t, res.body, name))
		for _, w := range want {
			if !strings.Contains(field, `class="field-error"`) || !strings.Contains(field, w) {
				t.Errorf("%s: no %q beside it:\n%s", name, w, field)
			}
		}
		if strings.Contains(field, "got") || strings.Contains(field, "want") {
			t.Errorf("%s: the error is not in words:\n%s", name, field)
		}
	}
	if got := e.inquiry(inq.ID); got.Status != hitl.StatusPending {
		t.Fatal("an invalid answer was recorded")
	}

	// A field that cannot be read at all (JSON that does not parse) does not hide the others.
	res = b.post(path, url.Values{"csrf": {csrf}, "answer/region": {"eu-west-1"}, "answer/replicas": {"50"},
		"answer/owner": {"ada"}, "answer/canary": {"12.5"}, "answer/limits": {`[{"name": "cpu"`}})
	if !strings.Contains(fieldHTML(t, res.body, "answer/limits"), "is not valid JSON") ||
		!strings.Contains(fieldHTML(t, res.body, "answer/replicas"), "must be at most 20") {
		t.Errorf("a JSON field that does not parse and a number too large: not both shown:\n%s", res.body)
	}

	res = b.post(path, url.Values{"csrf": {csrf}, "answer/region": {"eu-west-1"}, "answer/replicas": {"20"},
		"answer/owner": {"ada"}, "answer/canary": {"12.5"}, "answer/limits": {`[{"name": "cpu", "count": 4}]`}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("the fixed answer: %d", res.status)
	}
	mustJSON(t, e.inquiry(inq.ID).Response, `{"region":"eu-west-1","replicas":20,"owner":"ada","canary":12.5,"limits":[{"name":"cpu","count":4}]}`)
}

// Before anything is entered, each field says what it takes, and its input points to that.
func TestFormsSayWhatTheyWant(t *testing.T) {
	e := start(t)
	b := e.browser()
	b.signIn(e.responderToken)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Roll out?", ResponseSchema: json.RawMessage(rolloutSchema)})
	page := b.get(fmt.Sprintf("/inquiries/%d", inq.ID)).body
	if strings.Contains(page, "field-error") {
		t.Fatal("a fresh form shows errors")
	}
	if strings.Contains(page, "<legend>Your answer") {
		t.Error(`an untitled answer object repeats the card's "Your answer" as a legend`)
	}
	if !regexp.MustCompile(`<form [^>]*id="answer-form" novalidate>`).MatchString(page) {
		t.Error("the browser's own checks would stop the submit at the first problem")
	}
	for name, want := range map[string]string{
		"answer/replicas": "between 1 and 20",
		"answer/owner":    "2–40 characters, lower-case letters only",
		"answer/canary":   "between 0 and 100, in steps of 0.5",
		"answer/limits":   `For example <code>[{&#34;name&#34;: &#34;…&#34;, &#34;count&#34;: 0}]</code>`,
	} {
		// The hint stands between the label and the input, which names it in aria-describedby.
		m := regexp.MustCompile(`<p class="hint expects" id="(field-\d+)-expects">([^\n]*?)</p>\s*<(input|textarea) id="(field-\d+)" name="` + regexp.QuoteMeta(name) + `"[^>]*aria-describedby="([^"]*)"`).FindStringSubmatch(page)
		if m == nil || m[1] != m[4] || m[2] != want || !strings.Contains(m[5], m[1]+"-expects") {
			t.Errorf("%s: hint %q, want %q", name, m, want)
		}
	}
	if !regexp.MustCompile(`<legend>Region<span class="req" aria-hidden="true"> \*</span></legend>\s*<p class="hint expects" id="field-\d+-expects">Choose one</p>`).MatchString(page) {
		t.Error(`no "Choose one" above the region's options`)
	}

	choices := e.ask(&hitl.InquiryRequest{Prompt: "Which checks?", ResponseSchema: json.RawMessage(`{"type":"array","items":{"enum":["lint","test"]}}`)})
	if page := b.get(fmt.Sprintf("/inquiries/%d", choices.ID)).body; !strings.Contains(page, `<p class="hint expects" id="field-1-expects">Choose any</p>`) {
		t.Error(`no "Choose any" above the checkboxes`)
	}

	// Options are chosen, then sent with the comment: no option sends on its own.
	venue := e.ask(&hitl.InquiryRequest{Prompt: "Which venue?", Options: []hitl.Option{{Value: "lisbon"}, {Value: "oslo"}}})
	page = b.get(fmt.Sprintf("/inquiries/%d", venue.ID)).body
	if !strings.Contains(page, `<legend>Choose one</legend>`) || !strings.Contains(page, `<input type="radio" name="answer" value="oslo" required>`) ||
		!strings.Contains(page, `<button type="submit" class="primary">Send answer</button>`) || strings.Contains(page, `name="answer" value="oslo" class="option"`) {
		t.Error("a single choice is not choose-then-send")
	}
	days := e.ask(&hitl.InquiryRequest{Prompt: "Which days?", Multiple: true, Options: []hitl.Option{{Value: "fri"}, {Value: "sat"}}})
	if page := b.get(fmt.Sprintf("/inquiries/%d", days.ID)).body; !strings.Contains(page, `<legend>Choose any</legend>`) {
		t.Error(`no "Choose any" above the options of a multiple choice`)
	}
}

// A radio cannot be unticked: an optional yes/no offers "No answer", ticked until chosen.
func TestAnOptionalYesNoCanBeLeftEmpty(t *testing.T) {
	e := start(t)
	b := e.signedIn(e.responderToken)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Anything else?", ResponseSchema: json.RawMessage(`{"type":"object","required":["go"],"properties":{"go":{"type":"boolean"},"notify":{"type":"boolean"}}}`)})
	page := b.get(fmt.Sprintf("/inquiries/%d", inq.ID)).body
	if !strings.Contains(page, `name="answer/notify" value="" checked> No answer`) {
		t.Error("the optional yes/no has no way to leave it empty")
	}
	if strings.Contains(page, `name="answer/go" value=""`) {
		t.Error("the required yes/no offers no answer")
	}
}

// Whatever the form, the comment typed beside the answer is the answer's comment, as the API
// gives it (GET /v1/inquiries/{id}); the answer keeps its own shape: an approval's holds the
// comment too, as its default schema has it, an option or a form's does not.
func TestTheCommentIsTheAnswersComment(t *testing.T) {
	e := start(t)
	b := e.signedIn(e.responderToken)
	for _, c := range []struct {
		name   string
		req    hitl.InquiryRequest
		form   url.Values
		answer string
	}{
		{"an approval", hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval},
			url.Values{"approved": {"true"}}, `{"approved":true,"comment":"checks are green"}`},
		{"options", hitl.InquiryRequest{Prompt: "Which venue?", Options: []hitl.Option{{Value: "lisbon"}, {Value: "oslo"}}},
			url.Values{"answer": {"oslo"}}, `"oslo"`},
		{"a form", hitl.InquiryRequest{Prompt: "Roll out?", ResponseSchema: json.RawMessage(`{"type":"object","properties":{"replicas":{"type":"integer"}}}`)},
			url.Values{"answer/replicas": {"3"}}, `{"replicas":3}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			inq := e.ask(&c.req)
			path := fmt.Sprintf("/inquiries/%d", inq.ID)
			c.form.Set("csrf", b.get(path).csrf())
			c.form.Set("comment", "  checks are green\n")
			if res := b.post(path, c.form); res.status != http.StatusSeeOther {
				t.Fatalf("the answer: %d\n%s", res.status, res.body)
			}
			got := e.inquiry(inq.ID)
			if got.Comment == nil || *got.Comment != "checks are green" {
				t.Errorf("the answer's comment is %v, want %q", got.Comment, "checks are green")
			}
			mustJSON(t, got.Response, c.answer)
		})
	}
}

// A secret the schema asks for (format password, or writeOnly) is typed into a masked one-line
// input that the browser does not fill in or remember, on the answer link's page; after a
// mistake elsewhere, the page does not send the secret back.
func TestSecretFieldsAreMasked(t *testing.T) {
	e := start(t)
	b := e.browser() // not signed in: the answer link's page
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Unlock the vault", AssignedTo: []string{"grace"},
		ResponseSchema: json.RawMessage(`{"type":"object","required":["pin","token","count"],"properties":{
			"pin":{"type":"string","format":"password"},
			"token":{"type":"string","writeOnly":true},
			"note":{"type":"string"},
			"count":{"type":"integer"}}}`)})
	e.key("grace", hitl.RoleResponder)
	link, err := e.Admin.CreateAnswerLink(context.Background(), inq.ID, &hitl.AnswerLinkRequest{For: "grace"})
	if err != nil {
		t.Fatal(err)
	}
	path := strings.TrimPrefix(link.URL, e.URL)
	page := b.get(path)
	if page.status != http.StatusOK {
		t.Fatalf("GET %s: %d", path, page.status)
	}
	masked := regexp.MustCompile(`^name="[^"]+" type="password" autocomplete="off"`)
	for _, name := range []string{"answer/pin", "answer/token"} {
		if field := fieldHTML(t, page.body, name); !masked.MatchString(field) || strings.Contains(field, "<textarea") {
			t.Errorf("%s is not masked: %s", name, field)
		}
	}
	if field := fieldHTML(t, page.body, "answer/note"); strings.Contains(field, `type="password"`) {
		t.Errorf("a plain string is masked: %s", field)
	}

	res := b.post(path, url.Values{"csrf": {page.csrf()}, "answer/pin": {"4711"}, "answer/token": {"s3cret"}, "answer/count": {"x"}})
	if res.status != http.StatusUnprocessableEntity || strings.Contains(res.body, "4711") || strings.Contains(res.body, "s3cret") {
		t.Fatalf("a mistake elsewhere: %d, the secrets in the page: %v", res.status, strings.Contains(res.body, "s3cret"))
	}
	res = b.post(path, url.Values{"csrf": {page.csrf()}, "answer/pin": {"4711"}, "answer/token": {"s3cret"}, "answer/count": {"3"}})
	if got := e.inquiry(inq.ID); got.Status != hitl.StatusResponded || !strings.Contains(string(got.Response), `"pin":"4711"`) {
		t.Fatalf("answer: %d, %s %s", res.status, got.Status, got.Response)
	}
}
