package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/hitl-dev/hitl"
	natsbroker "github.com/hitl-dev/hitl/broker/nats"
	"github.com/hitl-dev/hitl/internal/brokertest"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// A server with everything open that could hold a shutdown up — an event stream, a WebSocket,
// a long poll, both brokers connected, a webhook receiver that never answers — stops within
// its shutdown timeout: the long poll returns the inquiry as it stands, the streams end, and
// the webhook attempt that was cut short is made again after a restart, not lost.
func TestServeStopsWithinTheShutdownTimeout(t *testing.T) {
	const shutdownTimeout = 3 * time.Second
	rabbit := newRabbit(t)
	natsURL := brokertest.NATS(t)
	id := strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	nc, err := nats.Connect(natsURL)
	must(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	must(t, err)
	t.Cleanup(func() { js.DeleteStream(context.Background(), "HITLTEST"+id) })

	w := fastWebhooks
	w.AttemptTimeout = time.Minute // far beyond the shutdown timeout: the attempt must be cut short
	e := startServer(t, testserver.Configure(func(c *server.Config) {
		rabbit.config("")(c)
		c.Brokers.NATS = natsbroker.Config{URL: natsURL, Prefix: "hitltest" + id, Stream: "HITLTEST" + id}
		c.Webhooks = w
		c.ShutdownTimeout = shutdownTimeout
	}))
	silent := newReceiver(t, func(int, received) int { return 0 }) // holds every request
	_, err = e.Admin.CreateWebhook(ctx, &hitl.WebhookRequest{URL: silent.URL, Events: []string{hitl.EventInquiryCreated}})
	must(t, err)

	agentTok := e.token("bot", hitl.RoleAgent)
	agent := clientFor(e, agentTok)
	inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Still there?"})
	eventually(t, "the webhook attempt held by the receiver", func() bool { return len(silent.requests()) == 1 })
	rabbit.Next(t) // the brokers have published: they are connected
	eventually(t, "inquiry.created in the NATS stream", func() bool {
		s, err := js.Stream(ctx, "HITLTEST"+id)
		return err == nil && s.CachedInfo().State.Msgs >= 1
	})

	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := rawStream(t, sctx, e, agentTok, "0")
	if f, ok := <-stream; !ok || !strings.Contains(f.text, hitl.EventInquiryCreated) {
		t.Fatalf("the stream's first frame: %q", f.text)
	}
	ws := dialWS(t, e, agentTok)
	wsSend(t, ws, `{"type":"subscribe","id":"all"}`)
	if m := wsRead(t, ws); m.Type != "subscribed" {
		t.Fatalf("subscribe answer: %+v", m)
	}
	waited := make(chan *hitl.Inquiry, 1)
	waitErr := make(chan error, 1)
	go func() {
		got, err := agent.Wait(ctx, inq.ID, time.Minute)
		waited <- got
		waitErr <- err
	}()
	eventually(t, "the long poll parked", func() bool { return e.Engine().Waiting() == 1 })

	stopped := make(chan error, 1)
	go func() { stopped <- e.Stop() }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("the shutdown failed: %v", err)
		}
	case <-time.After(shutdownTimeout + 10*time.Second):
		t.Fatalf("the server had not stopped %s after its shutdown timeout of %s", 10*time.Second, shutdownTimeout)
	}
	if got, err := <-waited, <-waitErr; err != nil || got == nil || got.Status != hitl.StatusPending {
		t.Errorf("the long poll returned %+v, %v; want the inquiry as it stands, pending", got, err)
	}
	for f := range stream { // the stream ends; nothing new was on it
		t.Errorf("after the shutdown the stream carried %q", f.text)
	}
	if _, _, err := ws.Read(ctx); err == nil {
		t.Error("the WebSocket is still open after the shutdown")
	}

	silent.mu.Lock()
	silent.answer = func(int, received) int { return http.StatusOK }
	silent.mu.Unlock()
	e.Restart()
	eventually(t, "the cut attempt made again after the restart", func() bool { return len(silent.requests()) == 2 })
	if a, b := silent.requests()[0].header["webhook-id"], silent.requests()[1].header["webhook-id"]; a != b {
		t.Errorf("the attempt after the restart has webhook-id %q, the cut one %q: want the same delivery", b, a)
	}
}
