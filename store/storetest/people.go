package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/hitl-dev/hitl"
)

func testPeopleAndGroups(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	if _, err := s.Person(ctx, "ada"); code(err) != hitl.ENotFound {
		t.Fatalf("unknown person: %v, want not found", err)
	}
	ada := &hitl.Person{Name: "ada", DisplayName: "Ada L.", Email: "ada@example.com", SlackUserID: "U012AB3CD",
		Channels: []string{hitl.ChannelSlack}, TimeZone: "Europe/Berlin",
		WorkingHours: hitl.WorkingHours{"mon": {"09:00", "17:00"}, "fri": {"09:00", "13:30"}}, UpdatedAt: base}
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.PutPerson(ada) }))
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		return tx.PutPerson(&hitl.Person{Name: "bob", Email: "bob@example.com", UpdatedAt: base})
	}))
	got, err := s.Person(ctx, "ada")
	must(t, err)
	if got.DisplayName != "Ada L." || got.Email != ada.Email || got.SlackUserID != ada.SlackUserID ||
		!slices.Equal(got.Channels, ada.Channels) || !got.UpdatedAt.Equal(base) || got.TimeZone != "Europe/Berlin" ||
		len(got.WorkingHours) != 2 || !slices.Equal(got.WorkingHours["fri"], []string{"09:00", "13:30"}) {
		t.Fatalf("read back %+v", got)
	}
	// Put replaces the whole person.
	later := base.Add(60e9)
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		return tx.PutPerson(&hitl.Person{Name: "ada", Email: "ada@new.example", UpdatedAt: later})
	}))
	got, err = s.Person(ctx, "ada")
	must(t, err)
	if got.Email != "ada@new.example" || got.SlackUserID != "" || got.DisplayName != "" || len(got.Channels) != 0 || got.Channels == nil || !got.UpdatedAt.Equal(later) ||
		got.TimeZone != "" || got.WorkingHours != nil {
		t.Fatalf("after replace %+v", got)
	}
	people, err := s.People(ctx)
	must(t, err)
	if len(people) != 2 || people[0].Name != "ada" || people[1].Name != "bob" {
		t.Fatalf("people by name: %+v", people)
	}
	deleteOnce(t, s, func(tx hitl.Tx) error { return tx.DeletePerson("bob") })

	ops := &hitl.Group{Name: "ops", Email: "ops@example.com", SlackChannel: "C012AB3CD", UpdatedAt: base}
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.PutGroup(ops) }))
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		return tx.PutGroup(&hitl.Group{Name: "ops", SlackChannel: "C999", UpdatedAt: later})
	}))
	g, err := s.Group(ctx, "ops")
	must(t, err)
	if g.Email != "" || g.SlackChannel != "C999" || !g.UpdatedAt.Equal(later) {
		t.Fatalf("group after replace %+v", g)
	}
	groups, err := s.Groups(ctx)
	must(t, err)
	if len(groups) != 1 || groups[0].Name != "ops" {
		t.Fatalf("groups %+v", groups)
	}
	deleteOnce(t, s, func(tx hitl.Tx) error { return tx.DeleteGroup("ops") })
	if _, err := s.Group(ctx, "ops"); code(err) != hitl.ENotFound {
		t.Fatalf("deleted group: %v, want not found", err)
	}
}

// testAbsences: an absence is stored whole, a second one of the same person replaces it, the
// list is by person, and deleting one twice is not found the second time.
func testAbsences(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	list, err := s.Absences(ctx)
	must(t, err)
	if len(list) != 0 {
		t.Fatalf("absences of an empty store: %+v", list)
	}
	put := func(a *hitl.Absence) { must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.PutAbsence(a) })) }
	put(&hitl.Absence{Person: "bob", From: base, Until: base.Add(3600e9), Delegate: "cy", SetBy: "root", SetAt: base})
	put(&hitl.Absence{Person: "ada", From: base, Until: base.Add(3600e9), Delegate: "bob", SetBy: "ada", SetAt: base})
	later := base.Add(60e9)
	want := &hitl.Absence{Person: "ada", From: later, Until: later.Add(7200e9), Delegate: "cy", SetBy: "root", SetAt: later}
	put(want)
	list, err = s.Absences(ctx)
	must(t, err)
	if len(list) != 2 || list[0].Person != "ada" || list[1].Person != "bob" {
		t.Fatalf("absences by person: %+v", list)
	}
	got := list[0]
	if !got.From.Equal(want.From) || !got.Until.Equal(want.Until) || got.Delegate != "cy" || got.SetBy != "root" || !got.SetAt.Equal(later) {
		t.Fatalf("after replace %+v, want %+v", got, want)
	}
	deleteOnce(t, s, func(tx hitl.Tx) error { return tx.DeleteAbsence("ada") })
	list, err = s.Absences(ctx)
	must(t, err)
	if len(list) != 1 || list[0].Person != "bob" {
		t.Fatalf("after delete: %+v", list)
	}
}

func newNotification(n int, recipient, channel, address string, reason hitl.NotifyReason) *hitl.Delivery {
	d := newDelivery(n, "", channel+":"+address)
	d.Kind, d.Channel, d.Recipient, d.Address, d.Reason = hitl.DeliveryNotification, channel, recipient, address, reason
	id := int64(7)
	d.InquiryID = &id
	return d
}

func testNotifications(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	w := &hitl.ChatWebhook{ID: "cwh_1", Kind: hitl.ChatDiscord, URL: "https://discord.example/api/webhooks/1",
		Events: []string{hitl.EventInquiryCreated}, CreatedBy: "root", CreatedAt: base}
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertChatWebhook(w) }))
	if err := s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertChatWebhook(w) }); code(err) != hitl.EConflict {
		t.Fatalf("second chat webhook of the same ID: %v, want conflict", err)
	}
	got, err := s.ChatWebhook(ctx, "cwh_1")
	must(t, err)
	if got.Kind != hitl.ChatDiscord || got.URL != w.URL || !slices.Equal(got.Events, w.Events) || !got.CreatedAt.Equal(base) {
		t.Fatalf("chat webhook read back %+v", got)
	}

	email := newNotification(1, "ada", hitl.ChannelEmail, "ada@example.com", hitl.ReasonCreated)
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertNotification(email) }))
	// The same ID again is the same message: kept once, and no error, beside other writes.
	chat := newNotification(2, "cwh_1", hitl.ChannelChatWebhook, w.URL, hitl.ReasonCreated)
	must(t, s.Update(ctx, func(tx hitl.Tx) error {
		if err := tx.InsertNotification(email); err != nil {
			return err
		}
		return tx.InsertNotification(chat)
	}))
	ds, _, err := s.Deliveries(ctx, hitl.DeliveryFilter{Kind: hitl.DeliveryNotification, InquiryID: 7, Page: hitl.Page{Limit: 10}})
	must(t, err)
	if len(ds) != 2 || ds[1].ID != email.ID || ds[1].Channel != hitl.ChannelEmail || ds[1].Recipient != "ada" ||
		ds[1].Address != "ada@example.com" || ds[1].Reason != hitl.ReasonCreated {
		t.Fatalf("notifications %+v", ds)
	}
	// Whom the answer is told of: the person, not the room.
	if n, err := s.Notified(ctx, 7); err != nil || len(n) != 1 || n[0] != (hitl.Notified{Recipient: "ada", Channel: hitl.ChannelEmail, Address: "ada@example.com"}) {
		t.Fatalf("notified: %+v, %v", n, err)
	}
	if n, err := s.Notified(ctx, 8); err != nil || len(n) != 0 {
		t.Fatalf("notified of an inquiry without notifications: %+v, %v", n, err)
	}
	if ds, _, _ := s.Deliveries(ctx, hitl.DeliveryFilter{Kind: hitl.DeliveryWebhook, Page: hitl.Page{Limit: 10}}); len(ds) != 0 {
		t.Fatalf("webhook deliveries: %+v, want none", ds)
	}

	// The thread a channel returned is kept for the later messages of the same recipient.
	if th, pending, err := s.NotificationThread(ctx, 7, hitl.ChannelEmail, "ada@example.com"); err != nil || th != "" || !pending {
		t.Fatalf("thread before delivery: %q, first pending %v, %v", th, pending, err)
	}
	at := base.Add(5e9)
	email.Status, email.Attempts, email.NextAttemptAt, email.DeliveredAt, email.Thread = hitl.DeliveryDelivered, 1, nil, &at, "<1@hitl>"
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.SaveAttempt(email) }))
	th, pending, err := s.NotificationThread(ctx, 7, hitl.ChannelEmail, "ada@example.com")
	must(t, err)
	if th != "<1@hitl>" || pending {
		t.Fatalf("thread %q, first pending %v; want <1@hitl>, false", th, pending)
	}
	if th, pending, _ := s.NotificationThread(ctx, 7, hitl.ChannelSlack, "ada@example.com"); th != "" || pending {
		t.Fatalf("another channel's thread: %q, %v", th, pending)
	}

	// Deleting a chat webhook drops its pending notifications and keeps the rest.
	deleteOnce(t, s, func(tx hitl.Tx) error { return tx.DeleteChatWebhook("cwh_1") })
	ds, _, err = s.Deliveries(ctx, hitl.DeliveryFilter{InquiryID: 7, Page: hitl.Page{Limit: 10}})
	must(t, err)
	if len(ds) != 1 || ds[0].ID != email.ID {
		t.Fatalf("after deleting the chat webhook: %+v", ds)
	}
	if list, err := s.ChatWebhooks(ctx); err != nil || len(list) != 0 {
		t.Fatalf("chat webhooks %+v, %v", list, err)
	}

	// Nor is anyone the messages of the answer itself went to.
	resolved := newNotification(3, "bob", hitl.ChannelEmail, "bob@example.com", hitl.ReasonResolved)
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.InsertNotification(resolved) }))
	if n, err := s.Notified(ctx, 7); err != nil || len(n) != 1 || n[0].Recipient != "ada" {
		t.Fatalf("notified, beside a message of the answer: %+v, %v", n, err)
	}
}

func testTemplates(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	if _, err := s.Template(ctx, "deploy"); code(err) != hitl.ENotFound {
		t.Fatalf("unknown template: %v, want not found", err)
	}
	secs := int64(3600)
	deploy := &hitl.Template{Name: "deploy", TemplateRequest: hitl.TemplateRequest{
		InquiryRequest: hitl.InquiryRequest{Prompt: "Deploy {{.version}}?", RequestType: hitl.RequestApproval,
			AssignedTo: hitl.Assignees{"group:sre"}, TimeoutSeconds: &secs, Options: []hitl.Option{{Value: "a", Label: "A"}}},
		VarsSchema: json.RawMessage(`{"type":"object","required":["version"]}`),
	}, CreatedAt: base, UpdatedAt: base, UpdatedBy: "root"}
	put := func(tpl *hitl.Template) (created bool) {
		t.Helper()
		must(t, s.Update(ctx, func(tx hitl.Tx) (err error) { created, err = tx.PutTemplate(tpl); return err }))
		return created
	}
	if !put(deploy) {
		t.Fatal("a new template is not reported created")
	}
	if !put(&hitl.Template{Name: "audit", TemplateRequest: hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "Audit?"}},
		CreatedAt: base, UpdatedAt: base, UpdatedBy: "root"}) {
		t.Fatal("a second template is not reported created")
	}
	got, err := s.Template(ctx, "deploy")
	must(t, err)
	if got.Prompt != "Deploy {{.version}}?" || got.RequestType != hitl.RequestApproval || len(got.AssignedTo) != 1 ||
		got.TimeoutSeconds == nil || *got.TimeoutSeconds != 3600 || len(got.Options) != 1 || got.Options[0].Label != "A" ||
		string(got.VarsSchema) != `{"type":"object","required":["version"]}` || !got.CreatedAt.Equal(base) || got.UpdatedBy != "root" {
		t.Fatalf("read back %+v", got)
	}

	// Put replaces the whole template but keeps when it was first made.
	later := base.Add(60e9)
	replaced := &hitl.Template{Name: "deploy", TemplateRequest: hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "Ship {{.version}}?"}},
		CreatedAt: later, UpdatedAt: later, UpdatedBy: "ops"}
	if put(replaced) {
		t.Fatal("replacing a template is reported as creating it")
	}
	if !replaced.CreatedAt.Equal(base) {
		t.Fatalf("PutTemplate set created_at %v, want the first version's %v", replaced.CreatedAt, base)
	}
	got, err = s.Template(ctx, "deploy")
	must(t, err)
	if got.Prompt != "Ship {{.version}}?" || got.RequestType != "" || got.TimeoutSeconds != nil || got.VarsSchema != nil ||
		!got.CreatedAt.Equal(base) || !got.UpdatedAt.Equal(later) || got.UpdatedBy != "ops" {
		t.Fatalf("after replace %+v", got)
	}

	// A put that rolls back leaves the template as it was.
	failed := &hitl.Template{Name: "deploy", TemplateRequest: hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "rolled back"}},
		CreatedAt: later, UpdatedAt: later, UpdatedBy: "ops"}
	if err := s.Update(ctx, func(tx hitl.Tx) error {
		if _, err := tx.PutTemplate(failed); err != nil {
			return err
		}
		return hitl.Errorf(hitl.EInvalid, "changed my mind")
	}); code(err) != hitl.EInvalid {
		t.Fatalf("rolled back put: %v", err)
	}
	if got, err := s.Template(ctx, "deploy"); err != nil || got.Prompt != "Ship {{.version}}?" {
		t.Fatalf("after a rolled back put: %+v, %v", got, err)
	}

	list, err := s.Templates(ctx)
	must(t, err)
	if len(list) != 2 || list[0].Name != "audit" || list[1].Name != "deploy" || list[1].Prompt != "Ship {{.version}}?" {
		t.Fatalf("templates by name: %+v", list)
	}
	deleteOnce(t, s, func(tx hitl.Tx) error { return tx.DeleteTemplate("deploy") })
	if _, err := s.Template(ctx, "deploy"); code(err) != hitl.ENotFound {
		t.Fatalf("deleted template: %v, want not found", err)
	}
	if list, err := s.Templates(ctx); err != nil || len(list) != 1 {
		t.Fatalf("after delete: %+v, %v", list, err)
	}
}
