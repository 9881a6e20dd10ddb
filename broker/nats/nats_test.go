package nats_test

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	natsbroker "github.com/hitl-dev/hitl/broker/nats"
	"github.com/hitl-dev/hitl/internal/brokertest"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/internal/testskip"
	"github.com/hitl-dev/hitl/notify"
)

func TestMain(m *testing.M) { os.Exit(testskip.Main(m)) }

const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// start runs a client on streams of the test's own, deleted when it ends.
func start(t *testing.T, cfg natsbroker.Config, eng *brokertest.Engine) (*natsbroker.Client, jetstream.JetStream, string) {
	t.Helper()
	cfg.URL = brokertest.NATS(t)
	id := strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	cfg.Prefix, cfg.Stream = "hitltest"+id, "HITLTEST"+id
	if cfg.IntakeSubject != "" {
		cfg.IntakeSubject = "exectest" + id + "." + cfg.IntakeSubject
	}
	nc, err := nats.Connect(cfg.URL)
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	c := natsbroker.New(cfg, eng, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
		js.DeleteStream(context.Background(), cfg.Stream)
		js.DeleteStream(context.Background(), cfg.Stream+"_INTAKE")
		nc.Close()
	})
	return c, js, cfg.IntakeSubject
}

func TestJetStreamDropsARepublishedEvent(t *testing.T) {
	c, js, _ := start(t, natsbroker.Config{}, nil)
	m := &notify.Message{ID: uuid.NewString(), Type: "inquiry.created", Time: time.Now(), Body: []byte(`{"id":"x","data":{}}`)}
	var err error
	testserver.Eventually(t, 10*time.Second, "the stream ready", func() bool {
		err = c.Publish(context.Background(), m)
		return err == nil
	})
	if err := c.Publish(context.Background(), m); err != nil { // after a lost confirmation, say
		t.Fatalf("publishing again: %v", err)
	}
	other := *m
	other.ID = uuid.NewString()
	if err := c.Publish(context.Background(), &other); err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(context.Background(), streamOf(t, js, c))
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 2 {
		t.Errorf("the stream holds %d messages, want 2: the repeat dropped", info.State.Msgs)
	}
	msg, err := s.GetMsg(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Subject != c.Subject("inquiry.created") || msg.Header.Get("Nats-Msg-Id") != m.ID {
		t.Errorf("message on %q with Nats-Msg-Id %q, want PREFIX.inquiry.created and the event id", msg.Subject, msg.Header.Get("Nats-Msg-Id"))
	}
}

// streamOf finds the test's stream by its subjects.
func streamOf(t *testing.T, js jetstream.JetStream, c *natsbroker.Client) string {
	t.Helper()
	name, err := js.StreamNameBySubject(context.Background(), c.Subject("inquiry.created"))
	if err != nil {
		t.Fatal(err)
	}
	return name
}

func TestJetStreamIntakeRejectsAPoisonMessageAndTakesTheNext(t *testing.T) {
	eng := &brokertest.Engine{}
	c, js, subject := start(t, natsbroker.Config{IntakeSubject: "completed", IntakeDurable: "hitl-intake-test"}, eng)
	testserver.Eventually(t, 10*time.Second, "the intake ready", func() bool { return c.Ready() == nil })
	ctx := context.Background()
	for i, body := range []string{`{"execution_id": 1}`, `{"execution_id": 2, "result": {"__inquiry": {"prompt": "Go?"}}}`,
		`{"execution_id": 2, "result": {"__inquiry": {"prompt": "Go?"}}}`} {
		msg := nats.NewMsg(subject)
		msg.Data = []byte(body)
		if i == 1 { // sent in a trace: the inquiry is made in it
			msg.Header.Set("traceparent", traceparent)
		}
		if _, err := js.PublishMsg(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	testserver.Eventually(t, 10*time.Second, "every message taken", func() bool {
		created, rejected := eng.State()
		return len(created) == 1 && len(rejected) == 1
	})
	created, rejected := eng.State()
	if !slices.Equal(created, []string{"2"}) || !strings.Contains(rejected[0].Reason, "no result") || rejected[0].ExecutionID != "1" {
		t.Errorf("created %v, rejected %+v; want one inquiry for execution 2 and execution 1 rejected for its missing result", created, rejected)
	}
	if traced := eng.Traced(); !slices.Equal(traced, []string{traceparent}) {
		t.Errorf("the inquiry was made in trace %q, want the message's %s", traced, traceparent)
	}
}
