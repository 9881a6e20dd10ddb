package chatwebhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/chatwebhook"
	"github.com/hitl-dev/hitl/internal/slackpeer"
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

// TestSlackBodyStaysWithinSlack: the Slack body at its largest (the longest prompt, full of
// what escaping lengthens; fifty options of long labels; twenty long names escalated to; an
// answer of the longest) stays within Slack's limits, and keeps its link to hitl with the
// words for the options that do not fit.
func TestSlackBodyStaysWithinSlack(t *testing.T) {
	long := func(n int) string { return string([]rune(strings.Repeat("a&<>é🙂 ", n/7+1))[:n]) }
	var options []hitl.Option
	var names []string
	for i := range 50 {
		options = append(options, hitl.Option{Value: long(200), Label: long(200)})
		if i < 20 {
			names = append(names, strings.Repeat("n", 200))
		}
	}
	by := strings.Repeat("n", 200)
	inq := &hitl.Inquiry{ID: 7, Prompt: long(8000), Status: hitl.StatusPending, RequestType: hitl.RequestSelection, Options: options,
		CreatedBy: by}
	answered := *inq
	answered.Status, answered.RespondedBy, answered.Response = hitl.StatusResponded, &by, json.RawMessage(`"`+strings.Repeat("&", 8000)+`"`)
	for _, n := range []*hitl.Notification{
		{Reason: hitl.ReasonCreated, Inquiry: inq},
		{Reason: hitl.ReasonReminder, Reminder: 99, Inquiry: inq},
		{Reason: hitl.ReasonEscalation, Added: names, Inquiry: inq},
		{Reason: hitl.ReasonResolved, Inquiry: &answered},
	} {
		n.ChatKind, n.InboxURL = hitl.ChatSlack, "https://hitl.example/inquiries/7"
		raw, err := chatwebhook.Render(n)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Text   string `json:"text"`
			Blocks []any  `json:"blocks"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		for _, p := range slackpeer.MessageProblems(body.Text, body.Blocks) {
			t.Errorf("%s: %s", n.Reason, p)
		}
		if n.Reason != hitl.ReasonResolved && (!strings.Contains(string(raw), `"Open in hitl"`) || !strings.Contains(string(raw), "and 26 more choices: open in hitl")) {
			t.Errorf("%s: the body lost its link to hitl, or does not say what it leaves out: %.500s", n.Reason, raw)
		}
	}
}
