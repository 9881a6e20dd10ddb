package server

import (
	"log/slog"
	"maps"
	"net/http"
	"time"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/channel/slack"
	"github.com/hitl-dev/hitl/internal/authlimit"
	"github.com/hitl-dev/hitl/notify"
)

// slackConfigured reports whether anything of Slack is set: then all of it must be right.
func slackConfigured(c slack.Config) bool { return c.Enabled() || c.APIURL != "" }

// openSlack makes the client of the configured Slack app (nil when there is none) and adds it
// to the senders, as the sender of the slack channel. publicURL is the base of the links
// to the inbox that its messages carry.
func openSlack(cfg slack.Config, publicURL string, senders map[string]notify.Sender, log *slog.Logger) (*slack.Client, map[string]notify.Sender, error) {
	if !slackConfigured(cfg) {
		return nil, senders, nil
	}
	cfg.PublicURL = publicURL
	client, err := slack.New(cfg, nil, log)
	if err != nil {
		return nil, nil, err
	}
	senders = maps.Clone(senders)
	if senders == nil {
		senders = map[string]notify.Sender{}
	}
	senders[hitl.ChannelSlack] = client
	return client, senders, nil
}

// slackRoutes sends what Slack posts (the app's interactivity and slash command URLs) to the
// Slack handlers, and every other request to next. These routes take no API key: Slack signs
// each request with the app's signing secret, and the handlers refuse what is not signed
// (401). Those refusals count as failed authentications of the client's address, with the
// API's, the sign-in form's and the answer links'; and the body is bounded by --max-body-bytes
// like any other.
func slackRoutes(next http.Handler, eng slack.Engine, client *slack.Client, signingSecret string, limiter *authlimit.Limiter, maxBody int64) http.Handler {
	handlers := map[string]http.Handler{
		"/slack/interactions": slack.NewInteractionsHandler(signingSecret, eng, client),
		"/slack/commands":     slack.NewCommandsHandler(signingSecret, eng, client),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := handlers[r.URL.Path]
		if h == nil {
			next.ServeHTTP(w, r)
			return
		}
		if wait := limiter.Wait(r.RemoteAddr); wait > 0 {
			w.Header().Set("Retry-After", authlimit.RetryAfter(wait))
			unread(w, r)
			http.Error(w, "too many failed authentications from your address; try again in "+authlimit.RetryAfter(wait)+" s", http.StatusTooManyRequests)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		if sw.status == http.StatusUnauthorized {
			limiter.Fail(r.RemoteAddr)
		}
	})
}

// unread makes the server close the connection after the answer, without reading the body
// it has no use for.
func unread(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil && r.Body != http.NoBody {
		w.Header().Set("Connection", "close")
		http.NewResponseController(w).SetReadDeadline(time.Now())
	}
}

// statusWriter remembers the status of the answer.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
