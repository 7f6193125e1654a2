package amqp_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/rabbittest"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// A path that stalls (toxiproxy's timeout toxic both ways: nothing passes,
// nothing closes) under a connected client with the default options: the
// heartbeat gives it up within 15s; an attempt on the stalled path ends
// within ConnectTimeout (10s; the broker's own handshake timeout is 10s
// too, and its close passes the stall); once the path heals the client
// is back.
func TestStalledPathFoundWithin15s(t *testing.T) {
	b := rabbit.Get(t)
	p := toxitest.New(t, b.Addr())
	var out testkit.Buffer
	c, err := amqp.New(b.URLAt(p.Addr(), rabbittest.User, b.Password(), "/"), amqp.Options{
		Supervisor: supervisor.Settings{Logger: slog.New(slog.NewTextHandler(&out, nil))}})
	require.NoError(t, err)
	defer func() {
		if t.Failed() {
			t.Log(out.String())
		}
	}()
	st := run(t, c)
	until(t, st, time.Minute, "connected", isConnected)

	p.Silence(t, "stall")
	stalled := time.Now()
	until(t, st, 30*time.Second, "the loss", func(s health.Status) bool { return s.State != health.Connected })
	found := time.Since(stalled)
	lost := since(c, stalled)[0]
	t.Logf("stalled path found after %v: %v", found, lost.Err)
	assert.LessOrEqual(t, found, 16*time.Second, "1.5 heartbeats of 10s, and a scheduling margin")
	assert.Contains(t, lost.Err.Error(), "broker silent")

	until(t, st, 30*time.Second, "a failed attempt", func(s health.Status) bool { return s.State == health.Backoff && s.ConsecutiveFailures > 0 })
	h := since(c, stalled)
	for i := 1; i < len(h); i++ {
		if h[i-1].To == health.Connecting && h[i].ConsecutiveFailures > 0 {
			took := h[i].At.Sub(h[i-1].At)
			t.Logf("an attempt on the stalled path failed after %v: %v", took, h[i].Err)
			assert.LessOrEqual(t, took, 11*time.Second, "ConnectTimeout (10s) bounds it, whoever gives up first")
			break
		}
	}
	p.Unsilence(t, "stall")
	until(t, st, time.Minute, "connected again", isConnected)
}

// Two paths to the broker, as two nodes of a cluster would be: when the
// first is cut, the client goes to the second at once (FailoverSpread,
// 500ms with the defaults), not after a backoff.
func TestFailoverToTheOtherNode(t *testing.T) {
	b := rabbit.Get(t)
	a, other := toxitest.New(t, b.Addr()), toxitest.New(t, b.Addr())
	url := func(p *toxitest.Proxy) string { return b.URLAt(p.Addr(), rabbittest.User, b.Password(), "/") }
	c, err := amqp.New(url(a), amqp.Options{Replicas: []string{url(other)}, Topology: func(_ context.Context, ch *amqp091.Channel) error {
		_, err := ch.QueueDeclare("failover", false, false, false, false, nil)
		return err
	}})
	require.NoError(t, err)
	st := run(t, c)
	first := until(t, st, time.Minute, "connected", isConnected)
	assert.True(t, strings.Contains(first.Endpoint, a.Addr()), first.Endpoint)

	a.Disable() // the node is down: its connections close, new ones are refused
	cut := time.Now()
	second := until(t, st, time.Minute, "connected to the other node", func(s health.Status) bool {
		return s.State == health.Connected && strings.Contains(s.Endpoint, other.Addr())
	})
	t.Logf("on %s %v after the cut", second.Endpoint, time.Since(cut))
	assert.Less(t, time.Since(cut), 3*time.Second, "no backoff wait: FailoverSpread only")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, c.Publish(ctx, "", "failover", amqp091.Publishing{}), "publishing works on the other node")
}
