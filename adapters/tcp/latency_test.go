package tcp_test

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/toxitest"
	"github.com/redial-go/redial/supervisor"
)

// slack is how much later than planned a timer may fire on a loaded
// machine running -race.
const slack = 400 * time.Millisecond

// readHello is a Handshake: the server speaks first.
func readHello(_ context.Context, c net.Conn) error {
	buf := make([]byte, len("hello\n"))
	_, err := io.ReadFull(c, buf)
	return err
}

// A proxy (or a load balancer) completes the TCP handshake itself, so
// "connected" means what the attempt includes: with only TCP, the proxy's
// accept; with TLS or a Handshake, an answer from the server, which
// latency longer than ConnectTimeout keeps from coming in time.
func TestLatencyLongerThanConnectTimeout(t *testing.T) {
	const connectTimeout, latency = 150 * time.Millisecond, 600 * time.Millisecond
	serverTLS, clientTLS := selfSigned(t)
	for _, tc := range []struct {
		name    string
		handle  func(net.Conn, <-chan struct{})
		tls     bool
		hello   bool
		timeout bool // the attempt ends at ConnectTimeout
	}{
		{name: "tcp only", handle: echo},
		{name: "handshake", handle: greet, hello: true, timeout: true},
		{name: "tls", handle: tlsServe(serverTLS, echo), tls: true, timeout: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := toxitest.New(t, startServer(t, tc.handle).addr)
			proxy.Latency(t, "slow", latency)
			o := tcp.Options{
				DialOptions: tcp.DialOptions{Address: proxy.Addr()},
				Supervisor:  supervisor.Options[net.Conn]{ConnectTimeout: connectTimeout},
			}
			if tc.tls {
				o.TLS = clientTLS
			}
			if tc.hello {
				o.Handshake = readHello
			}
			s := newTCP(t, o)
			ch, unsub := s.Subscribe()
			defer unsub()
			start := time.Now() // the first attempt is immediate
			run(t, s)
			end := until(t, ch, "attempt ended", func(st health.Status) bool {
				return st.State == health.Backoff || st.State == health.Connected
			})
			took := end.Since.Sub(start)
			t.Logf("attempt: %v, %v (%v)", took, end.State, end.Err)
			if !tc.timeout {
				assert.Equal(t, health.Connected, end.State, "TCP connects to the proxy whatever the latency")
				assert.Less(t, took, connectTimeout)
				return
			}
			require.Equal(t, health.Backoff, end.State)
			assert.ErrorContains(t, end.Err, "timed out after 150ms")
			assert.GreaterOrEqual(t, took, connectTimeout)
			assert.Less(t, took, connectTimeout+slack)

			proxy.Remove(t, "slow-up")
			proxy.Remove(t, "slow-down")
			c, err := s.Conn(ctxWait(t))
			require.NoError(t, err)
			if tc.hello {
				return
			}
			assert.NoError(t, roundTripOnce(c))
		})
	}
}

func roundTripOnce(c net.Conn) error {
	if err := c.SetDeadline(time.Now().Add(wait)); err != nil {
		return err
	}
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	buf := make([]byte, 5)
	_, err := io.ReadFull(c, buf)
	return err
}
