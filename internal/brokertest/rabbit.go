package brokertest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/hitl-dev/hitl/internal/testserver"
)

// Rabbit is a test's own exchange on the machine's RabbitMQ, with a queue bound to it with "#"
// (every event); both are deleted when the test ends.
type Rabbit struct {
	URL, Exchange, Queue string
	Ch                   *amqp.Channel
}

// NewRabbit declares the exchange (durable topic, as hitl declares it) and the queue.
func NewRabbit(t testing.TB) *Rabbit {
	t.Helper()
	r := &Rabbit{URL: AMQP(t), Exchange: "hitl_test_" + uuid.NewString()[:8]}
	r.Queue = r.Exchange + "_all"
	conn, err := amqp.Dial(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if r.Ch, err = conn.Channel(); err != nil {
		t.Fatal(err)
	}
	if err := r.Ch.ExchangeDeclare(r.Exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Ch.QueueDeclare(r.Queue, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.Ch.QueueBind(r.Queue, "#", r.Exchange, false, nil); err != nil {
		t.Fatal(err)
	}
	CleanUpRabbit(t, r.URL, r.Exchange)
	return r
}

// CleanUpRabbit deletes, when the test ends, what a test named name made on the broker or had
// hitl make: the exchanges name and name_exec, the queues name_all, name_intake and
// name_results. It dials anew: the test's own connection may be closed by then (a test of
// lost connections closes it on purpose).
func CleanUpRabbit(t testing.TB, url, name string) {
	t.Cleanup(func() {
		conn, err := amqp.Dial(url)
		if err != nil {
			t.Logf("cleaning up %s on RabbitMQ: %v", name, err)
			return
		}
		defer conn.Close()
		ch, err := conn.Channel()
		if err != nil {
			t.Logf("cleaning up %s on RabbitMQ: %v", name, err)
			return
		}
		for _, q := range []string{name + "_all", name + "_intake", name + "_results"} {
			ch.QueueDelete(q, false, false, false)
		}
		for _, x := range []string{name, name + "_exec"} {
			ch.ExchangeDelete(x, false, false)
		}
	})
}

// Next waits for the queue's next message.
func (r *Rabbit) Next(t testing.TB) amqp.Delivery {
	t.Helper()
	var got amqp.Delivery
	testserver.Eventually(t, 10*time.Second, "a message on "+r.Exchange, func() bool {
		d, ok, err := r.Ch.Get(r.Queue, true)
		if err != nil {
			t.Fatal(err)
		}
		got = d
		return ok
	})
	return got
}

// Drain takes the queue's CloudEvents until want distinct message IDs arrived, checking that
// each carries the event its message_id names, and returns how many times each came.
func (r *Rabbit) Drain(t testing.TB, want int, within time.Duration) map[string]int {
	t.Helper()
	seen := map[string]int{}
	testserver.Eventually(t, within, fmt.Sprintf("%d events on %s", want, r.Exchange), func() bool {
		for {
			d, ok, err := r.Ch.Get(r.Queue, true)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return len(seen) >= want
			}
			var ce struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(d.Body, &ce); err != nil || d.MessageId == "" || ce.ID != d.MessageId {
				t.Fatalf("message_id %q carries %s", d.MessageId, d.Body)
			}
			seen[d.MessageId]++
		}
	})
	return seen
}
