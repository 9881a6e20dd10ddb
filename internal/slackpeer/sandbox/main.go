// Command sandbox is Slack on your machine, for trying hitl's Slack channel without a Slack
// workspace or a public HTTPS address: it serves the Slack Web API hitl posts its messages to
// (the same peer the tests use), shows those messages on a page with their buttons, and
// sends your clicks to hitl signed as Slack signs them.
//
//	go run ./internal/slackpeer/sandbox                  # http://127.0.0.1:7450
//	hitl serve --slack-api-url http://127.0.0.1:7450/api/ \
//	  --slack-bot-token xoxb-test-token --slack-signing-secret 8f742231b10e8888abcd99yyyzzz85a5
//
// docs/slack.md walks through the whole loop.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/hitl-dev/hitl/internal/slackpeer"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7450", "where the sandbox listens: its page at /, Slack's Web API at /api/")
	hitlURL := flag.String("hitl", "http://127.0.0.1:7447", "the hitl server the clicks go to (its /slack/interactions)")
	user := flag.String("user", "U0001", "the Slack user id who clicks; map it to a hitl person with: hitl people set NAME --slack U0001")
	flag.Parse()
	srv := &http.Server{Addr: *addr, Handler: newSandbox(slackpeer.NewPeer(), *hitlURL, *user).routes(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	fmt.Printf("Slack sandbox on http://%s (Web API http://%s/api/); clicks go to %s as %s\n", *addr, *addr, *hitlURL, *user)
	fmt.Printf("Start hitl with:\n  hitl serve --slack-api-url http://%s/api/ --slack-bot-token %s --slack-signing-secret %s\n",
		*addr, slackpeer.BotToken, slackpeer.SigningSecret)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
