package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// What the pages show, read from their HTML: the parts of the layout that need no browser.

// signedIn is a cookie browser signed in with token.
func (e *env) signedIn(token string) *browser {
	b := e.browser()
	b.signIn(token)
	return b
}

// respond answers an inquiry as the responder, ada.
func (e *env) respond(id int64, answer, comment string) {
	e.t.Helper()
	if _, err := e.responder.Respond(context.Background(), id, json.RawMessage(answer), comment); err != nil {
		e.t.Fatal(err)
	}
}

// activeTab is the label of the inbox tab a page marks as the current one.
func activeTab(t *testing.T, page response) string {
	t.Helper()
	m := regexp.MustCompile(`aria-current="page">([^<]+)<`).FindStringSubmatch(page.body)
	if m == nil {
		t.Fatalf("no tab is current:\n%s", page.body)
	}
	return strings.TrimSpace(m[1])
}

func TestTheTimelineShowsAnApprovalsCommentOnce(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	if _, err := e.agent.PutSession(ctx, "release-7", &hitl.SessionRequest{Agent: "deploy-bot"}); err != nil {
		t.Fatal(err)
	}
	// hitl respond --approve --comment puts the comment in the answer and beside it.
	same := e.ask(&hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval, Session: "release-7"})
	e.respond(same.ID, `{"approved":true,"comment":"checks are green"}`, "checks are green")
	// Two different comments are both shown.
	different := e.ask(&hitl.InquiryRequest{Prompt: "Roll back?", RequestType: hitl.RequestApproval, Session: "release-7"})
	e.respond(different.ID, `{"approved":false,"comment":"too early"}`, "ask again at noon")

	b := e.signedIn(e.responderToken)
	timeline := b.get("/sessions/release-7").body
	for text, want := range map[string]int{"checks are green": 1, "too early": 1, "ask again at noon": 1} {
		if n := strings.Count(timeline, text); n != want {
			t.Errorf("the timeline says %q %d times, want %d", text, n, want)
		}
	}
	if page := b.get(fmt.Sprintf("/inquiries/%d", same.ID)).body; strings.Count(page, "checks are green") != 1 {
		t.Errorf("the inquiry page says the comment %d times", strings.Count(page, "checks are green"))
	}
}

func TestTheAnsweredTabSaysWhoAnsweredWhat(t *testing.T) {
	e := start(t)
	venue := e.ask(&hitl.InquiryRequest{Prompt: "Which venue?", Options: []hitl.Option{{Value: "oslo", Label: "Oslo"}, {Value: "rome", Label: "Rome"}}})
	e.respond(venue.ID, `"oslo"`, "closer to the team")
	approval := e.ask(&hitl.InquiryRequest{Prompt: "Ship it?", RequestType: hitl.RequestApproval})
	e.respond(approval.ID, `{"approved":true,"comment":"green"}`, "green")

	page := e.signedIn(adminToken).get("/?tab=responded").body
	for id, want := range map[int64][]string{
		venue.ID:    {`answered by <strong>ada</strong>`, `<p class="answer-summary">Oslo — closer to the team</p>`},
		approval.ID: {`answered by <strong>ada</strong>`, `<p class="answer-summary">Approved — green</p>`},
	} {
		m := regexp.MustCompile(fmt.Sprintf(`(?s)<li class="row" id="inquiry-%d">.*?</li>`, id)).FindString(page)
		if m == "" {
			t.Fatalf("inquiry %d is not on the Answered tab:\n%s", id, page)
		}
		for _, w := range want {
			if !strings.Contains(m, w) {
				t.Errorf("the row of inquiry %d does not say %s:\n%s", id, w, m)
			}
		}
	}
}

func TestAResponderWithAssignedInquiriesLandsOnAssignedToMe(t *testing.T) {
	e := start(t)
	_, bobToken := e.keyToken("bob", hitl.RoleResponder)
	_, olgaToken := e.keyToken("olga", hitl.RoleAdmin)
	e.ask(&hitl.InquiryRequest{Prompt: "For ada and olga", AssignedTo: []string{"ada", "olga"}})
	e.ask(&hitl.InquiryRequest{Prompt: "For anyone"})

	for _, tc := range []struct {
		who, token, want string
	}{
		{"ada, who has an inquiry assigned", e.responderToken, "Assigned to me"},
		{"bob, who has nothing assigned", bobToken, "All pending"},
		{"olga, an admin (who oversees everything)", olgaToken, "All pending"},
	} {
		page := e.signedIn(tc.token).get("/")
		if got := activeTab(t, page); got != tc.want {
			t.Errorf("%s lands on %q, want %q", tc.who, got, tc.want)
		}
	}
	// The tab asked for is the tab shown.
	if got := activeTab(t, e.signedIn(e.responderToken).get("/?tab=pending")); got != "All pending" {
		t.Errorf("?tab=pending shows %q", got)
	}
}

func TestASingleChoicesCommentComesAfterItsOptions(t *testing.T) {
	e := start(t)
	venue := e.ask(&hitl.InquiryRequest{Prompt: "Which venue?", Options: []hitl.Option{{Value: "oslo"}, {Value: "rome"}}})
	page := e.signedIn(e.responderToken).get(fmt.Sprintf("/inquiries/%d", venue.ID)).body
	lastOption := strings.LastIndex(page, `name="answer" value="rome"`)
	comment := strings.Index(page, `name="comment"`)
	send := strings.Index(page, `>Send answer</button>`)
	if lastOption < 0 || comment < 0 || send < 0 || !(lastOption < comment && comment < send) {
		t.Fatalf("want the options, then the comment, then the send button; at %d, %d, %d:\n%s", lastOption, comment, send, page)
	}
}

// Who an inquiry is for reads as a sentence in the inbox, on its page and in the timeline.
func TestAssigneesInWords(t *testing.T) {
	e := start(t)
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Rotate the keys?", Session: "s-words", AssignedTo: []string{"ada", "group:sre"}})
	b := e.signedIn(e.AdminToken)
	for _, path := range []string{"/", fmt.Sprintf("/inquiries/%d", inq.ID), "/sessions/s-words"} {
		page := b.get(path).body
		if !strings.Contains(page, "ada and the group sre") || strings.Contains(page, "group:sre") {
			t.Errorf("%s does not say who the inquiry is for in words", path)
		}
	}
	if page := b.get("/sessions/s-words").body; !strings.Contains(page, "started the session") || strings.Contains(page, "updated the session") {
		t.Error("the timeline of a new session does not begin with its start")
	}
}

func TestTheTimelineSaysWhenAnInquiryWasRemindedAndEscalated(t *testing.T) {
	clk := clock.NewManual(time.Now())
	e := start(t, testserver.Configure(func(c *server.Config) { c.Clock = clk }))
	ctx := context.Background()
	if _, err := e.agent.PutSession(ctx, "release-8", &hitl.SessionRequest{Agent: "deploy-bot"}); err != nil {
		t.Fatal(err)
	}
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Ship it?", Session: "release-8", AssignedTo: []string{"ada"},
		RemindEvery: "1h", EscalateAfter: "2h", EscalateTo: []string{"bob", "group:leads"}})
	b := e.signedIn(e.responderToken)
	page := fmt.Sprintf("/inquiries/%d", inq.ID)
	for _, want := range []string{"every 1h, 0 sent; the next at", "to bob and the group leads when nobody has answered 2h after it was asked"} {
		if text := timelineText(b.get(page).body); !strings.Contains(text, want) {
			t.Errorf("the inquiry's page does not say %q:\n%s", want, text)
		}
	}
	for hour, says := range [][]string{
		{"No answer yet to “Ship it?”: reminded the assignees (1st reminder)"},
		{"No answer yet to “Ship it?”: escalated to bob and the group leads", "No answer yet to “Ship it?”: reminded the assignees (2nd reminder)"},
	} {
		clk.Advance(time.Hour)
		for _, want := range says {
			testserver.Eventually(t, 5*time.Second, fmt.Sprintf("hour %d: %s", hour+1, want), func() bool {
				return strings.Contains(timelineText(b.get("/sessions/release-8").body), want)
			})
		}
	}
	for _, want := range []string{"every 1h, 2 sent; the next at", "escalated to bob and the group leads at"} {
		if text := timelineText(b.get(page).body); !strings.Contains(text, want) {
			t.Errorf("the inquiry's page does not say %q:\n%s", want, text)
		}
	}
}

// timelineText is a page's text with its tags removed and its spaces collapsed.
func timelineText(page string) string {
	text := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(page, "")
	return strings.Join(strings.Fields(text), " ")
}
