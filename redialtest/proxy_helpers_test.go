package redialtest_test

import (
	"bufio"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// echo is a TCP echo server that counts what reaches it.
type echo struct {
	*testkit.Server
	received atomic.Int64 // bytes read
	ends     chan error   // each connection's read error, as it ends
}

func startEcho(t *testing.T) *echo {
	e := &echo{ends: make(chan error, 16)}
	e.Server = testkit.StartServer(t, func(c net.Conn, _ <-chan struct{}) {
		buf := make([]byte, 32<<10)
		for {
			n, err := c.Read(buf)
			e.received.Add(int64(n))
			if err != nil {
				select {
				case e.ends <- err:
				default:
				}
				return
			}
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
		}
	})
	return e
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// roundTrip sends a line and reads it back within a generous bound.
func roundTrip(t *testing.T, c net.Conn, line string) {
	t.Helper()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	_, err := c.Write([]byte(line + "\n"))
	require.NoError(t, err)
	got, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, line+"\n", got)
	require.NoError(t, c.SetDeadline(time.Time{}))
}

// silent checks that nothing arrives on c for d: a bounded look for an
// absence, the only kind there is.
func silent(t *testing.T, c net.Conn, d time.Duration) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(d)))
	n, err := c.Read(make([]byte, 1))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "%d bytes arrived", n)
	require.NoError(t, c.SetReadDeadline(time.Time{}))
}

type atomic64 = atomic.Int64

func flood(i int) byte { return byte(i % 251) }

// startFlood writes flood's bytes to each connection until it fails,
// counting what it wrote.
func startFlood(t *testing.T, written *atomic64) string {
	return testkit.StartServer(t, func(c net.Conn, _ <-chan struct{}) {
		pattern := make([]byte, 32<<10+251)
		for i := range pattern {
			pattern[i] = flood(i)
		}
		for off := 0; ; {
			n, err := c.Write(pattern[off%251 : off%251+32<<10])
			written.Add(int64(n))
			if err != nil {
				return
			}
			off += n
		}
	}).Addr
}
