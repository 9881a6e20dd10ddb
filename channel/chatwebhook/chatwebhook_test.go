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
	// The chat webhooks' IDs are the receiver's paths.
	s := chatwebhook.New(&http.Client{Timeout: 5 * time.Second}, func(_ context.Context, id string) (string, error) { return srv.URL + id, nil })
	send := func(path string) (notify.SendResult, error) {
		n := &notify.Notification{Notification: hitl.Notification{ChatKind: hitl.ChatGoogleChat, Recipient: path, Address: path, Reason: hitl.ReasonCreated,
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

// TestSendWithoutItsURL: a chat webhook whose URL cannot be had posts nothing: deleted, the
// notification fails for good; unreadable (a key that does not decrypt it), the attempt fails
// saying why, to be retried.
func TestSendWithoutItsURL(t *testing.T) {
	posted := make(chan string, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { posted <- r.URL.Path }))
	defer srv.Close()
	s := chatwebhook.New(&http.Client{Timeout: 5 * time.Second}, func(_ context.Context, id string) (string, error) {
		if id == "cwh_gone" {
			return "", hitl.Errorf(hitl.ENotFound, "chat webhook %s not found", id)
		}
		return srv.URL + "/" + id, errors.New("HITL_SECRET_KEY does not decrypt the secrets in the database (chat webhook " + id + " first)")
	})
	send := func(id string) error {
		n := &notify.Notification{Notification: hitl.Notification{ChatKind: hitl.ChatDiscord, Recipient: id, Address: id, Reason: hitl.ReasonCreated,
			InboxURL: "https://hitl.example/inquiries/1", Inquiry: &hitl.Inquiry{ID: 1, Prompt: "Ship?", Status: hitl.StatusPending}}}
		_, err := s.Send(context.Background(), n)
		return err
	}
	var perm *notify.PermanentError
	if err := send("cwh_gone"); !errors.As(err, &perm) || !strings.Contains(err.Error(), "the chat webhook cwh_gone was deleted") {
		t.Fatalf("a deleted chat webhook: %v, want a permanent error that says so", err)
	}
	err := send("cwh_sealed")
	if err == nil || errors.As(err, &perm) || !strings.Contains(err.Error(), "the URL of chat webhook cwh_sealed cannot be read, so nothing was posted: HITL_SECRET_KEY does not decrypt") {
		t.Fatalf("an unreadable URL: %v, want an error to retry that says why", err)
	}
	select {
	case p := <-posted:
		t.Fatalf("posted to %s without a URL to post to", p)
	default:
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
