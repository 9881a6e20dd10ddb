package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// statsWeek fills a server with a week of questions: answers of every request type by three
// people in two groups, deadlines that passed (some falling back), and one still waiting.
func statsWeek(t *testing.T) (*env, *clock.Manual) {
	// Noon (UTC) six days ago: each day's questions and the two hours after the last stay
	// within their day, whatever the hour the test runs at (at 22:00 they crossed midnight and
	// every bar moved one day on).
	first := time.Now().UTC().Truncate(24 * time.Hour).Add(-6*24*time.Hour + 12*time.Hour)
	clk := clock.NewManual(first)
	e := start(t, testserver.Configure(func(c *server.Config) { c.Clock = clk }))
	ctx := context.Background()
	grace, _ := e.Key(hitl.KeyRequest{Name: "grace", Roles: []string{hitl.RoleResponder}, Groups: []string{"ops"}})
	linus, _ := e.Key(hitl.KeyRequest{Name: "linus", Roles: []string{hitl.RoleResponder}, Groups: []string{"sre"}})
	people := []struct {
		c      *client.Client
		assign []string
	}{{e.responder, nil}, {grace, []string{"group:ops"}}, {linus, []string{"group:sre"}}}
	kinds := []struct {
		req    hitl.InquiryRequest
		answer string
	}{
		{hitl.InquiryRequest{Prompt: "Deploy api v2.5 to production?", RequestType: hitl.RequestApproval}, `{"approved":true}`},
		{hitl.InquiryRequest{Prompt: "Which region first?", RequestType: hitl.RequestSelection, Options: []hitl.Option{{Value: "eu"}, {Value: "us"}}}, `"eu"`},
		{hitl.InquiryRequest{Prompt: "What should the release note say?"}, `"Faster retries"`},
		{hitl.InquiryRequest{Prompt: "Did you mean staging?", RequestType: hitl.RequestClarification}, `"yes"`},
	}
	asked := 0
	for day := range 7 {
		clk.Advance(first.Add(time.Duration(day) * 24 * time.Hour).Sub(clk.Now()))
		for j := range 1 + day%3 {
			k, who := kinds[asked%len(kinds)], people[asked%len(people)]
			asked++
			req := k.req
			req.AssignedTo = who.assign
			inq := e.ask(&req)
			clk.Advance(time.Duration(j+1+day) * 70 * time.Second)
			if _, err := who.c.Respond(ctx, inq.ID, json.RawMessage(k.answer), ""); err != nil {
				t.Fatal(err)
			}
		}
		if day%2 == 0 {
			deadline := int64(600)
			req := &hitl.InquiryRequest{Prompt: "Roll back the canary?", AssignedTo: []string{"group:ops"}, TimeoutSeconds: &deadline}
			if day%4 == 0 {
				req.FallbackPolicy, req.FallbackValue = hitl.FallbackCompleteWithFallback, json.RawMessage(`"no"`)
			}
			inq := e.ask(req)
			clk.Advance(11 * time.Minute)
			testserver.Eventually(t, 10*time.Second, "the deadline passed", func() bool { return e.inquiry(inq.ID).Status == hitl.StatusTimeout })
		}
	}
	e.ask(&hitl.InquiryRequest{Prompt: "Rotate the database password?", AssignedTo: []string{"group:sre"}})
	clk.Advance(2 * time.Hour)
	return e, clk
}

// The Stats page in a browser: the navigation leads to it, its charts are drawn from the
// numbers, each with a title and its values in text, it works without scripts, and the window
// can be changed. A responder sees its own numbers.
func TestStatsPageInABrowser(t *testing.T) {
	e, _ := statsWeek(t)
	ctx := newBrowser(t)
	shots := screenshotDir(t)
	signInWithForm(t, ctx, e.URL, adminToken)
	do(t, ctx, chromedp.Click(chromedp.CSS("#nav-stats")), chromedp.WaitVisible(chromedp.CSS("#chart-days")))
	if cur := get(t, ctx, chromedp.AttributeValue(chromedp.CSS("#nav-stats"), "aria-current")).Value; cur != "page" {
		t.Errorf("the Stats link is not marked as the current page: %q", cur)
	}
	facts := map[string]string{"answered": "13", "timed_out": "4 (2 fell back)", "cancelled": "0", "pending": "1"}
	for stat, want := range facts {
		if got := strings.Join(strings.Fields(text(t, ctx, fmt.Sprintf(`[data-stat=%q]`, stat))), " "); got != want {
			t.Errorf("%s shows %q, want %q", stat, got, want)
		}
	}
	if got := text(t, ctx, `[data-stat="oldest"]`); !strings.HasSuffix(got, "for 2 h") {
		t.Errorf("the oldest waiting: %q", got)
	}

	type chart struct {
		Role, Title, Desc string
		Marks             int
		Labels            []string
	}
	read := func(id, marks string) chart {
		js := fmt.Sprintf(`(() => { const s = document.getElementById(%q); return {
			Role: s.getAttribute('role'), Title: s.querySelector(':scope > title').textContent, Desc: s.querySelector(':scope > desc').textContent,
			Marks: s.querySelectorAll(%q).length,
			Labels: [...s.querySelectorAll('text')].map(t => t.textContent) }; })()`, id, marks)
		return get(t, ctx, chromedp.Evaluate[chart](js))
	}
	days := read("chart-days", "g.day")
	if days.Role != "img" || days.Title != "Answers per day" || days.Marks != 8 || !strings.Contains(days.Desc, "17 answered or timed out over 8 days") {
		t.Errorf("the days' chart: %+v", days)
	}
	// Each bar is as tall as its day's answers and timeouts, the busiest the tallest.
	heights := get(t, ctx, chromedp.Evaluate[[]float64](`[...document.querySelectorAll('#chart-days g.day')].map(g =>
		[...g.querySelectorAll('rect')].reduce((h, r) => h + r.getBBox().height, 0))`))
	if len(heights) != 8 || heights[0] != 0 || heights[3] != 160 || heights[3] <= heights[2] || heights[7] == 0 {
		t.Errorf("bar heights %v: the first day has none, the fourth (3 answers, 1 timeout) is the tallest", heights)
	}
	byType := read("chart-type", "g.times")
	if byType.Marks != 4 || !strings.Contains(strings.Join(byType.Labels, "|"), "approval|") {
		t.Errorf("by request type: %+v", byType)
	}
	byGroup := read("chart-group", "g.times")
	if byGroup.Marks != 2 || byGroup.Labels[0] != "ops" && byGroup.Labels[0] != "sre" {
		t.Errorf("by group: %+v", byGroup)
	}
	if rows := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll('#table-responder tbody tr').length`)); rows != 3 {
		t.Errorf("the responders' table has %d rows, want 3", rows)
	}
	screenshot(t, ctx, shots, "stats.png")
	docsPicture(t, ctx, "inbox-stats.png") // the picture of the Stats page in the docs

	// Another window, by the form.
	do(t, ctx, chromedp.SetValue(chromedp.CSS("#since"), "24h"))
	submit, cancel := context.WithTimeout(ctx, step)
	defer cancel()
	// The submit loads the new page before anything is read of it: an element of the old
	// page, gone as it is read, is no element of the new.
	if _, err := chromedp.RunResponse(submit, chromedp.Submit(chromedp.CSS("#since"))); err != nil {
		t.Fatalf("browser: %v", err)
	}
	do(t, ctx, chromedp.WaitReady(chromedp.CSS(`#since option[value="24h"][selected]`)))
	if got := text(t, ctx, `[data-stat="answered"]`); got != "1" {
		t.Errorf("answered in the last 24 hours: %q, want 1", got)
	}
	if n := read("chart-days", "g.day").Marks; n != 2 {
		t.Errorf("the last 24 hours have %d days, want 2", n)
	}

	// Without scripts the page is the same: the charts are drawn on the server.
	noScript := newTab(t, ctx, false)
	do(t, noScript, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}), chromedp.Navigate(e.URL+"/stats?since=7d"), chromedp.WaitVisible(chromedp.CSS("#chart-days")))
	if n := get(t, noScript, chromedp.Evaluate[int](`document.querySelectorAll('#chart-days g.day rect').length`)); n != 16 {
		t.Errorf("without scripts: %d bars, want 16", n)
	}

	// A responder sees its own.
	mine := newTab(t, ctx, true)
	_, graceToken := e.Key(hitl.KeyRequest{Name: "grace", Roles: []string{hitl.RoleResponder}, Groups: []string{"ops"}})
	signInWithForm(t, mine, e.URL, graceToken)
	do(t, mine, chromedp.Click(chromedp.CSS("#nav-stats")), chromedp.WaitVisible(chromedp.CSS("#chart-days")))
	if got := text(t, mine, "#stats-scope"); !strings.HasPrefix(got, "Your own inquiries") {
		t.Errorf("grace's scope: %q", got)
	}
	if got := strings.Join(strings.Fields(text(t, mine, `[data-stat="timed_out"]`)), " "); got != "4 (2 fell back)" {
		t.Errorf("grace's timeouts (all assigned to her group): %q", got)
	}
	if got := text(t, mine, `[data-stat="pending"]`); got != "0" {
		t.Errorf("grace's waiting: %q", got)
	}
}
