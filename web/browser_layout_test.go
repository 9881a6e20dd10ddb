package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/hitl-dev/hitl"
)

// The inquiry page's layout, measured in a real browser at a desktop's and a phone's width.

// screenSizes are the widths the layout is measured at.
var screenSizes = []struct {
	name          string
	width, height int64
}{{"desktop", 1280, 1000}, {"phone", 375, 812}}

// layoutFacts is what the page measures of itself.
type layoutFacts struct {
	ClockLines      int      // lines of the deadline fact
	ClockInside     bool     // the deadline's date ends inside its card
	CountdownLines  int      // line boxes of the countdown
	CountdownText   string   // its text and what CSS puts before it
	Emoji           bool     // whether that holds an emoji, which shows as a box without an emoji font
	ContextText     string   // the multi-line context value as shown
	ContextStyle    string   // its white-space and display
	ContextLines    int      // its boxes: one block, not lines that restart at the key's column
	SticksOut       []string // elements of the answer form wider than its card
	WiderThanScreen bool
}

const measureLayout = `(() => {
  const deadline = [...document.querySelectorAll('.facts dt')].find(dt => dt.textContent === 'Deadline').nextElementSibling;
  const countdown = document.querySelector('#status time.deadline');
  const value = document.querySelector('.json .v-lines') || document.querySelector('.json .v-string'); // the diff, the first string
  const card = document.querySelector('#answer-form').closest('.card').getBoundingClientRect();
  const label = el => el.tagName.toLowerCase() + (el.name ? '[name="' + el.name + '"]' : '') + (el.className ? '.' + el.className.split(' ').join('.') : '');
  const out = [...document.querySelectorAll('#answer-form fieldset, #answer-form input, #answer-form select, #answer-form textarea, #answer-form button')]
    .filter(el => el.getClientRects().length && el.getBoundingClientRect().right > card.right + 0.5)
    .map(el => label(el) + ' ends at ' + Math.round(el.getBoundingClientRect().right) + ', the card at ' + Math.round(card.right));
  const before = getComputedStyle(countdown, '::before').content;
  const countdownText = countdown.textContent + ' ' + before;
  return {
    ClockLines: Math.round(deadline.getBoundingClientRect().height / parseFloat(getComputedStyle(deadline).lineHeight)),
    ClockInside: deadline.firstElementChild.getBoundingClientRect().right <= deadline.closest('.card').getBoundingClientRect().right,
    CountdownLines: countdown.getClientRects().length,
    CountdownText: countdownText,
    Emoji: /\p{Extended_Pictographic}/u.test(countdownText),
    ContextText: value.innerText,
    ContextStyle: getComputedStyle(value).whiteSpace + ' ' + getComputedStyle(value).display,
    ContextLines: value.getClientRects().length,
    SticksOut: out,
    WiderThanScreen: document.documentElement.scrollWidth > window.innerWidth,
  };
})()`

func TestInquiryLayoutInABrowser(t *testing.T) {
	e := start(t)
	ctx := newBrowser(t)
	shots := screenshotDir(t)
	signInWithForm(t, ctx, e.URL, e.responderToken)

	diff := "@@ -1,3 +1,3 @@\n   retries:\n-    max: 1\n+    max: 3"
	soon := int64(120) // under five minutes: the countdown turns red
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Roll out the new retry policy?", TimeoutSeconds: &soon, FallbackPolicy: hitl.FallbackFail,
		Context: json.RawMessage(fmt.Sprintf(`{"diff":%q,"service":"payments"}`, diff)),
		ResponseSchema: json.RawMessage(`{"type":"object","required":["rollout"],"properties":{
			"rollout":{"type":"object","title":"Rollout","description":"How the change reaches production","properties":{
				"strategy":{"title":"Strategy","enum":["canary-then-everything-at-once","region-by-region-with-manual-checks"]},
				"windows":{"type":"array","title":"Maintenance windows","items":{"type":"string","format":"date-time"}},
				"regions":{"type":"array","title":"Regions","items":{"enum":["eu-west-1","us-east-1","ap-southeast-2"]}},
				"owner":{"type":"string","title":"Owner","format":"email"},
				"pause":{"type":"boolean","title":"Pause between regions"}}},
			"notes":{"type":"string","title":"Notes","maxLength":2000}}}`)})

	for _, size := range screenSizes {
		do(t, ctx, chromedp.EmulateViewport(size.width, size.height, chromedp.EmulateScale(2)),
			chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID)),
			chromedp.WaitVisible(chromedp.CSS("#answer-form")))
		f := get(t, ctx, chromedp.Evaluate[layoutFacts](measureLayout))
		if f.ClockLines != 1 || !f.ClockInside {
			t.Errorf("%s: the deadline takes %d lines (its date inside its card: %v), want one line inside", size.name, f.ClockLines, f.ClockInside)
		}
		if f.CountdownLines != 1 {
			t.Errorf("%s: the countdown takes %d lines", size.name, f.CountdownLines)
		}
		if f.Emoji {
			t.Errorf("%s: the countdown shows an emoji, a box without an emoji font: %q", size.name, f.CountdownText)
		}
		if f.ContextText != diff || f.ContextStyle != "pre-wrap block" || f.ContextLines != 1 {
			t.Errorf("%s: the multi-line context value shows as %q (%s, %d boxes), want %q in one pre-wrap block",
				size.name, f.ContextText, f.ContextStyle, f.ContextLines, diff)
		}
		if len(f.SticksOut) > 0 {
			t.Errorf("%s: parts of the answer form stick out of their card:\n%s", size.name, strings.Join(f.SticksOut, "\n"))
		}
		if f.WiderThanScreen {
			t.Errorf("%s: the page is wider than the screen", size.name)
		}
		screenshot(t, ctx, shots, "inquiry-layout-"+size.name+".png")
	}

	// The Answered tab, at both widths.
	e.respond(e.ask(&hitl.InquiryRequest{Prompt: "Which venue for the offsite?", Options: []hitl.Option{{Value: "oslo", Label: "Oslo"}, {Value: "rome", Label: "Rome"}}}).ID,
		`"oslo"`, "closer to the team")
	for _, size := range screenSizes {
		do(t, ctx, chromedp.EmulateViewport(size.width, size.height, chromedp.EmulateScale(2)),
			chromedp.Navigate(e.URL+"/?tab=responded"), chromedp.WaitVisible(chromedp.CSS(".answer-summary")))
		waitText(t, ctx, ".answer-summary", "Oslo — closer to the team")
		screenshot(t, ctx, shots, "inbox-answered-"+size.name+".png")
	}
}

// focusWithTab presses Tab until the element sel has the focus, and checks that every element
// it passes shows that it has it.
func focusWithTab(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	const focusShows = `(() => {
	  const el = document.activeElement;
	  if (!el || el === document.body) return 'nothing';
	  const style = getComputedStyle(el);
	  const shows = el.matches(':focus-visible') && style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
	  return shows ? '' : el.outerHTML.slice(0, 120);
	})()`
	for range 60 {
		do(t, ctx, chromedp.KeyEvent(kb.Tab))
		if hidden := get(t, ctx, chromedp.Evaluate[string](focusShows)); hidden != "" {
			t.Errorf("the focus is not visible on %s", hidden)
		}
		if get(t, ctx, chromedp.Evaluate[bool](fmt.Sprintf(`document.activeElement.matches(%q)`, sel))) {
			return
		}
	}
	t.Fatalf("Tab never reaches %s", sel)
}

// A person signs in, opens an inquiry and answers it with the keyboard alone.
func TestAnswerWithTheKeyboardOnly(t *testing.T) {
	e := start(t)
	ctx := newBrowser(t)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Which regions get the fix first?", Multiple: true,
		Options: []hitl.Option{{Value: "eu-west-1"}, {Value: "us-east-1"}, {Value: "ap-southeast-2"}}})
	venue := e.ask(&hitl.InquiryRequest{Prompt: "Which venue for the offsite?", Options: []hitl.Option{{Value: "oslo"}, {Value: "rome"}}})

	// The sign-in form has the focus: type the token, press Enter.
	do(t, ctx, chromedp.Navigate(e.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#token")))
	if focused := get(t, ctx, chromedp.Evaluate[string](`document.activeElement.id`)); focused != "token" {
		t.Fatalf("the sign-in page focuses %q, want the token field", focused)
	}
	do(t, ctx, chromedp.KeyEvent(e.responderToken), chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS("#tabs")))

	// Tab to the inquiry, Enter opens it.
	focusWithTab(t, ctx, fmt.Sprintf("#inquiry-%d a.prompt", inq.ID))
	do(t, ctx, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS("#answer-form")))

	// Tab to two options and tick each with Space; Tab to the button and press Enter.
	for _, region := range []string{"us-east-1", "ap-southeast-2"} {
		focusWithTab(t, ctx, fmt.Sprintf(`input[value=%q]`, region))
		do(t, ctx, chromedp.KeyEvent(" "))
	}
	focusWithTab(t, ctx, "#answer-form button[type=submit]")
	do(t, ctx, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(".outcome")))

	got := e.inquiry(inq.ID)
	if got.Status != hitl.StatusResponded || got.RespondedBy == nil || *got.RespondedBy != "ada" {
		t.Fatalf("after the keyboard answer: %s by %v", got.Status, got.RespondedBy)
	}
	mustJSON(t, got.Response, `["us-east-1","ap-southeast-2"]`)

	// Back to the inbox and on to a single choice: Tab into its options, Space picks the first.
	focusWithTab(t, ctx, `a[href="/"]:not(.brand)`)
	do(t, ctx, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS("#tabs")))
	focusWithTab(t, ctx, fmt.Sprintf("#inquiry-%d a.prompt", venue.ID))
	do(t, ctx, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS("#answer-form")))
	focusWithTab(t, ctx, `input[value="oslo"]`)
	do(t, ctx, chromedp.KeyEvent(" "))
	focusWithTab(t, ctx, "#answer-form button[type=submit]")
	do(t, ctx, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(".outcome")))
	mustJSON(t, e.inquiry(venue.ID).Response, `"oslo"`)
}
