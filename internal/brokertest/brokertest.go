// Package brokertest points tests at the machine's RabbitMQ and NATS JetStream. Under CI
// (CI=true) an unreachable broker fails the test; elsewhere the test is skipped with a message
// that says how to run it.
package brokertest

import (
	"net"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/hitl-dev/hitl/internal/testskip"
)

// Environment variables that override the brokers' addresses.
const (
	EnvAMQP = "HITL_TEST_AMQP_URL"
	EnvNATS = "HITL_TEST_NATS_URL"
)

// AMQP returns the URL of a reachable RabbitMQ (default amqp://guest:guest@127.0.0.1:5672/).
func AMQP(t testing.TB) string {
	t.Helper()
	return reachable(t, "RabbitMQ", EnvAMQP, "amqp://guest:guest@127.0.0.1:5672/", "rabbitmq-server -detached")
}

// NATS returns the URL of a reachable NATS server (default nats://127.0.0.1:4222), which must
// have JetStream on.
func NATS(t testing.TB) string {
	t.Helper()
	return reachable(t, "NATS", EnvNATS, "nats://127.0.0.1:4222", "nats-server -js")
}

func reachable(t testing.TB, name, env, def, start string) string {
	t.Helper()
	raw := os.Getenv(env)
	if raw == "" {
		raw = def
	}
	u, err := url.Parse(raw)
	if err == nil {
		var c net.Conn
		if c, err = net.DialTimeout("tcp", u.Host, 2*time.Second); err == nil {
			c.Close()
			return raw
		}
	}
	why := name + " tests (" + err.Error() + "): start it (" + start + ") or set " + env
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s cannot be reached in CI: %s", name, why)
	}
	testskip.Skip(t, why)
	return ""
}
