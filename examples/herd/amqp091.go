package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/redial-go/redial/backoff"
)

// amqp091Client is a reference model, not that library's code: the
// recovery of github.com/rabbitmq/amqp091-go v1.16.0 (Config.Recovery with
// DefaultReconnectionConfig, Connection.Reconnect): before each of 5
// attempts it waits 5 s plus rand[0, 500 ms), and after the fifth failure
// it gives up for good.
type amqp091Client struct {
	rng   *rand.Rand
	tries int
}

const (
	amqp091Interval = 5 * time.Second
	amqp091Jitter   = 500 * time.Millisecond
	amqp091Tries    = 5
	// gaveUp is the wait of a client that gave up: past any horizon, so
	// that it counts as not back (Left).
	gaveUp = time.Duration(1 << 62)
)

func (c *amqp091Client) wait() time.Duration {
	c.tries++
	return amqp091Interval + time.Duration(c.rng.Int64N(int64(amqp091Jitter)))
}

func (c *amqp091Client) first() time.Duration { c.tries = 0; return c.wait() }

func (c *amqp091Client) failed(error, time.Duration) time.Duration {
	if c.tries >= amqp091Tries {
		return gaveUp
	}
	return c.wait()
}

func amqp091Clients(s scenario) []client {
	out := make([]client, s.N)
	for i := range out {
		out[i] = &amqp091Client{rng: rand.New(rand.NewPCG(s.Seed, uint64(i)+5))}
	}
	return out
}

// simulateBroker runs the broker rows (-amqp091): amqp091-go's own
// recovery beside redial's policy, N clients losing one broker.
func simulateBroker(s scenario) ([]result, error) {
	cs, err := clientsFor(s, backoff.Decorrelated, true)
	if err != nil {
		return nil, err
	}
	return []result{
		run("amqp091 recovery", s, amqp091Clients(s), false, false),
		run("redial policy", s, cs, false, false),
	}, nil
}

// reportBroker prints the broker rows: who came back when, and who gave up.
func reportBroker(w io.Writer, s scenario, rs []result) {
	fmt.Fprintf(w, "herd -amqp091: N=%d clients lose one broker, down %v then %d/s; amqp091-go's recovery waits 5s+rand[0,500ms) before each of 5 attempts; redial's policy base %v, cap %v\n\n",
		s.N, s.Down, s.Rate, s.Base, s.Cap)
	fmt.Fprintf(w, "| %-16s | %8s | %12s | %8s | %8s | %8s | %9s |\n", "strategy", "peak/win", "peak up /cap", "attempts", "failed", "gave up", "last back")
	fmt.Fprintf(w, "|%s|%s|%s|%s|%s|%s|%s|\n", dash(18), dash(10), dash(14), dash(10), dash(10), dash(10), dash(11))
	for _, r := range rs {
		m := measure(s, r)
		last := "-"
		if r.Left < s.N {
			last = r.LastConnected.Round(100 * time.Millisecond).String()
		}
		fmt.Fprintf(w, "| %-16s | %8d | %12.2f | %8d | %8d | %8d | %9s |\n",
			r.Name, m.peak, m.peakAfterUp/(float64(s.Rate)*s.Window.Seconds()), r.Attempts, r.Failed, r.Left, last)
	}
}
