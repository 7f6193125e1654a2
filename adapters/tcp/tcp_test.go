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
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// newTCP returns a supervisor of address with a short backoff.
func newTCP(t *testing.T, address string, o tcp.Options) *supervisor.Supervisor[net.Conn] {
	t.Helper()
	if o.Supervisor.Name == "" {
		o.Supervisor.Name = "tcp"
	}
	if o.Supervisor.Backoff == (backoff.Config{}) {
		o.Supervisor.Backoff = testkit.Fast(20*time.Millisecond, 100*time.Millisecond)
	}
	s, err := tcp.New(address, o)
	require.NoError(t, err)
	return s
}

func TestUnknownHostIsRetriedAndSaysSo(t *testing.T) {
	s := newTCP(t, "nonexistent.invalid:1", tcp.Options{Resolver: nxdomain(t)})
	ch, unsub := s.Subscribe()
	defer unsub()
	stop := testkit.Run(t, s)
	st := testkit.Until(t, ch, testkit.Wait, "third attempt", func(st health.Status) bool { return st.ConsecutiveFailures >= 3 })
	assert.Equal(t, health.Backoff, st.State, "not Failed: DNS comes back")
	assert.ErrorContains(t, st.Err, `host "nonexistent.invalid" not found in DNS`)
	var dns *net.DNSError
	require.ErrorAs(t, st.Err, &dns)
	assert.True(t, dns.IsNotFound)
	assert.NoError(t, stop())
}

// Connections never yields the connection the body invalidated, even
// before the supervisor's goroutine has dropped it.
func TestConnectionsNeverYieldTheSameConn(t *testing.T) {
	s := newTCP(t, testkit.StartServer(t, testkit.Echo).Addr, tcp.Options{})
	testkit.Run(t, s)
	var prev net.Conn
	n := 0
	for conn := range s.Connections(testkit.CtxWait(t)) {
		require.True(t, conn != prev, "connection %d is the invalidated one", n)
		if n++; n == 21 {
			break
		}
		s.Invalidate(conn, io.EOF)
		prev = conn
	}
	require.Equal(t, 21, n, "the loop ended early: %v", s.Status().Err)
	st := s.Status()
	assert.Equal(t, uint64(21), st.Connects)
	assert.ErrorIs(t, st.Err, io.EOF)
}

// Do never runs f on a connection an earlier f broke.
func TestDoNeverGetsTheInvalidatedConn(t *testing.T) {
	s := newTCP(t, testkit.StartServer(t, testkit.Echo).Addr, tcp.Options{})
	testkit.Run(t, s)
	ctx := testkit.CtxWait(t)
	var prev net.Conn
	for i := range 20 {
		err := s.Do(ctx, func(_ context.Context, conn net.Conn) error {
			require.True(t, conn != prev, "Do %d got the invalidated conn", i)
			prev = conn
			return io.EOF
		})
		require.ErrorIs(t, err, io.EOF, "Do returns f's error")
	}
	st := s.Status()
	assert.GreaterOrEqual(t, st.Connects, uint64(20))
	assert.ErrorIs(t, st.Err, io.EOF)
}
