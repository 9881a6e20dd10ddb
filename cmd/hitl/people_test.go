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
