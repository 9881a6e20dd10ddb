package web_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
)

// Issue 12's form in a browser: one submit shows all four problems, each beside its field, in
// words; the browser's own checks do not stop the submit at the first.
func TestEveryProblemAtOnceInABrowser(t *testing.T) {
	e := start(t)
	ctx := newBrowser(t)
	shots := screenshotDir(t)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Roll out the new cache?", ResponseSchema: json.RawMessage(rolloutSchema)})
	do(t, ctx,
		chromedp.Navigate(e.URL+"/login"),
		chromedp.SendKeys(chromedp.CSS("#token"), e.responderToken),
		chromedp.Submit(chromedp.CSS("#token")),
		chromedp.WaitVisible(chromedp.CSS("#tabs")),
		chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID)),
		chromedp.WaitVisible(chromedp.CSS(`input[name="answer/replicas"]`)),
	)
	screenshot(t, ctx, shots, "form-hints.png")
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS(`input[name="answer/replicas"]`), "50"),
		chromedp.SendKeys(chromedp.CSS(`input[name="answer/owner"]`), "A"),
		chromedp.SendKeys(chromedp.CSS(`input[name="answer/canary"]`), "12.3"),
		chromedp.Click(chromedp.CSS(`#answer-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".field-error")),
	)
	// What each field's own box says: the error is in the same .field as the input.
	beside := get(t, ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries(
		["region", "replicas", "owner", "canary"].map(n => {
			const err = document.querySelector('[name="answer/' + n + '"]').closest('.field').querySelector('.field-error');
			return [n, err ? err.textContent : ""];
		}))`))
	for name, want := range map[string][]string{
		"region":   {"is required"},
		"replicas": {"must be at most 20"},
		"owner":    {"must be at least 2 characters long", "must use lower-case letters only (^[a-z]+$)"},
		"canary":   {"must be a multiple of 0.5"},
	} {
		for _, w := range want {
			if !strings.Contains(beside[name], w) {
				t.Errorf("%s: %q beside it, want %q", name, beside[name], w)
			}
		}
	}
	if e.inquiry(inq.ID).Status != hitl.StatusPending {
		t.Fatal("an invalid answer was recorded")
	}
	screenshot(t, ctx, shots, "form-errors.png")
	do(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	screenshot(t, ctx, shots, "form-errors-phone.png")
}
