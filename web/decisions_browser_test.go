package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// In a real browser: opening a question in the inbox records the first view; the Stats page
// then charts the time to decision by person and by tool (an SVG drawn by the server, with its
// values in text), and tables the first view and the decisions made too fast to have read.
func TestDecisionAnalyticsInABrowser(t *testing.T) {
	clk := clock.NewManual(time.Now().UTC().Truncate(time.Hour))
	e := start(t, testserver.Configure(func(c *server.Config) { c.Clock = clk }))
	long := json.RawMessage(`{"runbook":"` + strings.Repeat("step ", 200) + `"}`) // 200 words: 50 s of reading
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Restart the queue?", RequestType: hitl.RequestApproval, Context: long,
		ToolCall:         &hitl.ToolCall{ID: "c", Name: "restart_queue", Arguments: json.RawMessage(`{"force":true}`)},
		AllowedDecisions: []hitl.Decision{hitl.DecisionApprove, hitl.DecisionReject}})
	clk.Advance(90 * time.Second)
	b := newBrowser(t)
	signInWithForm(t, b, e.URL, e.responderToken)
	do(t, b, chromedp.Navigate(fmt.Sprintf("%s/inquiries/%d", e.URL, inq.ID)), chromedp.WaitVisible(chromedp.CSS("#answer-form")))
	clk.Advance(5 * time.Second)
	if _, err := e.responder.Respond(context.Background(), inq.ID, json.RawMessage(`{"decision":"approve"}`), ""); err != nil {
		t.Fatal(err)
	}
	do(t, b, chromedp.Navigate(e.URL+"/stats?since=7d"), chromedp.WaitVisible(chromedp.CSS("#decisions")))
	waitText(t, b, "#chart-decisions-tool", "restart_queue")
	waitText(t, b, "#chart-decisions-person", "ada")
	waitText(t, b, "#chart-decisions-person", "5 s / 5 s")
	row := text(t, b, "#figures-decisions-person tbody tr")
	for _, want := range []string{"ada", "1 min 30 s / 1 min 30 s", "100%"} {
		if !strings.Contains(row, want) {
			t.Errorf("person row %q lacks %q", row, want)
		}
	}
	if got := text(t, b, "#figures-decisions-person .too-fast"); got != "1" {
		t.Errorf("too fast: %q", got)
	}
	if n := get(t, b, chromedp.Evaluate[int](`document.querySelectorAll("#chart-decisions-tool rect").length`)); n != 2 {
		t.Errorf("%d bars", n)
	}
}
