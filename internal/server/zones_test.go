package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/slackpeer"
)

// inZone is t as a person in zone reads it, in layout.
func inZone(t *testing.T, at time.Time, zone, layout string) string {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	must(t, err)
	return at.In(loc).Format(layout)
}

// An email shows the deadline in the time zone of the person it goes to.
func TestEmailShowsTheDeadlineInThePersonsZone(t *testing.T) {
	m := startMailEnv(t, nil)
	res, err := http.DefaultClient.Do(m.request(t, http.MethodPut, "/v1/people/ada", `{"email": "ada@example.com", "time_zone": "America/New_York"}`))
	must(t, err)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("PUT /v1/people/ada: %s", res.Status)
	}
	agent := m.principal("deploy-bot", []string{hitl.RoleAgent})
	deadline := time.Now().Add(30 * time.Hour).UTC().Truncate(time.Minute)
	ask(t, agent, hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}, TimeoutAt: &deadline})
	got := m.relay.Next(t)
	want := "answer by " + inZone(t, deadline, "America/New_York", "15:04 MST")
	if !strings.Contains(got.Text, want) || strings.Contains(got.Text, deadline.Format("15:04 UTC")) {
		t.Fatalf("the email does not say %q in New York's time:\n%s", want, got.Text)
	}
}

// A Slack message to a person shows the deadline in their time zone.
func TestSlackShowsTheDeadlineInThePersonsZone(t *testing.T) {
	s := newSlackEnv(t)
	if r := s.do("PUT", "/v1/people/ada", adminToken, `{"slack_user_id":"U0ADA","time_zone":"Asia/Tokyo"}`); r.status != http.StatusOK {
		t.Fatalf("PUT /v1/people/ada: %d %s", r.status, r.text)
	}
	deadline := time.Now().Add(30 * time.Hour).UTC().Truncate(time.Minute)
	ask(t, s.agent, hitl.InquiryRequest{Prompt: "Deploy?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}, TimeoutAt: &deadline})
	texts := slackpeer.Texts(s.posted(1).Blocks(t))
	want := inZone(t, deadline, "Asia/Tokyo", "Mon 2 Jan 2006 15:04 MST")
	if !strings.Contains(texts, want) || !strings.Contains(want, "JST") {
		t.Fatalf("the message does not say %q: %s", want, texts)
	}
}
