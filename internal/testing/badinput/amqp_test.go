package badinput

import (
	"context"
	"testing"
	"time"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

func TestAMQPBadInput(t *testing.T) {
	client := func(url string, o amqp.Options) func() error {
		return func() error { _, err := amqp.New(url, o); return err }
	}
	const ok = "amqp://u:hunter22@h/"
	check(t, []bad{
		{"empty url", client("", amqp.Options{}), "amqp: url: empty (want amqp://user:password@host:5672/vhost)"},
		{"malformed url", client("amqp://u:hunter22@[::1/", amqp.Options{}),
			"amqp: url: malformed: missing ']' in host (escape '?', '#', '/' and '@' in a password)"},
		{"http scheme", client("http://u:hunter22@h/", amqp.Options{}), `amqp: url "http://xxxxx@h/": scheme "http" is not amqp or amqps`},
		{"no host", client("amqp:///vhost", amqp.Options{}), `amqp: url "amqp:///vhost": no host`},
		{"heartbeat in the query", client(ok+"?heartbeat=0", amqp.Options{}), `amqp: url "amqp://xxxxx@h/?heartbeat=0": heartbeat in the query: set Options.Heartbeat instead`},
		{"bad replica", client(ok, amqp.Options{Replicas: []string{"amqps://h:x/"}}), `amqp: Replicas[0]: malformed: invalid port ":x" after host (escape '?', '#', '/' and '@' in a password)`},
		{"negative Heartbeat", client(ok, amqp.Options{Heartbeat: -time.Second}), "amqp: Heartbeat -1s: negative"},
		{"Heartbeat in milliseconds", client(ok, amqp.Options{Heartbeat: 1500 * time.Millisecond}), "amqp: Heartbeat 1.5s: not a whole number of seconds (AMQP counts heartbeats in seconds)"},
		{"century Heartbeat", client(ok, amqp.Options{Heartbeat: century}), "amqp: Heartbeat 876000h0m0s: longer than 18h12m15s"},
		{"negative Prefetch", client(ok, amqp.Options{Prefetch: -1}), "amqp: Prefetch -1: negative"},
		{"huge Prefetch", client(ok, amqp.Options{Prefetch: 1 << 20}), "amqp: Prefetch 1048576: more than 65535 (basic.qos counts in 16 bits)"},
		{"supervisor Cap of a century", client(ok, amqp.Options{Supervisor: supervisor.Settings{Backoff: backoff.Config{Cap: century}}}),
			"amqp: Supervisor.Backoff.Cap 876000h0m0s: longer than 24h0m0s"},
		{"supervisor negative ConnectTimeout", client(ok, amqp.Options{Supervisor: supervisor.Settings{ConnectTimeout: -time.Second}}),
			"amqp: Supervisor.ConnectTimeout -1s: negative"},
		{"Deliveries of queue \"\"", func() error {
			c, err := amqp.New(ok, amqp.Options{})
			if err != nil {
				return err
			}
			for _, err := range c.Deliveries(context.Background(), "") {
				return err
			}
			return nil
		}, `amqp: queue: empty (the default queue name means the last one declared on the channel)`},
	})
}
