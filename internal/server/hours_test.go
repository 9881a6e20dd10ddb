package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// A person's time zone and working hours, and an inquiry's priority and ladder, over HTTP:
// what is accepted shows as given, and each bad field is refused with its path, changing
// nothing. (Refused requests are 400 invalid, as every refused request body in hitl's API;
// 422 is for answers that fail their schema.)
func TestWorkingHoursAndLaddersOverHTTP(t *testing.T) {
	e := newEnv(t)
	admin := adminToken
	agent := e.token("bot", hitl.RoleAgent)

	r := e.do("PUT", "/v1/people/ann", admin, `{"email":"ann@example.com","time_zone":"Europe/Berlin","working_hours":{"mon":["09:00","17:00"],"fri":["08:30","12:00"]}}`)
	if r.status != 200 || r.body["time_zone"] != "Europe/Berlin" || !strings.Contains(r.text, `"fri":["08:30","12:00"]`) {
		t.Fatalf("put ann: %d %s", r.status, r.text)
	}
	people := []struct {
		name, body, path, says string
	}{
		{"unknown zone", `{"time_zone":"Europe/Atlantis"}`, "/time_zone", `"Europe/Atlantis" is not a time zone`},
		{"the server's local zone", `{"time_zone":"Local"}`, "/time_zone", "is not a time zone"},
		{"unknown day", `{"working_hours":{"monday":["09:00","17:00"]}}`, "/working_hours/monday", "is not a day"},
		{"a start that is no time", `{"working_hours":{"tue":["9:00","17:00"]}}`, "/working_hours/tue/0", "HH:MM"},
		{"an end that is no time", `{"working_hours":{"tue":["09:00","25:00"]}}`, "/working_hours/tue/1", "HH:MM"},
		{"start after end", `{"working_hours":{"wed":["18:00","09:00"]}}`, "/working_hours/wed", "not before its end"},
		{"an empty window", `{"working_hours":{"wed":["09:00","09:00"]}}`, "/working_hours/wed", "not before its end"},
		{"three times", `{"working_hours":{"thu":["09:00","12:00","17:00"]}}`, "/working_hours/thu", "one window"},
	}
	for _, tc := range people {
		r := e.do("PUT", "/v1/people/ann", admin, tc.body)
		if r.status != 400 || r.code() != "invalid" || r.unlisted([]string{tc.path}) != "" || !strings.Contains(fmt.Sprint(r.body["detail"]), tc.says) {
			t.Fatalf("%s: %d %s", tc.name, r.status, r.text)
		}
	}
	if r := e.do("PUT", "/v1/people/ann", admin, `{"working_hours":{"mon":"09:00-17:00"}}`); r.status != 400 || r.code() != "invalid" {
		t.Fatalf("hours as a string: %d %s", r.status, r.text)
	}
	ann, err := e.Admin.Person(ctx, "ann")
	must(t, err)
	if ann.TimeZone != "Europe/Berlin" || len(ann.WorkingHours) != 2 || ann.Email != "ann@example.com" {
		t.Fatalf("a refused put changed ann: %+v", ann)
	}

	r = e.do("POST", "/v1/inquiries", agent, `{"prompt":"Ship?","assigned_to":["ann"],"priority":"urgent","timeout_seconds":36000,
		"escalate":[{"after":"1h","assigned_to":["bob"]},{"after":"2h","assigned_to":["group:leads"],"channels":["slack","chat_webhook","webpush"]}]}`)
	if r.status != 201 || r.body["priority"] != "urgent" || r.body["escalate_after"] != "1h" || fmt.Sprint(r.body["escalate_to"]) != "[bob]" {
		t.Fatalf("create with a ladder: %d %s", r.status, r.text)
	}
	ladder := r.body["escalation"].(map[string]any)
	steps := ladder["steps"].([]any)
	if len(steps) != 2 || ladder["reached"] != float64(0) || ladder["next_at"] == nil ||
		fmt.Sprint(steps[1].(map[string]any)["channels"]) != "[slack chat_webhook webpush]" || steps[1].(map[string]any)["after"] != "2h" {
		t.Fatalf("ladder: %s", r.text)
	}

	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = fmt.Sprintf(`{"after":"%dm","assigned_to":["bob"]}`, i+1)
	}
	inquiries := []struct {
		name, body, path, says string
	}{
		{"ladder and escalate_after", `{"prompt":"x","escalate_after":"1h","escalate_to":["bob"],"escalate":[{"after":"1h","assigned_to":["bob"]}]}`, "/escalate", "not both"},
		{"steps out of order", `{"prompt":"x","escalate":[{"after":"2h","assigned_to":["bob"]},{"after":"1h","assigned_to":["cid"]}]}`, "/escalate/1/after", "step 2: 1h must come after"},
		{"steps at the same time", `{"prompt":"x","escalate":[{"after":"1h","assigned_to":["bob"]},{"after":"60m","assigned_to":["cid"]}]}`, "/escalate/1/after", "increasing"},
		{"a step at zero", `{"prompt":"x","escalate":[{"after":"0s","assigned_to":["bob"]}]}`, "/escalate/0/after", "more than 0s"},
		{"a step that is no duration", `{"prompt":"x","escalate":[{"after":"soon","assigned_to":["bob"]}]}`, "/escalate/0/after", "duration"},
		{"a step after the deadline", `{"prompt":"x","timeout_seconds":3600,"escalate":[{"after":"30m","assigned_to":["bob"]},{"after":"2h","assigned_to":["cid"]}]}`, "/escalate/1/after", "before the deadline"},
		{"an unknown channel", `{"prompt":"x","escalate":[{"after":"1h","assigned_to":["bob"],"channels":["pager"]}]}`, "/escalate/0/channels/0", `"pager" is not a channel`},
		{"a channel twice", `{"prompt":"x","escalate":[{"after":"1h","assigned_to":["bob"],"channels":["email","email"]}]}`, "/escalate/0/channels/1", "listed twice"},
		{"a step without people", `{"prompt":"x","escalate":[{"after":"1h"}]}`, "/escalate/0/assigned_to", "is required"},
		{"a pool in a step", `{"prompt":"x","escalate":[{"after":"1h","assigned_to":["pool:ops"]}]}`, "/escalate/0/assigned_to", "pools"},
		{"too many steps", `{"prompt":"x","escalate":[` + strings.Join(eleven, ",") + `]}`, "/escalate", "at most 10"},
		{"a chain that escalates", `{"prompt":"x","request_type":"approval","steps":[{"assigned_to":["bob"]}],"escalate":[{"after":"1h","assigned_to":["cid"]}]}`, "/escalate", "does not escalate"},
		{"an unknown priority", `{"prompt":"x","priority":"low"}`, "/priority", `"low" is not a priority`},
		{"an unknown step field", `{"prompt":"x","escalate":[{"after":"1h","assigned_to":["bob"],"notify":["email"]}]}`, "/escalate/0/notify", "unknown"},
	}
	for _, tc := range inquiries {
		r := e.do("POST", "/v1/inquiries", agent, tc.body)
		if r.status != 400 || r.code() != "invalid" || r.unlisted([]string{tc.path}) != "" || !strings.Contains(fmt.Sprint(r.body["detail"]), tc.says) {
			t.Fatalf("%s: %d %s", tc.name, r.status, r.text)
		}
	}
	page, err := e.Admin.Inquiries(ctx, client.ListOptions{})
	must(t, err)
	if len(page.Data) != 1 {
		t.Fatalf("%d inquiries stored, want the one accepted", len(page.Data))
	}
}

// Two nodes hold every ladder's timers and fire together: each step fires once, in order.
func TestLadderStepsExactlyOnceAcrossNodes(t *testing.T) {
	const n = 10
	c, clk, _ := timedCluster(t, n, func(i int) hitl.InquiryRequest {
		return hitl.InquiryRequest{Prompt: fmt.Sprintf("q%d", i), AssignedTo: []string{"vic"},
			Escalate: []hitl.EscalationStepRequest{{After: "1m", AssignedTo: hitl.Assignees{"ops"}}, {After: "2m", AssignedTo: hitl.Assignees{"lead"}}}}
	})
	fire := func(want int) []*hitl.Event {
		t.Helper()
		clk.Advance(time.Minute)
		var evs []*hitl.Event
		eventually(t, fmt.Sprintf("%d escalations", want), func() bool {
			evs = c.events(t, hitl.EventInquiryEscalated)
			return len(evs) >= want
		})
		return evs
	}
	fire(n)
	fire(2 * n)
	clk.Advance(time.Minute) // a duplicate of the two rounds would be in the log once a third settled
	evs := fire(2 * n)
	steps := map[int64][]int{}
	for _, ev := range evs {
		var d struct {
			Step  int      `json:"step"`
			Added []string `json:"added"`
		}
		must(t, json.Unmarshal(ev.Data, &d))
		steps[*ev.InquiryID] = append(steps[*ev.InquiryID], d.Step)
	}
	if len(evs) != 2*n || len(steps) != n {
		t.Fatalf("%d escalations over %d inquiries", len(evs), len(steps))
	}
	for id, s := range steps {
		if fmt.Sprint(s) != "[1 2]" {
			t.Fatalf("inquiry %d: steps %v", id, s)
		}
	}
}
