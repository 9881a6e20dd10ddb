package web_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// An inquiry's page shows its escalation ladder: the steps reached, the latest highlighted,
// and when the next comes, in the time zone the viewer set.
func TestInquiryPageShowsTheLadderInTheViewersZone(t *testing.T) {
	clk := clock.NewManual(time.Date(2026, time.November, 26, 10, 0, 0, 0, time.UTC))
	e := start(t, testserver.Configure(func(c *server.Config) { c.Clock = clk }))
	if _, err := e.Admin.PutPerson(context.Background(), "ada", &hitl.PersonRequest{Email: "ada@example.com", TimeZone: "Asia/Tokyo"}); err != nil {
		t.Fatal(err)
	}
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Roll back?", AssignedTo: []string{"ada"}, Priority: hitl.PriorityUrgent, TimeoutSeconds: new(int64(6 * 3600)),
		Escalate: []hitl.EscalationStepRequest{
			{After: "1h", AssignedTo: hitl.Assignees{"bob"}},
			{After: "2h", AssignedTo: hitl.Assignees{"group:leads"}, Channels: []string{"slack"}},
			{After: "3h", AssignedTo: hitl.Assignees{"cid"}},
		}})
	clk.Advance(time.Hour)
	testserver.Eventually(t, 5*time.Second, "step 1", func() bool {
		l := e.inquiry(inq.ID).Escalation
		return l != nil && l.Reached == 1
	})
	// A viewer without a zone renders the page first: the zoned page is still made (a
	// template that has run cannot be cloned).
	_, utcToken := e.keyToken("bob", hitl.RoleResponder)
	if utc := e.signedIn(utcToken).get(fmt.Sprintf("/inquiries/%d", inq.ID)).body; !strings.Contains(utc, "Roll back?") || !strings.Contains(utc, " UTC") {
		t.Fatalf("the page of a viewer without a zone shows no UTC time:\n%s", utc)
	}
	page := e.signedIn(e.responderToken).get(fmt.Sprintf("/inquiries/%d", inq.ID)).body
	if !strings.Contains(page, `data-time-zone="Asia/Tokyo"`) {
		t.Fatal("the page does not tell its script the viewer's zone")
	}
	steps := regexp.MustCompile(`(?s)<li class="step ([a-z-]+)" data-step="(\d)"( aria-current="step")?>(.*?)</li>`).FindAllStringSubmatch(page, -1)
	if len(steps) != 3 {
		t.Fatalf("%d steps on the page:\n%s", len(steps), page)
	}
	text := func(i int) string {
		return strings.Join(strings.Fields(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(steps[i][4], "")), " ")
	}
	// 11:00 UTC is 20:00 in Tokyo, 12:00 UTC 21:00.
	want := []struct{ class, current, says string }{
		{"step-current", ` aria-current="step"`, "Step 1, after 1h: adds bob reached at 2026-11-26 20:00:00 JST"},
		{"step-waiting", "", "Step 2, after 2h: adds the group leads by slack next, at 2026-11-26 21:00:00 JST"},
		{"step-waiting", "", "Step 3, after 3h: adds cid waiting"},
	}
	for i, w := range want {
		if steps[i][1] != w.class || steps[i][3] != w.current || text(i) != w.says {
			t.Errorf("step %d: class %q%s, %q; want %q%s, %q", i+1, steps[i][1], steps[i][3], text(i), w.class, w.current, w.says)
		}
	}
	if !strings.Contains(page, "Then the deadline at") {
		t.Error("the ladder does not end with the deadline")
	}
	clk.Advance(time.Hour)
	testserver.Eventually(t, 5*time.Second, "step 2 highlighted", func() bool {
		page := e.signedIn(e.responderToken).get(fmt.Sprintf("/inquiries/%d", inq.ID)).body
		return strings.Contains(page, `data-step="2" aria-current="step"`) && strings.Contains(page, `class="step step-done" data-step="1"`)
	})
}

// In a browser, times show in the zone the viewer set, not the browser's own.
func TestTheBrowserShowsTimesInTheViewersZone(t *testing.T) {
	e := start(t)
	ctx := newBrowser(t)
	inTokyo(t, ctx) // the browser's own zone, which the person's setting overrides
	if _, err := e.Admin.PutPerson(context.Background(), "ada", &hitl.PersonRequest{Email: "ada@example.com", TimeZone: "America/New_York"}); err != nil {
		t.Fatal(err)
	}
	signInWithForm(t, ctx, e.URL, e.responderToken)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Which region first?", Options: []hitl.Option{{Value: "eu"}, {Value: "us"}}, TimeoutSeconds: new(int64(3 * 3600))})
	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID)), chromedp.WaitVisible(chromedp.CSS("#answer-form")))
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	due := inq.TimeoutAt.In(newYork)
	_, offset := due.Zone() // GMT-5 in winter, GMT-4 in summer
	at := timeShown(t, ctx, ".facts time.clock")
	if got := spaced(at.Text); !strings.Contains(got, due.Format("15:04")) || !strings.Contains(got, fmt.Sprintf("GMT%+d", offset/3600)) ||
		at.Title != inq.TimeoutAt.UTC().Format("2006-01-02 15:04:05 UTC") {
		t.Errorf("the deadline shows as %q (hover: %q); want %s in New York", at.Text, at.Title, due.Format("2 Jan 2006 15:04"))
	}
}
