package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
)

// What an agent logs to its session, and its abandoning the run (OpenIntent's log() and
// abandon()), read in the session's timeline.
func TestTheTimelineShowsWhatTheAgentLogged(t *testing.T) {
	e := start(t)
	agent, token := e.keyToken("refund-agent", hitl.RoleAgent)
	if _, err := agent.PutSession(context.Background(), "refund-5", &hitl.SessionRequest{Agent: "refund-agent"}); err != nil {
		t.Fatal(err)
	}
	for _, call := range [][2]string{
		{"events", `{"event_type": "comment", "payload": {"message": "Suspension 3 expired"}}`},
		{"status", `{"status": "abandoned", "reason": "No operator response"}`},
	} {
		path, body := call[0], call[1]
		req, _ := http.NewRequest("POST", e.URL+"/api/v1/intents/refund-5/"+path, strings.NewReader(body))
		req.Header.Set("X-API-Key", token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %v %v", path, resp, err)
		}
		resp.Body.Close()
	}
	page := e.signedIn(adminToken).get("/sessions/refund-5").body
	for _, want := range []string{
		`<strong>refund-agent</strong> logged comment: <q>Suspension 3 expired</q>`,
		`<strong>refund-agent</strong> marked the session failed: No operator response`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the timeline does not say %q:\n%s", want, page)
		}
	}
}
