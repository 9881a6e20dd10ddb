package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/client"
)

// amqpPublish runs a server of its own, on a fresh SQLite file and publishing to an exchange
// of its own, so that the other scenarios' events do not crowd the broker's figures (and the
// broker does not slow theirs). It creates AMQPEvents inquiries as fast as it can: the events
// per second run from the first creation to the last message a consumer bound to the exchange
// got (RabbitMQ routes a message before it confirms it). Then 50 one at a time, for the latency
// from the creation's answer (the commit) to the consumer having the message.
func (r *run) amqpPublish(ctx context.Context, dir string) (float64, Latency, error) {
	n := r.o.AMQPEvents
	exchange := fmt.Sprintf("hitl_bench_%d", time.Now().UnixNano())
	conn, err := amqp.Dial(r.o.AMQPURL)
	if err != nil {
		return 0, Latency{}, err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return 0, Latency{}, err
	}
	defer ch.ExchangeDelete(exchange, false, false)
	if err := ch.ExchangeDeclare(exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		return 0, Latency{}, err
	}
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		return 0, Latency{}, err
	}
	if err := ch.QueueBind(q.Name, hitl.EventInquiryCreated, exchange, false, nil); err != nil {
		return 0, Latency{}, err
	}
	msgs, err := ch.ConsumeWithContext(ctx, q.Name, "", true, true, false, false, nil)
	if err != nil {
		return 0, Latency{}, err
	}
	arrivals := make(chan time.Time, n+100)
	go func() {
		seen := map[string]bool{}
		for d := range msgs {
			if !seen[d.MessageId] {
				seen[d.MessageId] = true
				arrivals <- time.Now()
			}
		}
	}()

	o := r.o
	o.Server = append(slices.Clone(o.Server), "--amqp-url", o.AMQPURL, "--amqp-exchange", exchange)
	url, stop, _, err := startServer(ctx, o, filepath.Join(dir, "amqp.db"), dir)
	if err != nil {
		return 0, Latency{}, err
	}
	defer stop()
	admin := client.New(url, adminToken, r.hc)
	if err := ready(ctx, admin); err != nil {
		return 0, Latency{}, err
	}
	k, err := admin.CreateKey(ctx, &hitl.KeyRequest{Name: "bench-amqp-agent", Roles: []string{hitl.RoleAgent}})
	if err != nil {
		return 0, Latency{}, err
	}
	sub := *r
	sub.agent = client.New(url, k.Token, r.hc)
	return sub.burstThenOneByOne(ctx, n, "amqp", arrivals, "an event at the RabbitMQ consumer")
}

// ReachableAMQP is RabbitMQ's URL (HITL_BENCH_AMQP_URL, default the local guest account) when it
// answers, else "" and why not, for the run's note.
func ReachableAMQP() (url, why string) {
	url = os.Getenv("HITL_BENCH_AMQP_URL")
	if url == "" {
		url = "amqp://guest:guest@127.0.0.1:5672/"
	}
	conn, err := amqp.DialConfig(url, amqp.Config{Dial: amqp.DefaultDial(2 * time.Second)})
	if err != nil {
		return "", "no RabbitMQ at " + url + " (" + err.Error() + "); set HITL_BENCH_AMQP_URL"
	}
	conn.Close()
	return url, ""
}
