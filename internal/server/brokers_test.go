package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/broker"
	natsbroker "github.com/hitl-dev/hitl/broker/nats"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/brokertest"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// rabbit is a test's own exchange and queue, and the server settings that publish to it.
type rabbit struct{ *brokertest.Rabbit }

func newRabbit(t *testing.T) rabbit { return rabbit{brokertest.NewRabbit(t)} }

func (r rabbit) config(format string) func(*server.Config) {
	return func(c *server.Config) {
		c.Brokers.AMQP.URL, c.Brokers.AMQP.Exchange, c.Brokers.AMQP.Format = r.URL, r.Exchange, format
		c.Webhooks = fastWebhooks
	}
}

func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("the message is not a JSON object: %v: %s", err, body)
	}
	return m
}

func TestRabbitMQCarriesTheInquiryEvents(t *testing.T) {
	t.Parallel()
	for _, format := range []string{broker.FormatCloudEvents, broker.FormatAttune} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			r := newRabbit(t)
			e := startServer(t, testserver.Configure(r.config(format)))
			agent := e.principal("bot", []string{hitl.RoleAgent})
			human := e.principal("vic", []string{hitl.RoleResponder})
			schema := json.RawMessage(`{"type":"object","properties":{"approved":{"type":"boolean"}},"required":["approved"]}`)
			inq := ask(t, agent, hitl.InquiryRequest{Prompt: "Approve deployment?", ResponseSchema: schema, AssignedTo: []string{"vic"}})

			created := r.Next(t)
			if created.RoutingKey != hitl.EventInquiryCreated || created.Type != hitl.EventInquiryCreated {
				t.Fatalf("first message: routing key %q, type %q; want inquiry.created", created.RoutingKey, created.Type)
			}
			if created.DeliveryMode != amqp.Persistent || created.MessageId == "" || created.Timestamp.IsZero() {
				t.Errorf("message properties: delivery mode %d, message_id %q, timestamp %v; want persistent, the event id, a time", created.DeliveryMode, created.MessageId, created.Timestamp)
			}
			_, err := human.Respond(context.Background(), inq.ID, json.RawMessage(`{"approved": true}`), "")
			must(t, err)
			responded := r.Next(t)
			if responded.RoutingKey != hitl.EventInquiryResponded || responded.MessageId == created.MessageId {
				t.Fatalf("second message: routing key %q, message_id %q; want inquiry.responded with an id of its own", responded.RoutingKey, responded.MessageId)
			}

			c, rs := decode(t, created.Body), decode(t, responded.Body)
			if format == broker.FormatCloudEvents {
				if c["id"] != created.MessageId || c["type"] != "hitl."+hitl.EventInquiryCreated || c["specversion"] != "1.0" {
					t.Errorf("the CloudEvent's id and type are not the message's: %s", created.Body)
				}
				if data, _ := rs["data"].(map[string]any); data["status"] != "responded" {
					t.Errorf("inquiry.responded carries the inquiry as answered: %s", responded.Body)
				}
				return
			}
			wantKeys(t, c, "inquiry_id", "execution_id", "prompt", "response_schema", "assigned_to", "timeout_at")
			wantKeys(t, rs, "inquiry_id", "execution_id", "response", "responded_by", "responded_at")
			vic := identityOf(t, e, "vic")
			if c["inquiry_id"] != float64(inq.ID) || c["prompt"] != "Approve deployment?" || c["assigned_to"] != vic || c["execution_id"] != nil {
				t.Errorf("inquiry.created in Attune's shape (assigned to identity %v): %s", vic, created.Body)
			}
			if resp, _ := rs["response"].(map[string]any); resp["approved"] != true || rs["responded_by"] != vic {
				t.Errorf("inquiry.responded in Attune's shape (answered by identity %v): %s", vic, responded.Body)
			}
		})
	}
}

// identityOf is a principal's integer identity, as GET /v1/me shows it to them.
func identityOf(t *testing.T, e *env, name string) float64 {
	t.Helper()
	r := e.do("GET", "/v1/me", e.token(name, hitl.RoleResponder), "")
	id, ok := r.body["identity_id"].(float64)
	if !ok {
		t.Fatalf("GET /v1/me: %s", r.text)
	}
	return id
}

// An Attune worker's way: the action's result with __inquiry comes in by REST or by RabbitMQ,
// the executor hears inquiry.created, a human answers, and inquiry.responded resumes it.
func TestAttuneWorkflowOverRabbitMQ(t *testing.T) {
	t.Parallel()
	r := newRabbit(t)
	e := startServer(t, testserver.Configure(func(c *server.Config) {
		r.config(broker.FormatAttune)(c)
		c.Brokers.AMQP.IntakeQueue = r.Exchange + "_results"
	}))
	// Declared here too, as hitl declares it, so that no result is published before the queue
	// exists (hitl connects in the background).
	_, err := r.Ch.QueueDeclare(r.Exchange+"_results", true, false, false, false, nil)
	must(t, err)
	must(t, r.Ch.QueueBind(r.Exchange+"_results", "execution.completed", r.Exchange, false, nil))
	t.Cleanup(func() { r.Ch.QueueDelete(r.Exchange+"_results", false, false, false) })
	agent := e.token("worker", hitl.RoleAgent)
	human := e.principal("vic", []string{hitl.RoleResponder})
	vic := identityOf(t, e, "vic")
	result := func(prompt string) string {
		return fmt.Sprintf(`{"__inquiry": {"prompt": %q, "response_schema": {"type": "object", "properties": {"approved": {"type": "boolean"}}},
			"assigned_to": %d, "timeout_seconds": 3600}, "deployment_plan": {"target": "production"}}`, prompt, int64(vic))
	}
	if rep := e.do("POST", "/api/v1/executions/123/result", agent, result("by REST")); rep.status != 201 {
		t.Fatalf("REST result: %d %s", rep.status, rep.text)
	}
	publish := func(id, body string) {
		t.Helper()
		must(t, r.Ch.PublishWithContext(context.Background(), r.Exchange, "execution.completed", false, false,
			amqp.Publishing{MessageId: id, Body: []byte(body), DeliveryMode: amqp.Persistent}))
	}
	publish("poison", `{"execution_id": 125, "result": {"__inquiry": {"assigned_to": 123456789}}}`)
	body := `{"payload": {"execution_id": 124, "result": ` + result("by RabbitMQ") + `}}`
	publish("m1", body)
	publish("m1-again", body) // delivered twice: one inquiry

	byExecution := map[float64]map[string]any{}
	var rejected map[string]any
	for len(byExecution) < 2 || rejected == nil {
		m := r.Next(t)
		p := decode(t, m.Body)
		switch m.RoutingKey {
		case hitl.EventInquiryCreated:
			if m.MessageId == "" || m.Type != m.RoutingKey {
				t.Errorf("message_id %q, type %q", m.MessageId, m.Type)
			}
			wantKeys(t, p, "inquiry_id", "execution_id", "prompt", "response_schema", "assigned_to", "timeout_at")
			exec, _ := p["execution_id"].(float64)
			if byExecution[exec] != nil {
				t.Errorf("a second inquiry.created for execution %v", exec)
			}
			byExecution[exec] = p
		case hitl.EventIntakeRejected:
			rejected = p
		}
	}
	for exec, prompt := range map[float64]string{123: "by REST", 124: "by RabbitMQ"} {
		p := byExecution[exec]
		if p["prompt"] != prompt || p["assigned_to"] != vic || p["timeout_at"] == nil {
			t.Errorf("inquiry.created of execution %v: %v", exec, p)
		}
	}
	if rejected["message_id"] != "poison" || rejected["execution_id"] != "125" || !strings.Contains(fmt.Sprint(rejected["reason"]), "/__inquiry/") {
		t.Errorf("intake.rejected: %v", rejected)
	}

	id := int64(byExecution[124]["inquiry_id"].(float64))
	_, err = human.Respond(context.Background(), id, json.RawMessage(`{"approved": true}`), "")
	must(t, err)
	var responded map[string]any
	for responded == nil {
		if m := r.Next(t); m.RoutingKey == hitl.EventInquiryResponded {
			responded = decode(t, m.Body)
		}
	}
	wantKeys(t, responded, "inquiry_id", "execution_id", "response", "responded_by", "responded_at")
	if responded["execution_id"] != float64(124) || responded["responded_by"] != vic || responded["inquiry_id"] != float64(id) {
		t.Errorf("inquiry.responded: %v", responded)
	}
	if q, err := r.Ch.QueueDeclarePassive(r.Exchange+"_results", true, false, false, false, nil); err != nil || q.Messages != 0 {
		t.Errorf("the intake queue holds %d messages (%v), want none: each taken or rejected", q.Messages, err)
	}
}

// wantKeys fails unless m has exactly keys.
func wantKeys(t *testing.T, m map[string]any, keys ...string) {
	t.Helper()
	if len(m) != len(keys) {
		t.Errorf("payload has %d fields, want %v: %v", len(m), keys, m)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("payload lacks %q: %v", k, m)
		}
	}
}

func TestRabbitMQConnectionLossLosesNoEvent(t *testing.T) {
	t.Parallel()
	r := newRabbit(t)
	p := newProxy(t, strings.TrimSuffix(strings.TrimPrefix(r.URL, "amqp://guest:guest@"), "/"))
	e := startServer(t, testserver.Configure(func(c *server.Config) {
		r.config(broker.FormatCloudEvents)(c)
		c.Brokers.AMQP.URL = "amqp://guest:guest@" + p.addr + "/"
	}))
	agent := e.principal("bot", []string{hitl.RoleAgent})
	const n = 30
	for i := range n {
		ask(t, agent, hitl.InquiryRequest{Prompt: fmt.Sprintf("question %d", i)})
		switch i {
		case 10: // the connection dies while events are made, and comes back
			p.cut()
		case 20:
			p.restore(t)
		}
	}
	seen := r.Drain(t, n, 30*time.Second)
	if len(seen) != n {
		t.Errorf("%d distinct events arrived, want %d", len(seen), n)
	}
	eventually(t, "the backlog metric back to 0", func() bool {
		return strings.Contains(e.do("GET", "/metrics", "", "").text, `hitl_broker_backlog{broker="amqp"} 0`)
	})
}

func TestUnreachableRabbitMQDoesNotStopServing(t *testing.T) {
	t.Parallel()
	e := startServer(t, testserver.Configure(func(c *server.Config) {
		c.Brokers.AMQP.URL = "amqp://guest:guest@127.0.0.1:1/" // nothing listens there
		c.Webhooks = fastWebhooks
	}))
	agent := e.principal("bot", []string{hitl.RoleAgent})
	ask(t, agent, hitl.InquiryRequest{Prompt: "still served?"})
	if r := e.do("GET", "/readyz", "", ""); r.status != 200 {
		t.Errorf("/readyz answers %d with RabbitMQ down, want 200", r.status)
	}
	eventually(t, "the event waiting in the backlog", func() bool {
		return strings.Contains(e.do("GET", "/metrics", "", "").text, `hitl_broker_backlog{broker="amqp"} 1`)
	})
}

func TestBadBrokerSettingsAreRefusedInWords(t *testing.T) {
	t.Parallel()
	cfg := server.Config{Addr: "127.0.0.1:0", DB: "x.db", MaxBodyBytes: 1 << 20}
	cfg.Brokers.AMQP.URL, cfg.Brokers.AMQP.Format = "http://rabbit:5672", "xml"
	cfg.Brokers.NATS.URL = "localhost:4222"
	err := cfg.Validate()
	for _, want := range []string{`--amqp-url "http://rabbit:5672" is not a RabbitMQ URL`, `--amqp-format: "xml" is not a message format`, `--nats-url "localhost:4222" is not a NATS URL`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v; want it to say %q", err, want)
		}
	}
}

func TestNodesPublishEachEventOnce(t *testing.T) {
	r := newRabbit(t)
	c := newCluster(t, 2, r.config(broker.FormatCloudEvents))
	const n = 20
	for i := range n {
		_, _, err := c.agent[i%2].CreateInquiry(context.Background(), &hitl.InquiryRequest{Prompt: fmt.Sprintf("q%d", i)}, client.CreateOptions{})
		must(t, err)
	}
	for _, node := range c.nodes {
		eventually(t, "every event confirmed", func() bool {
			return strings.Contains(node.do("GET", "/metrics", "", "").text, `hitl_broker_backlog{broker="amqp"} 0`)
		})
	}
	seen := r.Drain(t, n, 30*time.Second)
	for id, times := range seen {
		if times != 1 {
			t.Errorf("event %s was published %d times by the two nodes, want once", id, times)
		}
	}
	if len(seen) != n {
		t.Errorf("%d events published, want %d", len(seen), n)
	}
}

func TestJetStreamCarriesTheInquiryEvents(t *testing.T) {
	t.Parallel()
	url := brokertest.NATS(t)
	id := strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	e := startServer(t, testserver.Configure(func(c *server.Config) {
		c.Brokers.NATS = natsbroker.Config{URL: url, Prefix: "hitltest" + id, Stream: "HITLTEST" + id}
		c.Webhooks = fastWebhooks
	}))
	nc, err := nats.Connect(url)
	must(t, err)
	t.Cleanup(nc.Close) // after the stream is deleted: cleanups run last first
	js, err := jetstream.New(nc)
	must(t, err)
	t.Cleanup(func() { js.DeleteStream(context.Background(), "HITLTEST"+id) })
	// Asked in a trace, which the message's headers carry on (tracing_test.go).
	inq := askTraced(t, e, e.token("bot", hitl.RoleAgent), `{"prompt":"over NATS?"}`, "traceparent", agentTraceparent, "tracestate", agentState)
	var msg *jetstream.RawStreamMsg
	testserver.Eventually(t, 10*time.Second, "inquiry.created in the stream", func() bool {
		s, err := js.Stream(context.Background(), "HITLTEST"+id)
		if err != nil {
			return false
		}
		msg, err = s.GetLastMsgForSubject(context.Background(), "hitltest"+id+".inquiry.created")
		return err == nil
	})
	ce := decode(t, msg.Data)
	if data, _ := ce["data"].(map[string]any); msg.Header.Get("Nats-Msg-Id") != ce["id"] || data["id"] != float64(inq.ID) {
		t.Errorf("Nats-Msg-Id %q, CloudEvent %s; want the event's id and the inquiry", msg.Header.Get("Nats-Msg-Id"), msg.Data)
	}
	inAgentTrace(t, "the NATS message", msg.Header.Get("traceparent"), msg.Header.Get("tracestate"))
}
