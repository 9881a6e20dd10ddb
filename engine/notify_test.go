package engine_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// notifications lists what the outbox made of the log for an inquiry, as "reason channel address".
func notifications(t *testing.T, st hitl.Store, id int64) []string {
	t.Helper()
	ds, _, err := st.Deliveries(ctx, hitl.DeliveryFilter{Kind: hitl.DeliveryNotification, InquiryID: id, Page: hitl.Page{Limit: 100}})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = string(d.Reason) + " " + d.Channel + " " + d.Address
	}
	slices.Sort(out)
	return out
}

// appendInquiryEvent appends an event about inq with extra members beside the inquiry's, as
// the reminder and escalation timers do.
func appendInquiryEvent(t *testing.T, st hitl.Store, typ string, inq *hitl.Inquiry, extra map[string]any) {
	t.Helper()
	var data map[string]any
	b, _ := json.Marshal(inq)
	json.Unmarshal(b, &data)
	for k, v := range extra {
		data[k] = v
	}
	b, _ = json.Marshal(data)
	id := inq.ID
	err := st.Update(ctx, func(tx hitl.Tx) error {
		return tx.AppendEvent(&hitl.Event{ID: uuid.NewString(), Type: typ, Time: time.Now().UTC(), InquiryID: &id, Actor: "timer", Data: b})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRoutingFollowsTheInquiry: created → the assignees' channels; a reminder → the same
// recipients once per reminder; an escalation → the added assignees only; the answer → every
// recipient notified before, once.
func TestRoutingFollowsTheInquiry(t *testing.T) {
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(st, engine.Options{Notify: engine.NotifyOptions{Channels: []string{hitl.ChannelEmail, hitl.ChannelSlack}, PublicURL: "https://hitl.example"}})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { e.Stop(ctx); st.Close() }()
	if _, err := e.PutPerson(ctx, admin, "ada", &hitl.PersonRequest{Email: "ada@example.com", SlackUserID: "U0ADA"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.PutPerson(ctx, admin, "bob", &hitl.PersonRequest{Email: "bob@example.com", SlackUserID: "U0BOB", Channels: []string{"email"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.PutGroup(ctx, admin, "leads", &hitl.GroupRequest{SlackChannel: "C0LEADS"}); err != nil {
		t.Fatal(err)
	}
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	appendInquiryEvent(t, st, hitl.EventInquiryReminded, inq, map[string]any{"reminder": 1})
	appendInquiryEvent(t, st, hitl.EventInquiryReminded, inq, map[string]any{"reminder": 1}) // the same reminder, read twice
	appendInquiryEvent(t, st, hitl.EventInquiryEscalated, inq, map[string]any{"added": []string{"bob", "group:leads"}})
	ada := &hitl.Principal{Name: "ada", Roles: []string{hitl.RoleResponder}}
	if _, err := e.Respond(ctx, ada, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`)}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"created email ada@example.com", "created slack U0ADA",
		"escalation email bob@example.com", "escalation slack C0LEADS",
		"reminder email ada@example.com", "reminder slack U0ADA",
		"resolved email ada@example.com", "resolved email bob@example.com", "resolved slack C0LEADS", "resolved slack U0ADA",
	}
	var got []string
	if !testserver.WaitFor(10*time.Second, func() bool { got = notifications(t, st, inq.ID); return slices.Equal(got, want) }) {
		t.Fatalf("notifications:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The payload carries a personal answer link that opens as that person.
	ds, _, _ := st.Deliveries(ctx, hitl.DeliveryFilter{Kind: hitl.DeliveryNotification, InquiryID: inq.ID, Page: hitl.Page{Limit: 100}})
	for _, d := range ds {
		var n hitl.Notification
		if err := json.Unmarshal(d.Payload, &n); err != nil {
			t.Fatal(err)
		}
		if n.InboxURL != "https://hitl.example/inquiries/"+jsonID(inq.ID) || n.Inquiry == nil || n.Inquiry.ID != inq.ID {
			t.Fatalf("notification %+v", n)
		}
		switch {
		case d.Reason == hitl.ReasonCreated && d.Recipient == "ada":
			who, _, err := e.OpenAnswerLink(ctx, n.AnswerToken)
			if err != nil || who.Name != "ada" || n.AnswerURL != "https://hitl.example/a/"+n.AnswerToken {
				t.Fatalf("ada's answer link %q opens as %v, %v", n.AnswerURL, who, err)
			}
		case d.Recipient == "group:leads" || d.Reason == hitl.ReasonResolved:
			if n.AnswerToken != "" {
				t.Fatalf("%s to %s carries a personal answer link", d.Reason, d.Recipient)
			}
		}
		if d.Reason == hitl.ReasonEscalation && !slices.Equal(n.Added, []string{"bob", "group:leads"}) {
			t.Fatalf("escalation's added: %v", n.Added)
		}
		if d.Reason == hitl.ReasonReminder && n.Reminder != 1 {
			t.Fatalf("reminder's number: %d", n.Reminder)
		}
	}
}

func jsonID(id int64) string { b, _ := json.Marshal(id); return string(b) }

// TestRoutingNarrowsAndFallsBack: notify and channel_hint narrow the channels; a group
// without contact points is reached through its members; an unassigned inquiry goes to the
// default destinations; a channel without a sender gets nothing.
func TestRoutingNarrowsAndFallsBack(t *testing.T) {
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defaults, err := engine.ParseDestinations("slack:C0OPS, email:ops@example.com")
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(st, engine.Options{Notify: engine.NotifyOptions{Channels: []string{hitl.ChannelEmail, hitl.ChannelSlack}, Defaults: defaults}})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { e.Stop(ctx); st.Close() }()
	for _, name := range []string{"ada", "cy"} {
		if _, err := e.PutPerson(ctx, admin, name, &hitl.PersonRequest{Email: name + "@example.com", SlackUserID: "U0" + strings.ToUpper(name)}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.CreateKey(ctx, admin, &hitl.KeyRequest{Name: name, Roles: []string{hitl.RoleResponder}, Groups: []string{"sre"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.PutGroup(ctx, admin, "ops", &hitl.GroupRequest{Email: "ops-list@example.com"}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		req  hitl.InquiryRequest
		want []string
	}{
		{hitl.InquiryRequest{AssignedTo: []string{"ada"}, Notify: []string{"email"}}, []string{"created email ada@example.com"}},
		{hitl.InquiryRequest{AssignedTo: []string{"ada"}, ChannelHint: "slack"}, []string{"created slack U0ADA"}},
		{hitl.InquiryRequest{AssignedTo: []string{"group:sre"}, Notify: []string{"slack"}}, []string{"created slack U0ADA", "created slack U0CY"}},
		{hitl.InquiryRequest{AssignedTo: []string{"group:ops", "ada"}, Notify: []string{"email"}}, []string{"created email ada@example.com", "created email ops-list@example.com"}},
		// ops has no Slack contact point: its members are reached (it has none).
		{hitl.InquiryRequest{AssignedTo: []string{"group:ops"}, Notify: []string{"slack"}}, []string{}},
		{hitl.InquiryRequest{}, []string{"created email ops@example.com", "created slack C0OPS"}},
		{hitl.InquiryRequest{AssignedTo: []string{"nobody-known"}}, []string{}},
	}
	for i, c := range cases {
		c.req.Prompt = "q"
		inq, _, err := e.CreateInquiry(ctx, agent, &c.req, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if !testserver.WaitFor(5*time.Second, func() bool { got = notifications(t, st, inq.ID); return slices.Equal(got, c.want) }) {
			t.Errorf("case %d (%+v): %q, want %q", i, c.req, got, c.want)
		}
	}

	// Without a Slack sender, nothing goes by Slack.
	st2, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db2"))
	if err != nil {
		t.Fatal(err)
	}
	e2 := engine.New(st2, engine.Options{Notify: engine.NotifyOptions{Channels: []string{hitl.ChannelEmail}, Defaults: defaults}})
	if err := e2.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { e2.Stop(ctx); st2.Close() }()
	inq, _, err := e2.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "q"}, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if !testserver.WaitFor(5*time.Second, func() bool { got = notifications(t, st2, inq.ID); return len(got) == 1 }) || got[0] != "created email ops@example.com" {
		t.Fatalf("email-only server: %q", got)
	}
}

func TestParseDestinationsSaysWhatIsWrong(t *testing.T) {
	if ds, err := engine.ParseDestinations(""); err != nil || len(ds) != 0 {
		t.Fatalf("empty: %v, %v", ds, err)
	}
	_, err := engine.ParseDestinations("slack:#ops,email:ops,fax:123,slack")
	for _, want := range []string{`destination 1 (slack:#ops): "#ops" is not a Slack channel ID`, `destination 2 (email:ops): "ops" is not an email address`,
		`destination 3 (fax:123): "fax" is not a channel`, "destination 4 (slack): give channel:address"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to say %q", err, want)
		}
	}
}

// TestRoutingFollowsAChain: a chain's next step is notified when the step before approves,
// not before; its people each get one message of reason created.
func TestRoutingFollowsAChain(t *testing.T) {
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(st, engine.Options{Notify: engine.NotifyOptions{Channels: []string{hitl.ChannelEmail}, PublicURL: "https://hitl.example"}})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { e.Stop(ctx); st.Close() }()
	for _, name := range []string{"sam", "fay"} {
		if _, err := e.PutPerson(ctx, admin, name, &hitl.PersonRequest{Email: name + "@example.com"}); err != nil {
			t.Fatal(err)
		}
	}
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Pay?", RequestType: hitl.RequestApproval,
		Steps: []hitl.ApprovalStep{{AssignedTo: []string{"sam"}}, {AssignedTo: []string{"fay"}}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if !testserver.WaitFor(10*time.Second, func() bool { got = notifications(t, st, inq.ID); return len(got) == 1 }) || got[0] != "created email sam@example.com" {
		t.Fatalf("before step 1 approves: %v", got)
	}
	sam := &hitl.Principal{Name: "sam", Roles: []string{hitl.RoleResponder}}
	if _, err := e.Respond(ctx, sam, inq.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`)}); err != nil {
		t.Fatal(err)
	}
	want := []string{"created email fay@example.com", "created email sam@example.com"}
	if !testserver.WaitFor(10*time.Second, func() bool { got = notifications(t, st, inq.ID); return slices.Equal(got, want) }) {
		t.Fatalf("after step 1 approves: %v, want %v", got, want)
	}
}

// TestJoinedInquiriesHearNothing: the askers who joined another's question are told nothing
// of their own inquiries, at the question nor at its answer; people and rooms hear of the
// question they joined, once.
func TestJoinedInquiriesHearNothing(t *testing.T) {
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(st, engine.Options{AllowPrivateURLs: true, Notify: engine.NotifyOptions{Channels: []string{hitl.ChannelEmail}, PublicURL: "https://hitl.example"}})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { e.Stop(ctx); st.Close() }()
	if _, err := e.PutPerson(ctx, admin, "ann", &hitl.PersonRequest{Email: "ann@example.com"}); err != nil {
		t.Fatal(err)
	}
	room, err := e.CreateChatWebhook(ctx, admin, &hitl.ChatWebhookRequest{Kind: hitl.ChatSlack, URL: "http://127.0.0.1:9/room",
		Events: []string{hitl.EventInquiryCreated, hitl.EventInquiryResponded}})
	if err != nil {
		t.Fatal(err)
	}
	req := hitl.InquiryRequest{Prompt: "Restart the payments database?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ann"}, DedupKey: "restart"}
	primary := askAs(t, e, askerNamed("bot1"), req)
	joined := askAs(t, e, askerNamed("bot2"), req)
	if joined.Joined == nil || *joined.Joined != primary.ID {
		t.Fatalf("the second asker's inquiry did not join the first: %+v", joined)
	}
	ann := &hitl.Principal{Name: "ann", Roles: []string{hitl.RoleResponder}}
	if _, err := e.Respond(ctx, ann, primary.ID, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`)}); err != nil {
		t.Fatal(err)
	}
	want := []string{"created chat_webhook " + room.ID, "created email ann@example.com", "resolved chat_webhook " + room.ID, "resolved email ann@example.com"}
	var got []string
	if !testserver.WaitFor(10*time.Second, func() bool { got = notifications(t, st, primary.ID); return slices.Equal(got, want) }) {
		t.Fatalf("the question's notifications:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The joined inquiry's answer is in the log, after the primary's: the outbox has passed it.
	if got := notifications(t, st, joined.ID); len(got) != 0 {
		t.Fatalf("the joined inquiry's notifications: %v", got)
	}
}
