package engine_test

import (
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
)

// keyFor stores a key for the principal's name with its roles and groups, so that hitl's
// records know it, and returns the key.
func keyFor(t *testing.T, e *engine.Engine, p *hitl.Principal) *hitl.Key {
	t.Helper()
	k, err := e.CreateKey(ctx, &hitl.Principal{Name: "setup", Roles: []string{hitl.RoleAdmin}},
		&hitl.KeyRequest{Name: p.Name, Roles: p.Roles, Groups: p.Groups})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestAnswerLinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	c := clock.NewManual(time.Now())
	e, stop := open(t, path, c)
	admin := &hitl.Principal{Name: "root", Roles: []string{hitl.RoleAdmin}}
	other := &hitl.Principal{Name: "other-bot", Roles: []string{hitl.RoleAgent}}
	keyFor(t, e, admin)
	keyFor(t, e, &hitl.Principal{Name: "grace", Roles: []string{hitl.RoleResponder}})
	keyFor(t, e, &hitl.Principal{Name: "hal", Roles: []string{hitl.RoleResponder}, Groups: []string{"finance"}})
	keyFor(t, e, &hitl.Principal{Name: "mallory", Roles: []string{hitl.RoleResponder}})
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Budget ok?", RequestType: hitl.RequestApproval,
		AssignedTo: []string{"grace", "group:finance"}}, "")
	if err != nil {
		t.Fatal(err)
	}

	// Who may make one, and for whom.
	for _, tc := range []struct {
		name string
		p    *hitl.Principal
		req  hitl.AnswerLinkRequest
		code string
	}{
		{"an admin, for a group member", admin, hitl.AnswerLinkRequest{For: "hal", Groups: []string{"finance"}, TTLSeconds: 3600}, ""},
		{"the asking agent, without the relay role", agent, hitl.AnswerLinkRequest{For: "grace"}, hitl.EForbidden},
		{"another agent", other, hitl.AnswerLinkRequest{For: "grace"}, hitl.ENotFound},
		{"a responder who may not see it", human, hitl.AnswerLinkRequest{For: "grace"}, hitl.ENotFound},
		{"someone not assigned", admin, hitl.AnswerLinkRequest{For: "mallory"}, hitl.EInvalid},
		{"a group hitl's records do not give", admin, hitl.AnswerLinkRequest{For: "grace", Groups: []string{"finance"}}, hitl.EInvalid},
		{"somebody hitl does not know", admin, hitl.AnswerLinkRequest{For: "ghost"}, hitl.EInvalid},
		{"no name", admin, hitl.AnswerLinkRequest{}, hitl.EInvalid},
		{"a name with spaces", admin, hitl.AnswerLinkRequest{For: "grace hopper"}, hitl.EInvalid},
		{"too short", admin, hitl.AnswerLinkRequest{For: "grace", TTLSeconds: 5}, hitl.EInvalid},
		{"too long", admin, hitl.AnswerLinkRequest{For: "grace", TTLSeconds: 31 * 86400}, hitl.EInvalid},
	} {
		_, err := e.CreateAnswerLink(ctx, tc.p, inq.ID, &tc.req)
		if hitl.ErrorCode(err) != tc.code {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.code)
		}
	}

	link, err := e.CreateAnswerLink(ctx, admin, inq.ID, &hitl.AnswerLinkRequest{For: "grace", TTLSeconds: 3600})
	if err != nil {
		t.Fatal(err)
	}
	if link.RelayedBy != "root" {
		t.Fatalf("the link does not say who made it: %+v", link)
	}
	who, got, err := e.OpenAnswerLink(ctx, link.Token)
	if err != nil || who.Name != "grace" || who.Via != "root" || !who.Has(hitl.RoleResponder) || who.IsAdmin() || got.ID != inq.ID {
		t.Fatalf("open: %+v %+v %v", who, got, err)
	}

	// Altered tokens are refused: another payload with the old signature, a cut signature,
	// garbage; and a token of the earlier version that the server did not send.
	payload, sig, _ := strings.Cut(strings.TrimPrefix(link.Token, "v2."), ".")
	forged := "v2." + strings.Replace(payload, payload[:4], "AAAA", 1) + "." + sig
	for _, bad := range []string{forged, link.Token[:len(link.Token)-2], "v2.x.y", "v1.x.y", "", "nonsense", strings.Repeat("v2.", 2000)} {
		if _, _, err := e.OpenAnswerLink(ctx, bad); hitl.ErrorCode(err) != hitl.EUnauthorized {
			t.Errorf("token %.40q: got %v, want unauthorized", bad, err)
		}
	}

	// The secret is kept in the store: a link works after a restart.
	stop()
	e, stop = open(t, path, c)
	defer stop()
	if _, _, err := e.OpenAnswerLink(ctx, link.Token); err != nil {
		t.Fatalf("after a restart: %v", err)
	}

	// It expires.
	c.Advance(time.Hour)
	_, _, err = e.OpenAnswerLink(ctx, link.Token)
	if hitl.ErrorCode(err) != hitl.EUnauthorized || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("after its time: %v", err)
	}

	// None for an inquiry that is already final.
	if _, err := e.Cancel(ctx, agent, inq.ID, "no longer needed"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateAnswerLink(ctx, admin, inq.ID, &hitl.AnswerLinkRequest{For: "grace"}); hitl.ErrorCode(err) != hitl.EConflict {
		t.Fatalf("link for a final inquiry: %v", err)
	}
}

// TestAnswerLinkGroupsComeFromRecords: a token that claims groups (as links of the earlier
// version did) lends none: the groups are read from the person's keys when the link is opened,
// and a legacy token answers only when it is the link of one of the server's own messages.
func TestAnswerLinkGroupsComeFromRecords(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	keyFor(t, e, &hitl.Principal{Name: "ceo", Roles: []string{hitl.RoleResponder}})
	admin := &hitl.Principal{Name: "root", Roles: []string{hitl.RoleAdmin}}
	keyFor(t, e, admin)
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Wire 48,000 EUR?", RequestType: hitl.RequestApproval,
		AssignedTo: []string{"ceo", "group:admins"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	link, err := e.CreateAnswerLink(ctx, admin, inq.ID, &hitl.AnswerLinkRequest{For: "ceo"})
	if err != nil {
		t.Fatal(err)
	}
	who, _, err := e.OpenAnswerLink(ctx, link.Token)
	if err != nil || len(who.Groups) != 0 {
		t.Fatalf("the link's person: %+v %v", who, err)
	}
	// A v1 token signed with the right secret but not sent by the server is refused in words.
	legacy := engine.SignLegacyLink(e, map[string]any{"i": inq.ID, "f": "ceo", "g": []string{"admins"}, "e": time.Now().Add(time.Hour).Unix()})
	_, _, err = e.OpenAnswerLink(ctx, legacy)
	if hitl.ErrorCode(err) != hitl.EUnauthorized || !strings.Contains(err.Error(), "earlier version") {
		t.Fatalf("a legacy link the server did not send: %v", err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(strings.Split(link.Token, ".")[1])
	var claims map[string]any
	if err := json.Unmarshal(raw, &claims); err != nil || claims["g"] != nil || claims["b"] != "root" {
		t.Fatalf("the token's claims: %s", raw)
	}
}

// TestRelayNeedsAPersonWhoMayAnswer: a relay may record the answer of a person hitl knows who
// may answer the inquiry, never of a name it makes up; a quorum counts only such voters; who
// asked never carries another's answer; separation of duties holds the relay as the person.
func TestRelayNeedsAPersonWhoMayAnswer(t *testing.T) {
	e, stop := open(t, filepath.Join(t.TempDir(), "db"), nil)
	defer stop()
	relay := &hitl.Principal{Name: "ops-bot", Roles: []string{hitl.RoleResponder, hitl.RoleRelay}}
	asker := &hitl.Principal{Name: "dq-agent", Roles: []string{hitl.RoleAgent, hitl.RoleResponder, hitl.RoleRelay}}
	for _, p := range []*hitl.Principal{relay, asker,
		{Name: "dq1", Roles: []string{hitl.RoleResponder}, Groups: []string{"dq"}},
		{Name: "dq2", Roles: []string{hitl.RoleResponder}, Groups: []string{"dq"}},
		{Name: "gone", Roles: []string{hitl.RoleResponder}},
		{Name: "viewer", Roles: []string{hitl.RoleAgent}}} {
		keyFor(t, e, p)
	}
	keys, _ := e.Keys(ctx, admin)
	for _, k := range keys {
		if k.Name == "gone" {
			if err := e.RevokeKey(ctx, admin, k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	approve := func(p *hitl.Principal, id int64, as string) error {
		_, err := e.Respond(ctx, p, id, &hitl.ResponseRequest{Response: json.RawMessage(`{"approved":true}`), RespondedBy: as})
		return err
	}
	quorum := func(p *hitl.Principal, exclude bool) *hitl.Inquiry {
		inq, _, err := e.CreateInquiry(ctx, p, &hitl.InquiryRequest{Prompt: "Drop the table?", RequestType: hitl.RequestApproval,
			Quorum: &hitl.Quorum{Required: 2}, ExcludeRequester: &exclude}, "")
		if err != nil {
			t.Fatal(err)
		}
		return inq
	}

	// Made-up names, revoked people and principals that may not answer are refused; the quorum
	// stays pending.
	q := quorum(agent, false)
	for _, tc := range []struct{ as, words string }{
		{"ghost-one", "ghost-one is not a person hitl knows"},
		{"gone", "every key of gone has been revoked"},
		{"viewer", "none of its keys holds the responder role"},
	} {
		if err := approve(relay, q.ID, tc.as); hitl.ErrorCode(err) != hitl.EForbidden || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("relayed as %s: %v, want forbidden with %q", tc.as, err, tc.words)
		}
	}
	// A group's quorum: only its members, by hitl's records, may be relayed.
	g, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Drop the table?", RequestType: hitl.RequestApproval,
		AssignedTo: []string{"group:dq", "ops-bot"}, Quorum: &hitl.Quorum{Required: 2}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := approve(relay, g.ID, "gone"); hitl.ErrorCode(err) != hitl.EForbidden {
		t.Fatalf("a revoked person relayed into a group's quorum: %v", err)
	}
	keyFor(t, e, &hitl.Principal{Name: "outsider", Roles: []string{hitl.RoleResponder}})
	if err := approve(relay, g.ID, "outsider"); hitl.ErrorCode(err) != hitl.EForbidden || !strings.Contains(err.Error(), "the group dq") {
		t.Fatalf("a non-member relayed into a group's quorum: %v", err)
	}
	if err := approve(relay, g.ID, "dq1"); err != nil {
		t.Fatalf("relaying a member's vote: %v", err)
	}
	got, err := e.Inquiry(ctx, admin, g.ID)
	if err != nil || got.Status != hitl.StatusPending || len(got.Votes) != 1 || got.Votes[0].By != "dq1" || got.Votes[0].RelayedBy != "ops-bot" {
		t.Fatalf("after one relayed vote: %+v %v", got, err)
	}

	// The asker with agent, responder and relay: refused voting as itself under separation of
	// duties, and refused relaying others' votes to its own question, with or without it.
	for _, exclude := range []bool{true, false} {
		own := quorum(asker, exclude)
		if exclude {
			if err := approve(asker, own.ID, ""); hitl.ErrorCode(err) != hitl.EForbidden {
				t.Fatalf("the asker voting as itself: %v", err)
			}
		}
		for _, as := range []string{"dq1", "dq2"} {
			if err := approve(asker, own.ID, as); hitl.ErrorCode(err) != hitl.EForbidden || !strings.Contains(err.Error(), "may not carry another person's answer") {
				t.Fatalf("the asker relaying %s (exclude_requester %v): %v", as, exclude, err)
			}
		}
		if got, _ := e.Inquiry(ctx, admin, own.ID); got.Status != hitl.StatusPending || len(got.Votes) != 0 {
			t.Fatalf("the asker's own quorum moved: %+v", got)
		}
	}

	// Separation of duties holds whoever carries the answer as it holds the person.
	yes := true
	sep, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval, ExcludeRequester: &yes}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Separated(ctx, sep, "dq1", "bot"); hitl.ErrorCode(err) != hitl.EForbidden {
		t.Fatalf("separation of duties does not hold whoever carries the answer: %v", err)
	}
	if err := approve(relay, sep.ID, "dq1"); err != nil {
		t.Fatalf("a relayed answer that separation of duties allows: %v", err)
	}
}
