package tcp_test

import (
	"crypto/tls"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

func TestResetPeer(t *testing.T) {
	proxy := toxitest.New(t, testkit.StartServer(t, testkit.Echo).Addr)
	s := newTCP(t, proxy.Addr(), tcp.Options{})
	ch, unsub := s.Subscribe()
	defer unsub()
	run(t, s)
	p := startProgram(t, s)
	c1 := p.next(t)

	proxy.ResetPeer(t, "rst", 0)
	st := testkit.Until(t, ch, testkit.Wait, "reset", testkit.ErrHas("connection lost", "connection reset by peer"))
	assert.Equal(t, health.Backoff, st.State, "a reset is retried")

	proxy.Remove(t, "rst")
	p.next(t, c1)
	assert.Equal(t, health.Connected, s.Status().State)
}

// A proxy (or a load balancer) completes the TCP handshake itself, so
// "connected" means what the attempt includes: with only TCP, the proxy's
// accept; with TLS or a Handshake, an answer from the server, which
// latency longer than ConnectTimeout keeps from coming in time.
func TestLatencyLongerThanConnectTimeout(t *testing.T) {
	const connectTimeout, latency = 150 * time.Millisecond, 600 * time.Millisecond
	serverTLS, clientTLS := testkit.SelfSigned(t)
	for _, tc := range []struct {
		name    string
		handle  func(net.Conn, <-chan struct{})
		tls     bool
		hello   bool
		timeout bool // the attempt ends at ConnectTimeout
	}{
		{name: "tcp only", handle: testkit.Echo},
		{name: "handshake", handle: testkit.Greet, hello: true, timeout: true},
		{name: "tls", handle: testkit.TLSServe(serverTLS, testkit.Echo), tls: true, timeout: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := toxitest.New(t, testkit.StartServer(t, tc.handle).Addr)
			proxy.Latency(t, "slow", latency)
			o := tcp.Options{Supervisor: supervisor.Settings{ConnectTimeout: connectTimeout}}
			var cfg *tls.Config
			if tc.tls {
				cfg = clientTLS
			}
			if tc.hello {
				o.Handshake = readHello
			}
			s := newLink(t, proxy.Addr(), cfg, o)
			ch, unsub := s.Subscribe()
			defer unsub()
			start := time.Now() // the first attempt is immediate
			run(t, s)
			end := testkit.Until(t, ch, testkit.Wait, "attempt ended", func(st health.Status) bool {
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
			assert.Less(t, took, connectTimeout+testkit.Slack)

			proxy.Remove(t, "slow-up")
			proxy.Remove(t, "slow-down")
			c, err := s.Conn(testkit.CtxWait(t))
			require.NoError(t, err)
			if tc.hello {
				return
			}
			assert.NoError(t, roundTripOnce(c))
		})
	}
}

// The toxiproxy timeout toxic keeps the TCP connection healthy (the proxy
// acknowledges and drops the data), so neither keep-alive nor
// TCP_USER_TIMEOUT sees it: writes keep succeeding. Only the program's own
// read deadline (or a heartbeat, as RPC has) finds such a silent peer.
func TestSilencedProxyIsInvisibleToTCP(t *testing.T) {
	const userTimeout = 200 * time.Millisecond
	proxy := toxitest.New(t, testkit.StartServer(t, testkit.Echo).Addr)
	s := newTCP(t, proxy.Addr(), tcp.Options{
		UserTimeout: userTimeout,
		KeepAlive:   net.KeepAliveConfig{Idle: 50 * time.Millisecond, Interval: 50 * time.Millisecond, Count: 2},
	})
	run(t, s)
	conn, err := s.Conn(testkit.CtxWait(t))
	require.NoError(t, err)
	require.NoError(t, roundTripOnce(conn))

	proxy.Silence(t, "silent")
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	end := time.Now().Add(4 * userTimeout)
	for time.Now().Before(end) {
		_, err := conn.Write(make([]byte, 1024))
		require.NoError(t, err, "TCP saw the silenced proxy")
		<-tick.C
	}
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(100*time.Millisecond)))
	_, err = conn.Read(make([]byte, 1))
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded, "the read deadline finds the silence")
}
