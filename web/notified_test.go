package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/notify"
)

// acceptingSender takes every message, as an email relay would.
type acceptingSender struct{}

func (acceptingSender) Send(context.Context, *notify.Notification) (notify.SendResult, error) {
	return notify.SendResult{}, nil
}

// TestChatOptionLinkAndNotified: a chat message's option link shows the inquiry with that
// option chosen, to confirm, and answers nothing; the page says whom the inquiry reached.
func TestChatOptionLinkAndNotified(t *testing.T) {
	e := start(t, testserver.AllowPrivate(), testserver.Configure(func(c *server.Config) {
		c.Notify.Senders = map[string]notify.Sender{hitl.ChannelEmail: acceptingSender{}}
	}))
	room := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer room.Close()
	ctx := context.Background()
	if _, err := e.Admin.PutPerson(ctx, "ada", &hitl.PersonRequest{Email: "ada@example.com"}); err != nil {
		t.Fatal(err)
	}
	chat, err := e.Admin.CreateChatWebhook(ctx, &hitl.ChatWebhookRequest{Kind: hitl.ChatDiscord, URL: room.URL})
	if err != nil {
		t.Fatal(err)
	}
	inq := e.ask(&hitl.InquiryRequest{Prompt: "Pick a venue", AssignedTo: []string{"ada"}, Options: []hitl.Option{{Value: "lisbon"}, {Value: "oslo"}}})
	path := fmt.Sprintf("/inquiries/%d", inq.ID)
	b := e.browser()
	// Signed out, the link leads to the sign-in form, and back to the option after it.
	if res := b.get(path + "?answer=oslo"); res.status != http.StatusSeeOther || res.header.Get("Location") != "/login?next="+url.QueryEscape(path+"?answer=oslo") {
		t.Fatalf("signed out: %d to %q", res.status, res.header.Get("Location"))
	}
	b.signIn(e.responderToken)
	page := b.get(path + "?answer=oslo")
	if page.status != http.StatusOK || !strings.Contains(page.body, `value="oslo" required checked`) {
		t.Fatalf("GET %s?answer=oslo: %d, the option is not chosen", path, page.status)
	}
	if e.inquiry(inq.ID).Status != hitl.StatusPending {
		t.Fatal("opening an option link answered the inquiry")
	}
	if plain := b.get(path); strings.Contains(plain.body, "required checked") {
		t.Fatal("without ?answer an option is chosen")
	}
	want := []string{"<h2>Notified</h2>", `ada by email <span class="muted">(delivered)</span>`, `the chat room of webhook ` + chat.ID + ` <span class="muted">(not delivered yet)</span>`}
	var body string
	if !testserver.WaitFor(10*time.Second, func() bool {
		body = b.get(path).body
		for _, w := range want {
			if !strings.Contains(body, w) {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("the page does not say whom the inquiry reached: want %q in\n%s", want, body)
	}
	res := b.post(path, map[string][]string{"csrf": {page.csrf()}, "answer": {"oslo"}})
	if res.status != http.StatusSeeOther || string(e.inquiry(inq.ID).Response) != `"oslo"` {
		t.Fatalf("confirm: %d, %s", res.status, e.inquiry(inq.ID).Response)
	}
}
