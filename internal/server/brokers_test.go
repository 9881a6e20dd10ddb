package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/broker"
	"github.com/hitl-dev/hitl/client"
	"github.com/hitl-dev/hitl/internal/brokertest"
	"github.com/hitl-dev/hitl/internal/server"
	"github.com/hitl-dev/hitl/internal/testserver"
)

// rabbit is a test's own exchange and queue on the machine's RabbitMQ, deleted when it ends.
type rabbit struct {
	url, exchange, queue string
	ch                   *amqp.Channel
}

// newRabbit declares a durable exchange and a queue bound to it with "#" (every event).
func newRabbit(t *testing.T) *rabbit {
	t.Helper()
	r := &rabbit{url: brokertest.AMQP(t), exchange: "hitl_test_" + uuid.NewString()[:8]}
	r.queue = r.exchange + "_all"
	conn, err := amqp.Dial(r.url)
	must(t, err)
	t.Cleanup(func() { conn.Close() })
	r.ch, err = conn.Channel()
	must(t, err)
	must(t, r.ch.ExchangeDeclare(r.exchange, amqp.ExchangeTopic, true, false, false, false, nil))
	_, err = r.ch.QueueDeclare(r.queue, true, false, false, false, nil)
	must(t, err)
	must(t, r.ch.QueueBind(r.queue, "#", r.exchange, false, nil))
	t.Cleanup(func() {
		ch, err := conn.Channel()
		if err != nil {
			return
		}
		ch.QueueDelete(r.queue, false, false, false)
		ch.ExchangeDelete(r.exchange, false, false)
	})
	return r
}

func (r *rabbit) config(format string) func(*server.Config) {
	return func(c *server.Config) {
		c.Brokers.AMQP.URL, c.Brokers.AMQP.Exchange, c.Brokers.AMQP.Format = r.url, r.exchange, format
		c.Webhooks = fastWebhooks
	}
}

// next waits for the queue's next message.
func (r *rabbit) next(t *testing.T) amqp.Delivery {
	t.Helper()
	var got amqp.Delivery
	testserver.Eventually(t, 10*time.Second, "a message on "+r.exchange, func() bool {
		d, ok, err := r.ch.Get(r.queue, true)
		must(t, err)
		got = d
		return ok
	})
	return got
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

			created := r.next(t)
			if created.RoutingKey != hitl.EventInquiryCreated || created.Type != hitl.EventInquiryCreated {
				t.Fatalf("first message: routing key %q, type %q; want inquiry.created", created.RoutingKey, created.Type)
			}
			if created.DeliveryMode != amqp.Persistent || created.MessageId == "" || created.Timestamp.IsZero() {
				t.Errorf("message properties: delivery mode %d, message_id %q, timestamp %v; want persistent, the event id, a time", created.DeliveryMode, created.MessageId, created.Timestamp)
			}
			_, err := human.Respond(context.Background(), inq.ID, json.RawMessage(`{"approved": true}`), "")
			must(t, err)
			responded := r.next(t)
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
			if c["inquiry_id"] != float64(inq.ID) || c["prompt"] != "Approve deployment?" || c["assigned_to"] != "vic" {
				t.Errorf("inquiry.created in Attune's shape: %s", created.Body)
			}
			if resp, _ := rs["response"].(map[string]any); resp["approved"] != true || rs["responded_by"] != "vic" {
				t.Errorf("inquiry.responded in Attune's shape: %s", responded.Body)
			}
		})
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

// drain takes every message of the queue until want distinct message IDs arrived, and
// returns how many times each came.
func (r *rabbit) drain(t *testing.T, want int) map[string]int {
	t.Helper()
	seen := map[string]int{}
	testserver.Eventually(t, 30*time.Second, fmt.Sprintf("%d events on %s", want, r.exchange), func() bool {
		for {
			d, ok, err := r.ch.Get(r.queue, true)
			must(t, err)
			if !ok {
				return len(seen) >= want
			}
			if d.MessageId == "" {
				t.Fatalf("a message without message_id: %s", d.Body)
			}
			seen[d.MessageId]++
			if ce := decode(t, d.Body); ce["id"] != d.MessageId {
				t.Fatalf("message_id %q carries event %v", d.MessageId, ce["id"])
			}
		}
	})
	return seen
}

func TestRabbitMQConnectionLossLosesNoEvent(t *testing.T) {
	t.Parallel()
	r := newRabbit(t)
	p := newProxy(t, strings.TrimSuffix(strings.TrimPrefix(r.url, "amqp://guest:guest@"), "/"))
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
	seen := r.drain(t, n)
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
	seen := r.drain(t, n)
	for id, times := range seen {
		if times != 1 {
			t.Errorf("event %s was published %d times by the two nodes, want once", id, times)
		}
	}
	if len(seen) != n {
		t.Errorf("%d events published, want %d", len(seen), n)
	}
}
