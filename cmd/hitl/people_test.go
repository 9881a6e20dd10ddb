package main

import (
	"context"
	"slices"
	"strings"
	"testing"
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
	code, out, _ := cli(t, "people", "ls")
	if code != 0 || !strings.Contains(out, "ada") || !strings.Contains(out, "U012AB3CD") || strings.Contains(out, "bob") {
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
	if code, _, _ := cli(t, "people", "rm", "ada"); code != 0 {
		t.Fatalf("people rm: %d", code)
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
	if _, err := admin.PutPerson(ctx, "bob", nil); err != nil {
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
	if code, _, errOut := cli(t, "people", "absence", "end", "ada"); code != 0 || !strings.Contains(errOut, "ada's absence ended.") {
		t.Fatalf("absence end: %d %q", code, errOut)
	}
	if code, _, errOut := cli(t, "people", "absence", "end", "ada"); code != exitError || !strings.Contains(errOut, "ada has no absence set") {
		t.Fatalf("absence end twice: %d %q", code, errOut)
	}
}
