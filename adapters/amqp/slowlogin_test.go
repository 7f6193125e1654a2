package amqp_test

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// A login the broker is slow to answer (here: its answers after
// connection.start never arrive) ends at ConnectTimeout. That is a timed
// out attempt, not a refused password: amqp091 reports a socket closed
// during login as ErrCredentials, and two of those in a row would give up
// for good on a broker that was only slow.
func TestSlowLoginIsATimeoutNotARefusal(t *testing.T) {
	b := rabbit.Get(t)
	relay := testkit.StartServer(t, startOnly(b.Addr()))
	u, err := url.Parse(b.URL())
	require.NoError(t, err)
	u.Host = relay.Addr
	c := newClient(t, u.String(), amqp.Options{
		Supervisor: supervisor.Settings{ConnectTimeout: 300 * time.Millisecond}})
	st := run(t, c)
	last := testkit.Until(t, st, 30*time.Second, "a third failed attempt", func(s health.Status) bool {
		return s.State == health.Failed || s.State == health.Backoff && s.ConsecutiveFailures >= 3
	})
	require.NotEqual(t, health.Failed, last.State, "gave up: %v", last.Err)
	assert.NotErrorIs(t, last.Err, amqp091.ErrCredentials)
	assert.ErrorIs(t, last.Err, context.DeadlineExceeded)
}

// startOnly returns a relay handler that forwards what the client sends
// and only the broker's first read (connection.start) back: a fault in the
// middle of the login, which redialtest.Proxy's protocol-agnostic Stall
// (that would hold connection.start too) does not make.
func startOnly(addr string) func(net.Conn, <-chan struct{}) {
	return func(c net.Conn, quit <-chan struct{}) {
		up, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		var wg sync.WaitGroup
		defer func() { _, _ = c.Close(), up.Close(); wg.Wait() }()
		wg.Go(func() { _, _ = io.Copy(up, c) })
		wg.Go(func() {
			buf := make([]byte, 4096)
			n, err := up.Read(buf)
			if err != nil {
				return
			}
			_, _ = c.Write(buf[:n])
			_, _ = io.Copy(io.Discard, up)
		})
		<-quit
	}
}
