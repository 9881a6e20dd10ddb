package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/notify"
)

// listenMaxBody bounds one delivery the listener reads: an event carries an inquiry, whose
// context alone may be 256 KiB.
const listenMaxBody = 4 << 20

// webhooksListenCmd is a webhook receiver to try webhooks with, on the machine hitl runs on:
// it subscribes itself, checks each delivery's signature as a real receiver must, prints what
// came, and unsubscribes when stopped.
func webhooksListenCmd() *cobra.Command {
	var (
		events []string
		asJSON bool
		keep   bool
	)
	cmd := &cobra.Command{
		Use:   "listen [ADDR]",
		Short: "Receive webhooks on this machine: subscribe, check each delivery's signature, print it",
		Long: "Listens on ADDR (default 127.0.0.1:9000), subscribes http://ADDR/hitl to the events, and prints each\n" +
			"delivery once its Standard Webhooks signature is checked; Ctrl-C deletes the webhook (--keep leaves it).\n" +
			"The server must allow deliveries to this machine: start it with --webhook-allow-private.",
		Example: "  hitl webhooks listen\n" +
			"  hitl webhooks listen 127.0.0.1:9100 --event inquiry.created --event inquiry.responded --json",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			addr := "127.0.0.1:9000"
			if len(args) == 1 {
				addr = args[0]
			}
			c, err := connect()
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("cannot listen on %s: %w", addr, err)
			}
			defer ln.Close()
			url := "http://" + ln.Addr().String() + "/hitl"
			w, err := c.CreateWebhook(cmd.Context(), &hitl.WebhookRequest{URL: url, Events: events, Description: "hitl webhooks listen"})
			if err != nil {
				if strings.Contains(err.Error(), "public") || strings.Contains(err.Error(), "private") {
					return fmt.Errorf("%w\nThe server delivers to public addresses only: start it with --webhook-allow-private to try webhooks on this machine", withFieldErrors(err))
				}
				return withFieldErrors(err)
			}
			l := &listener{secret: w.Secret, out: cmd.OutOrStdout(), log: cmd.ErrOrStderr(), asJSON: asJSON, seen: map[string]bool{}}
			what := strings.Join(w.Events, ", ")
			if slices.Equal(events, []string{"*"}) {
				what = "every event"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "Listening on %s for %s (webhook %s). Ctrl-C stops.\n", url, what, w.ID)
			srv := &http.Server{Handler: l, ReadHeaderTimeout: 10 * time.Second}
			served := make(chan error, 1)
			go func() { served <- srv.Serve(ln) }()
			// Ctrl-C is how a listener is stopped: not a failure.
			_, err = untilSignal(cmd.Context(), func(ctx context.Context) error {
				select {
				case <-ctx.Done():
					return nil
				case err := <-served:
					return err
				}
			})
			// Deliveries in progress get a moment to be answered; then the webhook goes, on a
			// context of its own, since the command's own has ended.
			shutdown, cancel := context.WithTimeout(context.WithoutCancel(cmd.Context()), 2*time.Second)
			defer cancel()
			if srv.Shutdown(shutdown) != nil {
				srv.Close()
			}
			if !keep {
				del, cancel := context.WithTimeout(context.WithoutCancel(cmd.Context()), 5*time.Second)
				defer cancel()
				if derr := c.DeleteWebhook(del, w.ID); derr != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "Could not delete webhook %s (hitl webhooks rm %s): %v\n", w.ID, w.ID, derr)
				} else {
					fmt.Fprintf(cmd.ErrOrStderr(), "Webhook %s deleted.\n", w.ID)
				}
			}
			if err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&events, "event", []string{"*"}, `an event type to receive, or "*" for all (repeat)`)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each delivery's body as one line of JSON on stdout")
	cmd.Flags().BoolVar(&keep, "keep", false, "leave the webhook subscribed when stopping")
	return cmd
}

// listener answers deliveries: 204 for one whose signature holds, 401 for one whose does not
// (so hitl retries it, and a forger learns nothing), and says which on the terminal.
type listener struct {
	secret string
	out    io.Writer
	log    io.Writer
	asJSON bool

	mu   sync.Mutex // serialises printing and guards seen
	seen map[string]bool
}

func (l *listener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "webhook deliveries are POSTed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, listenMaxBody))
	if err != nil {
		http.Error(w, "the body could not be read", http.StatusRequestEntityTooLarge)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := notify.VerifyRequest(l.secret, r.Header, body, time.Now()); err != nil {
		fmt.Fprintf(l.log, "Refused a delivery from %s: %v\n", r.RemoteAddr, err)
		http.Error(w, "the signature does not verify", http.StatusUnauthorized)
		return
	}
	id := r.Header.Get("webhook-id")
	again := l.seen[id]
	l.seen[id] = true
	if l.asJSON {
		var line bytes.Buffer
		if json.Compact(&line, body) == nil {
			fmt.Fprintln(l.out, line.String())
		}
	} else {
		fmt.Fprintln(l.out, describeDelivery(id, body, again))
	}
	w.WriteHeader(http.StatusNoContent)
}

// describeDelivery says in one line what a CloudEvents delivery is about.
func describeDelivery(id string, body []byte, again bool) string {
	var ev struct {
		Type    string `json:"type"`
		Subject string `json:"subject"`
		Time    string `json:"time"`
		Data    struct {
			Prompt string `json:"prompt"`
			Status string `json:"status"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &ev) // a body that is not a CloudEvent still gets its line
	line := fmt.Sprintf("%s  %s  %s", cmp.Or(ev.Type, "?"), cmp.Or(ev.Subject, "-"), id)
	if ev.Data.Prompt != "" {
		line += fmt.Sprintf("  %q (%s)", ev.Data.Prompt, ev.Data.Status)
	}
	line += "  signature verified"
	if again {
		line += ", delivered again"
	}
	return line
}
