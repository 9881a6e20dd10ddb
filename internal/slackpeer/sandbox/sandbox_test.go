package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/slack"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/slackpeer"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// The whole Slack loop on one machine, as docs/slack.md walks it: hitl posts an approval to
// the sandbox, the sandbox's page shows it with its buttons, and a click there answers the
// inquiry as the Slack user's hitl person.
func TestSandboxRunsTheSlackLoop(t *testing.T) {
	ctx := context.Background()
	box := newSandbox(slackpeer.NewPeer(), "", "U0001")
	web := httptest.NewServer(box.routes())
	defer web.Close()
	e := testserver.Start(t, testserver.Configure(func(c *server.Config) {
		c.Slack = slack.Config{BotToken: slackpeer.BotToken, SigningSecret: slackpeer.SigningSecret, APIURL: web.URL + "/api/"}
	}))
	box.hitlURL = e.URL
	if _, err := e.Admin.PutPerson(ctx, "alice", &hitl.PersonRequest{SlackUserID: "U0001"}); err != nil {
		t.Fatal(err)
	}
	e.Key(hitl.KeyRequest{Name: "alice", Roles: []string{hitl.RoleResponder}})
	agent, _ := e.Key(hitl.KeyRequest{Name: "bot", Roles: []string{hitl.RoleAgent}})
	inq, _, err := agent.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "Deploy v2 to production?", RequestType: hitl.RequestApproval, AssignedTo: []string{"alice"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	var page string
	testserver.Eventually(t, 10*time.Second, "the approval on the sandbox's page", func() bool {
		page = get(t, web.URL+"/")
		return strings.Contains(page, "Deploy v2 to production?") && strings.Contains(page, ">Approve</button>")
	})
	if n := strings.Count(page, "Approve"); n != 1 {
		t.Errorf("the page says Approve %d times; want once, as its button:\n%s", n, page)
	}
	msgs := box.messages()
	index := -1
	for _, b := range msgs[0].Buttons {
		if b.Text == "Approve" {
			index = b.Index
		}
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.PostForm(web.URL+"/click", url.Values{"channel": {msgs[0].Channel}, "ts": {msgs[0].TS}, "button": {strconv.Itoa(index)}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the click: %s", resp.Status)
	}
	if after := get(t, web.URL+"/"); !strings.Contains(after, "hitl took the click on Approve") {
		t.Fatalf("the page after the click does not say hitl took it:\n%s", after)
	}
	got, err := e.Admin.Inquiry(ctx, inq.ID)
	if err != nil {
		t.Fatal(err)
	}
	var answer struct{ Approved bool }
	json.Unmarshal(got.Response, &answer)
	if got.Status != hitl.StatusResponded || !answer.Approved || got.RespondedBy == nil || *got.RespondedBy != "alice" {
		t.Fatalf("after the click the inquiry is %s, answered %s; want approved by alice", got.Status, got.Response)
	}

	// A button that is not there says so.
	resp, err = noRedirect.PostForm(web.URL+"/click", url.Values{"channel": {"C404"}, "ts": {"1"}, "button": {"0"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a click on no button: %s, want 404", resp.Status)
	}
}

func get(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
