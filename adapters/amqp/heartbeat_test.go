package amqp_test

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// A broker that hangs (SIGSTOP: its sockets stay open, nothing answers) is
// given up on by the heartbeat within 15s with the defaults, by a client
// that publishes and by one that has sent nothing since its handshake;
// the message sent meanwhile may or may not have been delivered; once the
// broker runs again the clients are back.
func TestFrozenBrokerIsFoundWithin15s(t *testing.T) {
	b := rabbit.Get(t)
	q := queueName(t)
	c := newClient(t, b.URL(), amqp.Options{Topology: declare(q)})
	st := run(t, c)
	connected(t, st)
	quiet := newClient(t, b.URL(), amqp.Options{})
	quietSt := run(t, quiet)
	connected(t, quietSt)
	ctx := ctxFor(t, 2*time.Minute)
	if err := c.Publish(ctx, "", q, amqp091.Publishing{Body: []byte("opens the publisher's channel")}); err != nil {
		t.Fatal(err)
	}

	thaw := freeze(t, b)
	frozen := time.Now()
	published := make(chan error, 1)
	go func() { published <- c.Publish(ctx, "", q, amqp091.Publishing{Body: []byte("x")}) }()
	until(t, st, "the loss", func(s health.Status) bool { return s.State != health.Connected })
	took := time.Since(frozen)
	lost := lossOf(t, c)
	t.Logf("lost after %v: %v", took, lost)
	assert.LessOrEqual(t, took, 16*time.Second, "1.5 heartbeats of 10s, and a scheduling margin")
	assert.ErrorIs(t, lost, supervisor.ErrSilent)
	assert.Contains(t, lost.Error(), "broker silent")
	assert.Contains(t, lost.Error(), "Heartbeat 10s")
	err := <-published
	assert.ErrorIs(t, err, amqp.ErrMaybeDelivered, "%v", err)
	until(t, quietSt, "the quiet client's loss", func(s health.Status) bool { return s.State != health.Connected })
	took = time.Since(frozen)
	quietLost := lossOf(t, quiet)
	t.Logf("the quiet client's loss after %v: %v", took, quietLost)
	assert.ErrorIs(t, quietLost, supervisor.ErrSilent)
	assert.LessOrEqual(t, took, 16*time.Second)

	thaw()
	connected(t, st)
	connected(t, quietSt)
}

// A broker that hangs in the middle of Topology: the attempt ends at
// ConnectTimeout (its socket closed under the waiting declare), and the
// client connects once the broker runs again.
func TestTopologyIsBoundedByConnectTimeout(t *testing.T) {
	b := rabbit.Get(t)
	q := queueName(t)
	var frozen atomic.Bool
	o := amqp.Options{Topology: func(ctx context.Context, ch *amqp091.Channel) error {
		if frozen.CompareAndSwap(false, true) {
			b.Freeze(t) // the first attempt's declare waits on a broker that hangs
		}
		return declare(q)(ctx, ch)
	}}
	o.Supervisor.ConnectTimeout = time.Second
	c := newClient(t, b.URL(), o)
	thawed := false
	t.Cleanup(func() {
		if !thawed {
			b.Thaw(t)
		}
	})
	st := run(t, c)
	failed := until(t, st, "the first attempt's end", func(s health.Status) bool { return s.State == health.Backoff })
	h := c.History()
	took := h[1].At.Sub(h[0].At)
	t.Logf("the attempt ended after %v: %v", took, failed.Err)
	assert.Contains(t, failed.Err.Error(), "timed out after 1s")
	assert.Less(t, took, 2*time.Second)
	thawed = true
	b.Thaw(t)
	connected(t, st)
}

// Run's ctx ends while a handshake waits on a server that took the
// protocol header and answers nothing: the handshake's socket is closed
// and Run returns at once, not at the attempt's ConnectTimeout.
func TestStopDuringAHandshake(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	header := make(chan net.Conn, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = io.ReadFull(conn, make([]byte, 8)) // "AMQP" 0 0 9 1
		header <- conn
	}()
	c := newClient(t, "amqp://app:pw@"+ln.Addr().String()+"/", amqp.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	conn := <-header
	defer conn.Close()
	cancel()
	stopped := time.Now()
	select {
	case err := <-done:
		assert.NoError(t, err)
		t.Logf("Run returned %v after cancel", time.Since(stopped))
		assert.Less(t, time.Since(stopped), 2*time.Second)
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
	}
}
