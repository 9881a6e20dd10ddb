package main

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/testserver"
)

func TestPeopleAndGroupsCommands(t *testing.T) {
	admin, _ := startServer(t)
	ctx := context.Background()
	code, _, errOut := cli(t, "people", "set", "ada", "--email", "ada@example.com", "--slack", "U012AB3CD", "--channel", "slack")
	if code != 0 || !strings.Contains(errOut, "ada is reached by slack.") {
		t.Fatalf("people set: %d %q", code, errOut)
	}
	p, err := admin.Person(ctx, "ada")
	if err != nil || p.Email != "ada@example.com" || !slices.Equal(p.Channels, []string{"slack"}) {
		t.Fatalf("stored %+v, %v", p, err)
	}
	if code, _, errOut := cli(t, "people", "set", "bob", "--email", "bob", "--slack", "bob", "--channel", "fax"); code != exitError ||
		!strings.Contains(errOut, "/email") || !strings.Contains(errOut, "/slack_user_id") || !strings.Contains(errOut, "/channels/0") {
		t.Fatalf("bad people set: %d %q", code, errOut)
	}
	code, _, errOut = cli(t, "people", "set", "cid", "--email", "cid@example.com", "--time-zone", "America/Chicago", "--hours", "mon-thu=08:00-16:00", "--hours", "fri=08:00-12:00")
	if code != 0 {
		t.Fatalf("people set with hours: %d %q", code, errOut)
	}
	if p, err := admin.Person(ctx, "cid"); err != nil || p.TimeZone != "America/Chicago" || len(p.WorkingHours) != 5 ||
		!slices.Equal(p.WorkingHours["wed"], []string{"08:00", "16:00"}) || !slices.Equal(p.WorkingHours["fri"], []string{"08:00", "12:00"}) {
		t.Fatalf("stored %+v, %v", p, err)
	}
	if code, _, errOut := cli(t, "people", "set", "cid", "--time-zone", "Moon/Base", "--hours", "mon=9-17"); code != exitError ||
		!strings.Contains(errOut, "/time_zone") || !strings.Contains(errOut, "/working_hours/mon/0") {
		t.Fatalf("bad zone and hours: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "people", "set", "cid", "--hours", "weekdays"); code == 0 || !strings.Contains(errOut, "DAYS=HH:MM-HH:MM") {
		t.Fatalf("hours without a window: %d %q", code, errOut)
	}
	code, out, _ := cli(t, "people", "ls")
	if code != 0 || !strings.Contains(out, "ada") || !strings.Contains(out, "U012AB3CD") || strings.Contains(out, "bob") || !strings.Contains(out, "cid") {
		t.Fatalf("people ls: %d %q", code, out)
	}
	code, _, errOut = cli(t, "groups", "set", "ops", "--email", "ops@example.com", "--slack-channel", "C012AB3CD")
	if code != 0 || !strings.Contains(errOut, "group:ops is reached by email ops@example.com and Slack channel C012AB3CD.") {
		t.Fatalf("groups set: %d %q", code, errOut)
	}
	if code, out, _ := cli(t, "groups", "ls"); code != 0 || !strings.Contains(out, "C012AB3CD") {
		t.Fatalf("groups ls: %d %q", code, out)
	}
	if code, _, _ := cli(t, "groups", "rm", "ops"); code != 0 {
		t.Fatalf("groups rm: %d", code)
	}
	for _, name := range []string{"ada", "cid"} {
		if code, _, _ := cli(t, "people", "rm", name); code != 0 {
			t.Fatalf("people rm %s: %d", name, code)
		}
	}
	if code, _, errOut := cli(t, "people", "rm", "ada"); code != exitError || !strings.Contains(errOut, "not found") {
		t.Fatalf("people rm twice: %d %q", code, errOut)
	}
	if people, _ := admin.People(ctx); len(people) != 0 {
		t.Fatalf("after rm: %+v", people)
	}
}

func TestPeopleAbsenceCommands(t *testing.T) {
	admin, _ := startServer(t)
	ctx := context.Background()
	if code, _, errOut := cli(t, "people", "absence", "set", "ada", "--until", "2099-01-01T00:00:00Z", "--delegate", "nobody"); code != exitError ||
		!strings.Contains(errOut, "/delegate") || !strings.Contains(errOut, "nobody is not a person hitl knows") {
		t.Fatalf("unknown delegate: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "people", "absence", "set", "ada", "--until", "soon", "--delegate", "root"); code == 0 || !strings.Contains(errOut, "--until \"soon\" is not a time") {
		t.Fatalf("bad --until: %d %q", code, errOut)
	}
	if _, err := admin.PutPerson(ctx, "bob", &hitl.PersonRequest{}); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := cli(t, "people", "absence", "set", "ada", "--from", "2026-01-01T00:00:00Z", "--until", "2099-01-01T00:00:00Z", "--delegate", "bob")
	if code != 0 || !strings.Contains(errOut, "ada is away from 2026-01-01T00:00:00Z until 2099-01-01T00:00:00Z; bob answers in their place.") {
		t.Fatalf("absence set: %d %q", code, errOut)
	}
	if a, err := admin.Absence(ctx, "ada"); err != nil || a.Delegate != "bob" {
		t.Fatalf("stored %+v, %v", a, err)
	}
	if code, out, _ := cli(t, "people", "absence", "show", "ada"); code != 0 || !strings.Contains(out, `"delegate": "bob"`) {
		t.Fatalf("absence show: %d %q", code, out)
	}
	// bob answers as ada's delegate: --for ada on an inquiry assigned to both records it for her.
	bob, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "bob", Roles: []string{hitl.RoleResponder}})
	if err != nil {
		t.Fatal(err)
	}
	inq, _, err := admin.CreateInquiry(ctx, &hitl.InquiryRequest{Prompt: "ship?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada", "bob"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HITL_TOKEN", bob.Token)
	if code, _, errOut := cli(t, "respond", strconv.FormatInt(inq.ID, 10), "--approve", "--for", "cy"); code != exitError || !strings.Contains(errOut, "cy is not away with bob as delegate") {
		t.Fatalf("respond --for cy: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "respond", strconv.FormatInt(inq.ID, 10), "--approve", "--for", "ada"); code != 0 {
		t.Fatalf("respond --for ada: %d %q", code, errOut)
	}
	if got, err := admin.Inquiry(ctx, inq.ID); err != nil || got.OnBehalfOf == nil || *got.OnBehalfOf != "ada" || *got.RespondedBy != "bob" {
		t.Fatalf("answered %+v, %v", got, err)
	}
	t.Setenv("HITL_TOKEN", testserver.AdminToken)
	if code, _, errOut := cli(t, "people", "absence", "end", "ada"); code != 0 || !strings.Contains(errOut, "ada's absence ended.") {
		t.Fatalf("absence end: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "people", "absence", "end", "ada"); code != exitError || !strings.Contains(errOut, "ada has no absence set") {
		t.Fatalf("absence end twice: %d %q", code, errOut)
	}
}
