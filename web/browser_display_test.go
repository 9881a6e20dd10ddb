package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/hitl-dev/hitl"
)

// What the inbox shows, read in a real browser as a person reads it: a form's answer as its
// fields, times in the viewer's time zone, words for people, "is required", and "Approve
// selected" only where there is something to approve.

// inTokyo has the tab show pages as a browser in Tokyo set to British English would.
func inTokyo(t *testing.T, ctx context.Context) *time.Location {
	t.Helper()
	do(t, ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Tokyo"}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: "en-GB"})
		return err
	}))
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatalf("the time zone database has no Asia/Tokyo: %v", err)
	}
	return tokyo
}

// shown is a <time> as the page shows it: its text and what hovering it says.
type shown struct{ Text, Title string }

func timeShown(t *testing.T, ctx context.Context, sel string) shown {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[shown](fmt.Sprintf(`(() => { const el = document.querySelector(%q); return {Text: el.textContent, Title: el.title}; })()`, sel)))
}

// spaced makes the spaces the browser's formats may use (a narrow no-break space before "pm")
// plain spaces: strings.Fields splits at every Unicode space.
func spaced(s string) string { return strings.Join(strings.Fields(s), " ") }

// A form's answer shows as the form's fields, with their titles in the form's order (not JSON
// with its keys sorted): yes / no in words, a list's items each on its own, a group's fields
// under its title, a date-time in the viewer's time zone, a member the schema does not name
// last; and on one line in the inbox's list.
func TestAFormsAnswerShowsAsItsFields(t *testing.T) {
	e := start(t)
	ctx := newBrowser(t)
	shots := screenshotDir(t)
	tokyo := inTokyo(t, ctx)
	signInWithForm(t, ctx, e.URL, e.responderToken)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "How should the rollout go?", ResponseSchema: json.RawMessage(`{"type":"object","required":["service","replicas"],"properties":{
		"service":{"type":"string","title":"Service"},
		"replicas":{"type":"integer","title":"Replicas"},
		"canary":{"type":"boolean","title":"Canary first"},
		"window":{"type":"string","format":"date-time","title":"Maintenance window"},
		"regions":{"type":"array","title":"Regions","items":{"enum":["eu-west-1","us-east-1"]}},
		"owner":{"type":"object","title":"Owner","properties":{"name":{"type":"string","title":"Name"},"team":{"type":"string","title":"Team"}}},
		"note":{"type":"string","title":"Note"}}}`)})
	e.respond(inq.ID, `{"ticket":"OPS-7","regions":["us-east-1","eu-west-1"],"window":"2026-11-24T22:00:00Z","canary":true,"replicas":3,"service":"api",
		"owner":{"team":"sre","name":"Ada"}}`, "")

	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID)), chromedp.WaitVisible(chromedp.CSS(".answer-fields")))
	type field struct {
		Label, Value string
		Items        []string
	}
	got := get(t, ctx, chromedp.Evaluate[[]field](`[...document.querySelectorAll('#state .answer-field')].map(f => ({
		Label: f.querySelector('dt').textContent, Value: f.querySelector('dd').textContent.trim(),
		Items: [...f.querySelectorAll(':scope > dd > ul > li')].map(li => li.textContent)}))`))
	window := time.Date(2026, 11, 24, 22, 0, 0, 0, time.UTC).In(tokyo)
	want := []field{
		{Label: "Service", Value: "api"},
		{Label: "Replicas", Value: "3"},
		{Label: "Canary first", Value: "Yes"},
		{Label: "Maintenance window"},
		{Label: "Regions", Items: []string{"us-east-1", "eu-west-1"}},
		{Label: "Owner"},
		{Label: "Name", Value: "Ada"},
		{Label: "Team", Value: "sre"},
		{Label: "ticket", Value: "OPS-7"},
	}
	if len(got) != len(want) {
		t.Fatalf("the answer shows %d fields: %+v", len(got), got)
	}
	for i, w := range want {
		g := got[i]
		switch {
		case g.Label != w.Label:
			t.Errorf("field %d is %q, want %q (the form's order)", i, g.Label, w.Label)
		case w.Items != nil && strings.Join(g.Items, "|") != strings.Join(w.Items, "|"):
			t.Errorf("%s shows the items %q, want %q", w.Label, g.Items, w.Items)
		case w.Value != "" && g.Value != w.Value:
			t.Errorf("%s shows %q, want %q", w.Label, g.Value, w.Value)
		}
	}
	at := timeShown(t, ctx, "#state .answer-field time")
	if text := spaced(at.Text); !strings.Contains(text, window.Format("2 Jan 2006")) || !strings.Contains(text, window.Format("15:04")) || !strings.Contains(text, "GMT+9") ||
		at.Title != "2026-11-24 22:00:00 UTC" {
		t.Errorf("the maintenance window shows as %q (hover: %q); want %s in Tokyo, and UTC on hover", at.Text, at.Title, window.Format("2 Jan 2006 15:04"))
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#state pre.answer-text').length`)); n != 0 {
		t.Error("the form's answer is also shown as JSON")
	}
	screenshot(t, ctx, shots, "form-answer.png")

	do(t, ctx, chromedp.Navigate(e.URL+"/?tab=responded"), chromedp.WaitVisible(chromedp.CSS(".answer-summary")))
	line := spaced(text(t, ctx, fmt.Sprintf("#inquiry-%d .answer-summary", inq.ID)))
	wantLine := "Service: api · Replicas: 3 · Canary first: Yes · Maintenance window: " + spaced(timeShown(t, ctx, fmt.Sprintf("#inquiry-%d .answer-summary time", inq.ID)).Text) +
		" · Regions: us-east-1, eu-west-1 · Owner: Name: Ada · Team: sre · ticket: OPS-7"
	if line != wantLine {
		t.Errorf("the list shows the answer as\n%q, want\n%q", line, wantLine)
	}
}

// Times show in the viewer's time zone, with UTC on hover; the page says things in words for
// people: how the question is answered ("a form"), not its request type, and that the audit
// log is intact, not the sequence number it was checked through.
func TestThePageSpeaksToPeople(t *testing.T) {
	e := start(t)
	ctx := newBrowser(t)
	tokyo := inTokyo(t, ctx)
	signInWithForm(t, ctx, e.URL, e.responderToken)
	deadline := int64(3 * 3600)
	form := e.ask(&hitl.InquiryRequest{Prompt: "How many replicas?", TimeoutSeconds: &deadline,
		ResponseSchema: json.RawMessage(`{"type":"object","properties":{"replicas":{"type":"integer","title":"Replicas"}}}`)})
	choice := e.ask(&hitl.InquiryRequest{Prompt: "Which region first?", RequestType: hitl.RequestSelection, Options: []hitl.Option{{Value: "eu"}, {Value: "us"}}})
	note := e.ask(&hitl.InquiryRequest{Prompt: "What should the release note say?", RequestType: hitl.RequestClarification})

	internal := regexp.MustCompile(`(?i)\b(input|selection|clarification|request.type|seq|verified)\b`)
	for inq, kind := range map[*hitl.Inquiry]string{form: "a form", choice: "a choice of one option", note: "a written answer"} {
		do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID)), chromedp.WaitVisible(chromedp.CSS("#answer-form")))
		facts := get(t, ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries([...document.querySelectorAll('.facts > div')].map(d =>
			[d.querySelector('dt').textContent, d.querySelector('dd').textContent.trim()]))`))
		if facts["Kind"] != kind {
			t.Errorf("%q: Kind is %q, want %q (facts: %v)", inq.Prompt, facts["Kind"], kind, facts)
		}
		if words := internal.FindAllString(text(t, ctx, "main"), -1); len(words) > 0 {
			t.Errorf("%q: the page says %q", inq.Prompt, words)
		}
		audit := timeShown(t, ctx, ".audit") // its text and what hovering it says
		if audit.Text != "The audit log is intact." || !strings.HasPrefix(audit.Title, "Checked through event ") {
			t.Errorf("%q: the audit line says %q (hover: %q)", inq.Prompt, audit.Text, audit.Title)
		}
	}

	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, form.ID)), chromedp.WaitVisible(chromedp.CSS("#answer-form")))
	due := form.TimeoutAt.In(tokyo)
	at := timeShown(t, ctx, ".facts time.clock")
	if got := spaced(at.Text); !strings.Contains(got, due.Format("2 Jan 2006")) || !strings.Contains(got, due.Format("15:04")) || !strings.Contains(got, "GMT+9") ||
		at.Title != form.TimeoutAt.UTC().Format("2006-01-02 15:04:05 UTC") {
		t.Errorf("the deadline shows as %q (hover: %q); want %s in Tokyo, and UTC on hover", at.Text, at.Title, due.Format("2 Jan 2006 15:04"))
	}
	asked := timeShown(t, ctx, ".facts dd > time:not(.clock)")
	if asked.Text != "just now" || !strings.Contains(spaced(asked.Title), form.CreatedAt.In(tokyo).Format("15:04")) ||
		!strings.Contains(asked.Title, form.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC")) {
		t.Errorf("asked: %q (hover: %q); want the time in Tokyo and in UTC on hover", asked.Text, asked.Title)
	}
	countdown := timeShown(t, ctx, "#status time.deadline")
	if !strings.Contains(countdown.Title, form.TimeoutAt.UTC().Format("2006-01-02 15:04:05 UTC")) {
		t.Errorf("the countdown's hover says %q", countdown.Title)
	}

	// The list says how each is answered in the same words.
	do(t, ctx, chromedp.Navigate(e.URL+"/?tab=pending"), chromedp.WaitVisible(chromedp.CSS("#list")))
	if words := internal.FindAllString(text(t, ctx, "#list"), -1); len(words) > 0 {
		t.Errorf("the list says %q", words)
	}
	waitText(t, ctx, fmt.Sprintf("#inquiry-%d .meta", form.ID), "a form")
}

// A field that may not be left empty says "is required" as the person leaves it empty, and
// no longer once it is filled; the server says the same of a field left empty on submit
// (not "must be at least 1 character long"), and that goes too once the field is filled.
func TestEmptyRequiredFieldsSayIsRequired(t *testing.T) {
	e := start(t)
	ctx := newBrowser(t)
	signInWithForm(t, ctx, e.URL, e.responderToken)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Roll out?", ResponseSchema: json.RawMessage(rolloutSchema)})
	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID)), chromedp.WaitVisible(chromedp.CSS(`input[name="answer/owner"]`)))

	type fieldState struct {
		Error, Invalid, DescribedBy string
	}
	state := func(name string) fieldState {
		return get(t, ctx, chromedp.Evaluate[fieldState](fmt.Sprintf(`(() => {
			const input = document.querySelector('[name=%q]'), field = input.closest('.field');
			const err = field.querySelector(':scope > .field-error');
			const described = field.tagName === 'FIELDSET' ? field : input;
			return {Error: err ? err.textContent : '', Invalid: described.getAttribute('aria-invalid') || '', DescribedBy: described.getAttribute('aria-describedby') || ''};
		})()`, name)))
	}
	owner := `input[name="answer/owner"]`
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(owner), "a"), chromedp.KeyEvent(kb.Backspace), chromedp.KeyEvent(kb.Tab))
	if s := state("answer/owner"); s.Error != "is required" || s.Invalid != "true" || !strings.Contains(s.DescribedBy, "-error") {
		t.Errorf("the owner, typed in and emptied, then left: %+v; want \"is required\" beside it, and the input marked invalid", s)
	}
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(owner), "ada"))
	if s := state("answer/owner"); s.Error != "" || s.Invalid != "" || strings.Contains(s.DescribedBy, "-error") {
		t.Errorf("the owner, filled in: %+v; want no error", s)
	}
	// Passing a field by does not say anything of it: only one left empty after a change.
	if s := state("answer/replicas"); s.Error != "" {
		t.Errorf("replicas, never touched, says %q", s.Error)
	}

	// Sent with the region not chosen: the server's "is required", which a choice then takes away.
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`input[name="answer/replicas"]`), "3"), chromedp.SendKeys(chromedp.CSS(`input[name="answer/canary"]`), "10"),
		chromedp.Click(chromedp.CSS(`#answer-form button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(".field-error")))
	if s := state("answer/region"); s.Error != "is required" || s.Invalid != "true" {
		t.Errorf("the region, sent empty: %+v; want the server's \"is required\"", s)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`input[name="answer/region"][value="us-east-1"]`)))
	if s := state("answer/region"); s.Error != "" || s.Invalid != "" {
		t.Errorf("the region, chosen after the server's error: %+v; want no error", s)
	}

	// A written answer sent empty: "is required", beside it.
	note := e.ask(&hitl.InquiryRequest{Prompt: "What should the release note say?", RequestType: hitl.RequestClarification})
	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, note.ID)), chromedp.WaitVisible(chromedp.CSS(`[name="answer"]`)),
		chromedp.Click(chromedp.CSS(`#answer-form button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(".field-error")))
	if s := state("answer"); s.Error != "is required" {
		t.Errorf("the written answer, sent empty: %+v; want \"is required\"", s)
	}
	if e.inquiry(note.ID).Status != hitl.StatusPending || e.inquiry(inq.ID).Status != hitl.StatusPending {
		t.Fatal("an answer with a required field left empty was recorded")
	}
}

// "Approve selected" shows only on a list with an approval the viewer may tick, comes with
// the first one live, and fits a phone's width: its words wrap, its comment field holds its
// placeholder, its button is whole.
func TestApproveSelectedOnlyWhereThereIsSomethingToApprove(t *testing.T) {
	e := start(t)
	ctx := newBrowser(t)
	shots := screenshotDir(t)
	signInWithForm(t, ctx, e.URL, e.responderToken)
	e.ask(&hitl.InquiryRequest{Prompt: "What should the release note say?"})
	do(t, ctx, chromedp.Navigate(e.URL+"/?tab=pending"), chromedp.WaitVisible(chromedp.CSS("#list .row")))
	waitText(t, ctx, "#live", "Live")
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#bulk').length`)); n != 0 {
		t.Error("a list without approvals offers Approve selected")
	}

	approval := e.ask(&hitl.InquiryRequest{Prompt: "Deploy api v2.5 to production?", RequestType: hitl.RequestApproval})
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS("#approve-selected")), chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf("#select-%d", approval.ID))))

	for _, size := range screenSizes {
		do(t, ctx, chromedp.EmulateViewport(size.width, size.height, chromedp.EmulateScale(2)), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#approve-selected")))
		cut := get(t, ctx, chromedp.Evaluate[[]string](`(() => {
			const out = [], screen = document.documentElement.clientWidth;
			for (const el of document.querySelectorAll('#bulk, #bulk-hint, #bulk-comment, #approve-selected')) {
				const r = el.getBoundingClientRect();
				if (r.left < 0 || r.right > screen + 0.5) out.push('#' + el.id + ' runs off the screen (' + Math.round(r.left) + '..' + Math.round(r.right) + ' of ' + screen + ')');
				if (el.scrollWidth > el.clientWidth + 1) out.push('#' + el.id + ' is cut off (' + el.scrollWidth + ' wide in ' + el.clientWidth + ')');
			}
			const input = document.getElementById('bulk-comment'), style = getComputedStyle(input);
			const ctx = document.createElement('canvas').getContext('2d');
			ctx.font = style.font;
			const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
			if (ctx.measureText(input.placeholder).width > room) out.push('the placeholder "' + input.placeholder + '" does not fit its field (' + Math.round(room) + ' wide)');
			return out;
		})()`))
		if len(cut) > 0 {
			t.Errorf("%s: %s", size.name, strings.Join(cut, "; "))
		}
		screenshot(t, ctx, shots, "approve-selected-"+size.name+".png")
	}
}
