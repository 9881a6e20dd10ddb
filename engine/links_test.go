package engine_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
)

func TestAnswerLinks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	c := &clock{t: time.Now()}
	e, stop := open(t, path, c.Now)
	admin := &hitl.Principal{Name: "root", Roles: []string{hitl.RoleAdmin}}
	other := &hitl.Principal{Name: "other-bot", Roles: []string{hitl.RoleAgent}}
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
		{"the asking agent", agent, hitl.AnswerLinkRequest{For: "grace"}, ""},
		{"an admin, for a group member", admin, hitl.AnswerLinkRequest{For: "hal", Groups: []string{"finance"}, TTLSeconds: 3600}, ""},
		{"another agent", other, hitl.AnswerLinkRequest{For: "grace"}, hitl.ENotFound},
		{"a responder", human, hitl.AnswerLinkRequest{For: "grace"}, hitl.ENotFound},
		{"someone not assigned", agent, hitl.AnswerLinkRequest{For: "mallory"}, hitl.EInvalid},
		{"no name", agent, hitl.AnswerLinkRequest{}, hitl.EInvalid},
		{"a name with spaces", agent, hitl.AnswerLinkRequest{For: "grace hopper"}, hitl.EInvalid},
		{"too short", agent, hitl.AnswerLinkRequest{For: "grace", TTLSeconds: 5}, hitl.EInvalid},
		{"too long", agent, hitl.AnswerLinkRequest{For: "grace", TTLSeconds: 31 * 86400}, hitl.EInvalid},
	} {
		_, err := e.CreateAnswerLink(ctx, tc.p, inq.ID, &tc.req)
		if hitl.ErrorCode(err) != tc.code {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.code)
		}
	}

	link, err := e.CreateAnswerLink(ctx, agent, inq.ID, &hitl.AnswerLinkRequest{For: "grace", TTLSeconds: 3600})
	if err != nil {
		t.Fatal(err)
	}
	who, got, err := e.OpenAnswerLink(ctx, link.Token)
	if err != nil || who.Name != "grace" || !who.Has(hitl.RoleResponder) || got.ID != inq.ID {
		t.Fatalf("open: %v %+v %v", who, got, err)
	}

	// Altered tokens are refused: another payload with the old signature, a cut signature,
	// garbage.
	payload, sig, _ := strings.Cut(strings.TrimPrefix(link.Token, "v1."), ".")
	forged := "v1." + strings.Replace(payload, payload[:4], "AAAA", 1) + "." + sig
	for _, bad := range []string{forged, link.Token[:len(link.Token)-2], "v1.x.y", "", "nonsense", strings.Repeat("v1.", 2000)} {
		if _, _, err := e.OpenAnswerLink(ctx, bad); hitl.ErrorCode(err) != hitl.EUnauthorized {
			t.Errorf("token %.40q: got %v, want unauthorized", bad, err)
		}
	}

	// The secret is kept in the store: a link works after a restart.
	stop()
	e, stop = open(t, path, c.Now)
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
	if _, err := e.CreateAnswerLink(ctx, agent, inq.ID, &hitl.AnswerLinkRequest{For: "grace"}); hitl.ErrorCode(err) != hitl.EConflict {
		t.Fatalf("link for a final inquiry: %v", err)
	}
}
