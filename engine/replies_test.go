package engine_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/engine"
	"github.com/hitl-dev/hitl/internal/clock"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/store/sqlite"
)

// TestReplyTokens: an email notification to a person carries a short, lowercase reply token
// that opens as that person, with the address the email went to; any case of it works; a
// forged one, one for someone never emailed and one for a missing inquiry are refused in
// words; once the answer link behind it has expired, so has the token.
func TestReplyTokens(t *testing.T) {
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	c := clock.NewManual(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	e := engine.New(st, engine.Options{Clock: c, Notify: engine.NotifyOptions{Channels: []string{hitl.ChannelEmail, hitl.ChannelSlack}, PublicURL: "https://hitl.example"}})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { e.Stop(ctx); st.Close() }()
	if _, err := e.PutPerson(ctx, admin, "ada", &hitl.PersonRequest{Email: "ada@example.com", SlackUserID: "U0ADA"}); err != nil {
		t.Fatal(err)
	}
	inq, _, err := e.CreateInquiry(ctx, agent, &hitl.InquiryRequest{Prompt: "Ship?", RequestType: hitl.RequestApproval, AssignedTo: []string{"ada"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	var payloads map[string]hitl.Notification
	testserver.Eventually(t, 10*time.Second, "ada's notifications", func() bool {
		ds, _, err := st.Deliveries(ctx, hitl.DeliveryFilter{Kind: hitl.DeliveryNotification, InquiryID: inq.ID, Page: hitl.Page{Limit: 10}})
		if err != nil {
			t.Fatal(err)
		}
		payloads = map[string]hitl.Notification{}
		for _, d := range ds {
			var n hitl.Notification
			if err := json.Unmarshal(d.Payload, &n); err != nil {
				t.Fatal(err)
			}
			payloads[d.Channel] = n
		}
		return len(payloads) == 2
	})
	if tok := payloads[hitl.ChannelSlack].ReplyToken; tok != "" {
		t.Fatalf("the Slack notification carries a reply token %q", tok)
	}
	token := payloads[hitl.ChannelEmail].ReplyToken
	if token != e.ReplyToken(inq.ID, "ada") || len(token) > 40 || token != strings.ToLower(token) || !strings.HasPrefix(token, jsonID(inq.ID)+".") {
		t.Fatalf("the email's reply token is %q; want a short lowercase one, ReplyToken(%d, ada) = %q", token, inq.ID, e.ReplyToken(inq.ID, "ada"))
	}

	for _, tok := range []string{token, strings.ToUpper(token)} {
		who, got, address, err := e.OpenReply(ctx, tok, "Ada@Example.com")
		if err != nil || who.Name != "ada" || got.ID != inq.ID || address != "ada@example.com" {
			t.Fatalf("OpenReply(%q) = %v, %v, %q, %v; want ada, inquiry %d, ada@example.com", tok, who, got, address, err, inq.ID)
		}
	}

	// The token is the credential, and only the address the email went to may use it.
	for from, words := range map[string]string{"mallory@example.com": "it came from mallory@example.com", "": "it came from no readable address"} {
		who, _, _, err := e.OpenReply(ctx, token, from)
		var he *hitl.Error
		if hitl.ErrorCode(err) != hitl.EForbidden || !strings.Contains(hitl.ErrorMessage(err), words) || !errors.As(err, &he) || he.Inquiry == nil || he.Inquiry.ID != inq.ID || who != nil {
			t.Errorf("a reply from %q: %v, %v; want forbidden, %q, with the inquiry", from, who, err, words)
		}
	}

	forged := token[:len(token)-1] + map[bool]string{true: "b", false: "a"}[strings.HasSuffix(token, "a")]
	for _, tc := range []struct{ token, code, words string }{
		{forged, hitl.EUnauthorized, "not one of hitl's reply addresses"},
		{e.ReplyToken(inq.ID, "bob"), hitl.EUnauthorized, "not one of hitl's reply addresses"},
		{"v1.eyJpIjoxfQ.abc", hitl.EUnauthorized, "not one of hitl's reply addresses"},
		{"", hitl.EUnauthorized, "not one of hitl's reply addresses"},
		{e.ReplyToken(inq.ID+100, "ada"), hitl.ENotFound, ""},
	} {
		who, _, _, err := e.OpenReply(ctx, tc.token, "ada@example.com")
		if hitl.ErrorCode(err) != tc.code || !strings.Contains(hitl.ErrorMessage(err), tc.words) || who != nil {
			t.Errorf("OpenReply(%q) = %v, %v; want %s %q", tc.token, who, err, tc.code, tc.words)
		}
	}

	c.Advance(8 * 24 * time.Hour) // past the answer link's week
	if _, _, _, err := e.OpenReply(ctx, token, "ada@example.com"); hitl.ErrorCode(err) != hitl.EUnauthorized || !strings.Contains(hitl.ErrorMessage(err), "too long ago") {
		t.Fatalf("an expired reply token: %v", err)
	}
}
