package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
)

// The Stats page to those who may not see it, and with a window that is not one.
func TestStatsPageRefuses(t *testing.T) {
	e := start(t)
	if r := e.browser().get("/stats"); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login") {
		t.Fatalf("signed out: %d %s", r.status, r.header.Get("Location"))
	}
	_, agentToken := e.keyToken("nosy-bot", hitl.RoleAgent)
	agent := e.browser()
	agent.signIn(agentToken)
	r := agent.get("/stats")
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "stats need the admin or the responder role") {
		t.Fatalf("an agent: %d %s", r.status, r.body)
	}
	if strings.Contains(agent.get("/").body, `href="/stats"`) {
		t.Error("the agent's inbox links to the stats it may not see")
	}
	admin := e.browser()
	admin.signIn(adminToken)
	for _, since := range []string{"forever", "-7d", "0s", "400d", strings.Repeat("9", 300) + "d"} {
		r := admin.get("/stats?since=" + since)
		if r.status != http.StatusBadRequest || !strings.Contains(r.body, "since must be a duration of more than 0s and at most 366d") || len(r.body) > 20000 {
			t.Errorf("since=%.20s: %d %s", since, r.status, r.body)
		}
	}
	if r := admin.get("/stats?since=7d&since=1d"); r.status != http.StatusBadRequest || !strings.Contains(r.body, "since is given 2 times; give it once") {
		t.Errorf("since twice: %d %.300s", r.status, r.body)
	}
	r = admin.get("/stats?since=30d")
	if r.status != http.StatusOK || !strings.Contains(r.body, `<option value="30d" selected>`) || !strings.Contains(r.body, "No answers in this window.") ||
		!strings.Contains(r.body, `href="/stats" id="nav-stats" aria-current="page"`) {
		t.Errorf("an empty window: %d %s", r.status, r.body)
	}
}
