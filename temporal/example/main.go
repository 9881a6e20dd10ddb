// Command example is a Temporal workflow that asks a person through hitl before it deploys,
// with the worker and the callback handler in one process.
//
// Start a Temporal server and hitl, then run it from the temporal/ directory:
//
//	temporal server start-dev                     # Temporal at 127.0.0.1:7233
//	hitl serve --webhook-allow-private            # hitl at 127.0.0.1:7447 (callbacks to loopback)
//	export HITL_CALLBACK_SECRET=$(hitl webhooks callback-secret)   # first: it needs the admin's key
//	hitl keys create deployer --role agent       # prints an agent key's token once
//	export HITL_TOKEN=hitl_...                    # that token (after the secret: the CLI would use it)
//	go run ./example
//
// HITL_URL (http://127.0.0.1:7447), TEMPORAL_ADDRESS (127.0.0.1:7233), TEMPORAL_NAMESPACE
// (default) and LISTEN (127.0.0.1:7470, the callback handler's address) change the defaults.
//
// It prints the workflow's id and waits; answer the question in hitl's inbox (or with
// `hitl respond ID '{"approved": true}'`) and it prints what the workflow did.
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"

	"github.com/hitl-dev/hitl"
	hitlclient "github.com/hitl-dev/hitl/client"
	hitltemporal "github.com/hitl-dev/hitl/temporal"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Deploy asks whether to deploy version, and deploys it (here: says so) when a person approves.
// Nobody answering within the hour counts as a no.
func Deploy(ctx workflow.Context, version string) (string, error) {
	inq, err := hitltemporal.AskHuman(ctx, hitl.InquiryRequest{
		Prompt:         "Deploy " + version + " to production?",
		RequestType:    hitl.RequestApproval,
		TimeoutSeconds: ptr(int64(3600)),
		FallbackPolicy: hitl.FallbackCompleteWithFallback,
		FallbackValue:  []byte(`{"approved": false}`),
	})
	if err != nil {
		return "", err
	}
	var answer struct{ Approved bool }
	if err := hitlclient.Answer(inq, &answer); err != nil {
		return "", err
	}
	switch {
	case inq.FallbackApplied:
		return "not deployed: nobody answered in time", nil
	case !answer.Approved:
		return "not deployed: " + deref(inq.RespondedBy) + " said no", nil
	}
	// A real workflow would run the deploy as an activity here.
	return "deployed " + version + ", approved by " + deref(inq.RespondedBy), nil
}

// config is what the example is told by its environment.
type config struct {
	HitlURL, HitlToken, CallbackSecret string
	TemporalAddress, Namespace         string
	// Listen is where the callback handler listens; hitl must reach it there.
	Listen string
}

func main() {
	cfg := config{
		HitlURL:         cmp.Or(os.Getenv("HITL_URL"), "http://127.0.0.1:7447"),
		HitlToken:       os.Getenv("HITL_TOKEN"),
		CallbackSecret:  os.Getenv("HITL_CALLBACK_SECRET"),
		TemporalAddress: cmp.Or(os.Getenv("TEMPORAL_ADDRESS"), "127.0.0.1:7233"),
		Namespace:       cmp.Or(os.Getenv("TEMPORAL_NAMESPACE"), "default"),
		Listen:          cmp.Or(os.Getenv("LISTEN"), "127.0.0.1:7470"),
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, cfg, "v2", os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run serves the callback handler, runs a worker, starts the Deploy workflow and prints its result.
func run(ctx context.Context, cfg config, version string, out io.Writer) error {
	if cfg.HitlToken == "" || cfg.CallbackSecret == "" {
		return errors.New("set HITL_TOKEN (an agent's key) and HITL_CALLBACK_SECRET (hitl webhooks callback-secret)")
	}
	tc, err := client.Dial(client.Options{HostPort: cfg.TemporalAddress, Namespace: cfg.Namespace})
	if err != nil {
		return fmt.Errorf("reaching Temporal at %s: %w", cfg.TemporalAddress, err)
	}
	defer tc.Close()

	// The callback handler: hitl posts the inquiry's events here, and it signals the workflow.
	handler, err := hitltemporal.CallbackHandler(tc, cfg.CallbackSecret)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /hitl/callback", handler)
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()

	// The worker: the workflow, and AskHuman's activities.
	w := worker.New(tc, "deploys", worker.Options{})
	w.RegisterWorkflow(Deploy)
	callbackURL := "http://" + ln.Addr().String() + "/hitl/callback"
	if err := hitltemporal.Register(w, hitlclient.New(cfg.HitlURL, cfg.HitlToken, nil), callbackURL); err != nil {
		return err
	}
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()

	wf, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "deploy-" + version, TaskQueue: "deploys"}, Deploy, version)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "workflow %s asks a person in hitl whether to deploy %s\n", wf.GetID(), version)
	var result string
	if err := wf.Get(ctx, &result); err != nil {
		return err
	}
	fmt.Fprintln(out, result)
	return nil
}

func ptr[T any](v T) *T { return &v }

func deref(s *string) string {
	if s == nil {
		return "someone"
	}
	return *s
}
