package tcp_test

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/toxitest"
	"github.com/redial-go/redial/supervisor"
)

func newTCP(t *testing.T, o tcp.Options) *supervisor.Supervisor[net.Conn] {
	t.Helper()
	if o.Supervisor.Name == "" {
		o.Supervisor.Name = "tcp"
	}
	if o.Supervisor.Backoff == (backoff.Config{}) {
		o.Supervisor.Backoff = fast(20*time.Millisecond, 100*time.Millisecond)
	}
	s, err := tcp.New(o)
	require.NoError(t, err)
	return s
}

func errHas(substr ...string) func(health.Status) bool {
	return func(st health.Status) bool {
		if st.Err == nil {
			return false
		}
		for _, s := range substr {
			if !strings.Contains(st.Err.Error(), s) {
				return false
			}
		}
		return true
	}
}

func TestServerRestartMidStream(t *testing.T) {
	srv := startServer(t, echo)
	s := newTCP(t, tcp.Options{DialOptions: tcp.DialOptions{Address: srv.addr}})
	ch, unsub := s.Subscribe()
	defer unsub()
	run(t, s)
	p := startProgram(t, s)
	c1 := p.next(t)

	srv.stop()
	lost := until(t, ch, "lost", errHas("connection lost"))
	assert.Equal(t, health.Backoff, lost.State)
	t.Logf("the program's reader saw: %v", lost.Err)
	refused := until(t, ch, "refused", errHas("connection refused"))
	assert.Equal(t, health.Backoff, refused.State, "refused is retried")

	srv.restart()
	p.next(t, c1)
	st := s.Status()
	assert.Equal(t, health.Connected, st.State)
	assert.Equal(t, uint64(2), st.Connects)
}

func TestResetPeer(t *testing.T) {
	proxy := toxitest.New(t, startServer(t, echo).addr)
	s := newTCP(t, tcp.Options{DialOptions: tcp.DialOptions{Address: proxy.Addr()}})
	ch, unsub := s.Subscribe()
	defer unsub()
	run(t, s)
	p := startProgram(t, s)
	c1 := p.next(t)

	proxy.ResetPeer(t, "rst", 0)
	st := until(t, ch, "reset", errHas("connection lost", "connection reset by peer"))
	assert.Equal(t, health.Backoff, st.State, "a reset is retried")

	proxy.Remove(t, "rst")
	p.next(t, c1)
	assert.Equal(t, health.Connected, s.Status().State)
}

func TestUnknownHostIsRetriedAndSaysSo(t *testing.T) {
	s := newTCP(t, tcp.Options{DialOptions: tcp.DialOptions{Address: "nonexistent.invalid:1", Resolver: nxdomain(t)}})
	ch, unsub := s.Subscribe()
	defer unsub()
	stop := run(t, s)
	st := until(t, ch, "third attempt", func(st health.Status) bool { return st.Attempt >= 3 })
	assert.Equal(t, health.Backoff, st.State, "not Failed: DNS comes back")
	assert.ErrorContains(t, st.Err, `host "nonexistent.invalid" not found in DNS`)
	var dns *net.DNSError
	require.ErrorAs(t, st.Err, &dns)
	assert.True(t, dns.IsNotFound)
	assert.NoError(t, stop())
}

func TestCloseOfAConnTheProgramClosedIsNotAnError(t *testing.T) {
	srv := startServer(t, echo)
	c, err := tcp.NewConnector(tcp.Options{DialOptions: tcp.DialOptions{Address: srv.addr}})
	require.NoError(t, err)
	conn, err := c.Connect(t.Context())
	require.NoError(t, err)
	require.NoError(t, conn.Close())
	assert.NoError(t, c.Close(conn))
	_, err = conn.Write([]byte("x"))
	assert.True(t, errors.Is(err, net.ErrClosed))
}

// Reconnect never returns the connection it reported, even before the
// supervisor's goroutine has dropped it.
func TestReconnectNeverReturnsTheSameConn(t *testing.T) {
	s := newTCP(t, tcp.Options{DialOptions: tcp.DialOptions{Address: startServer(t, echo).addr}})
	run(t, s)
	ctx := ctxWait(t)
	conn, err := s.Conn(ctx)
	require.NoError(t, err)
	for i := range 20 {
		next, err := tcp.Reconnect(ctx, s, conn, io.EOF)
		require.NoError(t, err)
		require.NotEqual(t, conn, next, "reconnect %d returned the invalidated conn", i)
		conn = next
	}
	st := s.Status()
	assert.Equal(t, uint64(21), st.Connects)
	assert.ErrorIs(t, st.Err, io.EOF)
}
