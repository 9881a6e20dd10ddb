package amqp_test

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	amqpbroker "github.com/hitl-dev/hitl/broker/amqp"
	"github.com/hitl-dev/hitl/internal/brokertest"
	"github.com/hitl-dev/hitl/internal/testserver"
	"github.com/hitl-dev/hitl/internal/testskip"
)

func TestMain(m *testing.M) { os.Exit(testskip.Main(m)) }

const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestIntakeRejectsAPoisonMessageAndTakesTheNext(t *testing.T) {
	url := brokertest.AMQP(t)
	name := "hitl_test_" + uuid.NewString()[:8]
	eng := &brokertest.Engine{}
	c := amqpbroker.New(amqpbroker.Config{URL: url, Exchange: name, IntakeQueue: name + "_intake", IntakeExchange: name + "_exec"}, eng, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	brokertest.CleanUpRabbit(t, url, name)
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	testserver.Eventually(t, 10*time.Second, "connected", func() bool { ok, _ := c.Connected(); return ok })
	publish := func(id, body string) {
		t.Helper()
		var headers amqp.Table
		if id == "m3" { // sent in a trace: the inquiry is made in it
			headers = amqp.Table{"traceparent": traceparent}
		}
		if err := ch.PublishWithContext(ctx, name+"_exec", "execution.completed", false, false,
			amqp.Publishing{MessageId: id, Body: []byte(body), DeliveryMode: amqp.Persistent, Headers: headers}); err != nil {
			t.Fatal(err)
		}
	}
	publish("m1", `not json`)
	publish("m2", `{"execution_id": 7, "result": {"__inquiry": {"response_schema": {}}}}`)
	publish("m3", `{"payload": {"execution_id": 8, "result": {"__inquiry": {"prompt": "Approve?"}, "plan": 1}}}`)
	publish("m4", `{"execution_id": "8", "result": {"__inquiry": {"prompt": "Approve?"}}}`) // a redelivery, in effect
	publish("m5", `{"execution_id": 9, "result": {"done": true}}`)
	testserver.Eventually(t, 10*time.Second, "every message taken", func() bool {
		q, err := ch.QueueDeclarePassive(name+"_intake", true, false, false, false, nil)
		created, rejected := eng.State()
		return err == nil && q.Messages == 0 && len(created) == 1 && len(rejected) == 2
	})
	created, rejected := eng.State()
	if !slices.Equal(created, []string{"8"}) {
		t.Errorf("inquiries made for %v, want one for execution 8", created)
	}
	if traced := eng.Traced(); !slices.Equal(traced, []string{traceparent}) {
		t.Errorf("the inquiry was made in trace %q, want the message's %s", traced, traceparent)
	}
	if rejected[0].MessageID != "m1" || !strings.Contains(rejected[0].Reason, "not a JSON object") ||
		rejected[1].MessageID != "m2" || rejected[1].ExecutionID != "7" || !strings.Contains(rejected[1].Reason, "/prompt: is required") {
		t.Errorf("rejections recorded: %+v", rejected)
	}
	if rejected[0].Source != "amqp:"+name+"_intake" {
		t.Errorf("rejection source %q", rejected[0].Source)
	}
}
