package chatwebhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/chatwebhook"
	"github.com/hitl-dev/hitl/notify"
)

// TestSendSaysWhatTheServiceAnswered: a 429's Retry-After becomes a RetryAfter, a gone webhook
// a PermanentError, anything else outside 2xx an error to retry.
func TestSendSaysWhatTheServiceAnswered(t *testing.T) {
	answers := map[string]func(http.ResponseWriter){
		"/limited": func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
		},
		"/gone":   func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) },
		"/broken": func(w http.ResponseWriter) { w.WriteHeader(http.StatusBadGateway) },
		"/ok":     func(w http.ResponseWriter) { w.Write([]byte("ok")) },
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { answers[r.URL.Path](w) }))
	defer srv.Close()
	s := chatwebhook.New(&http.Client{Timeout: 5 * time.Second})
	send := func(path string) (notify.SendResult, error) {
		n := &notify.Notification{Notification: hitl.Notification{ChatKind: hitl.ChatGoogleChat, Address: srv.URL + path, Reason: hitl.ReasonCreated,
			InboxURL: "https://hitl.example/inquiries/1", Inquiry: &hitl.Inquiry{ID: 1, Prompt: "Ship?", Status: hitl.StatusPending}}}
		return s.Send(context.Background(), n)
	}
	var wait *notify.RetryAfter
	if _, err := send("/limited"); !errors.As(err, &wait) || wait.Wait != 120*time.Second {
		t.Fatalf("429: %v, want RetryAfter 2m", err)
	}
	var perm *notify.PermanentError
	if _, err := send("/gone"); !errors.As(err, &perm) {
		t.Fatalf("404: %v, want a permanent error", err)
	}
	if _, err := send("/broken"); err == nil || errors.As(err, &perm) || errors.As(err, &wait) || !strings.Contains(err.Error(), "502") {
		t.Fatalf("502: %v, want an error to retry", err)
	}
	if res, err := send("/ok"); err != nil || res.Response != "200 ok" {
		t.Fatalf("200: %+v, %v", res, err)
	}
	n := &hitl.Notification{ChatKind: "irc", Inquiry: &hitl.Inquiry{ID: 1}}
	if _, err := chatwebhook.Render(n); err == nil || !strings.Contains(err.Error(), `"irc" is not a chat webhook kind`) {
		t.Fatalf("an unknown kind: %v", err)
	}
}

// TestRenderBoundsAndEscapes: a long prompt is cut to what the service takes; Slack markup in
// a prompt is shown, not obeyed.
func TestRenderBoundsAndEscapes(t *testing.T) {
	inq := &hitl.Inquiry{ID: 7, Prompt: strings.Repeat("é", 5000) + " <!channel>", Status: hitl.StatusPending, RequestType: hitl.RequestInput}
	discord, err := chatwebhook.Render(&hitl.Notification{ChatKind: hitl.ChatDiscord, Reason: hitl.ReasonCreated, Inquiry: inq, InboxURL: "https://h/inquiries/7"})
	if err != nil || len([]rune(string(discord))) > 2200 {
		t.Fatalf("Discord body of %d characters: %v", len([]rune(string(discord))), err)
	}
	if !strings.HasPrefix(string(discord), `{"allowed_mentions":{"parse":[]},"content":"**`) {
		t.Errorf("a Discord headline is not bold (Discord's **): %.80s", discord)
	}
	inq.Prompt = "Restart <!channel> & <https://evil.example|the docs>?"
	slack, err := chatwebhook.Render(&hitl.Notification{ChatKind: hitl.ChatSlack, Reason: hitl.ReasonCreated, Inquiry: inq, InboxURL: "https://h/inquiries/7"})
	if err != nil || strings.Contains(string(slack), "<!channel>") || strings.Contains(string(slack), "<https://evil") {
		t.Fatalf("Slack body %s: %v", slack, err)
	}
}
