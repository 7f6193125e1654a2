package tcp_test

import (
	"errors"
	"net"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/internal/toxitest"
)

// A peer that stops taking data (it vanished, or hangs without reading)
// leaves written data unacknowledged; keep-alive does not probe while data
// is outstanding, so only TCP_USER_TIMEOUT ends the blocked Write.
func TestUserTimeoutFailsWriteToStalledPeer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("TCP_USER_TIMEOUT is Linux only")
	}
	const userTimeout = 500 * time.Millisecond
	srv := startServer(t, stall)
	s := newTCP(t, tcp.Options{DialOptions: tcp.DialOptions{
		Address:     srv.addr,
		UserTimeout: userTimeout,
		// Aggressive keep-alive, to show that it is not what ends the write.
		KeepAlive: net.KeepAliveConfig{Enable: true, Idle: 100 * time.Millisecond, Interval: 100 * time.Millisecond, Count: 2},
	}})
	ch, unsub := s.Subscribe()
	defer unsub()
	run(t, s)
	conn, err := s.Conn(ctxWait(t))
	require.NoError(t, err)

	// A safety net only: without TCP_USER_TIMEOUT the write ends here.
	require.NoError(t, conn.SetWriteDeadline(time.Now().Add(userTimeout+3*time.Second)))
	chunk := make([]byte, 64<<10)
	var blocked time.Duration
	written := 0
	for {
		start := time.Now()
		n, err := conn.Write(chunk)
		written += n
		if err != nil {
			blocked = time.Since(start)
			t.Logf("after %d bytes, a write blocked %v: %v", written, blocked, err)
			assert.ErrorIs(t, err, syscall.ETIMEDOUT, "the kernel gave up on the unacknowledged data")
			assert.False(t, errors.Is(err, os.ErrDeadlineExceeded), "the safety deadline ended the write")
			s.Invalidate(conn, err)
			break
		}
	}
	// The kernel starts counting at its first zero-window probe (one RTO,
	// 200ms minimum, after the window closed) and checks at probe times.
	assert.Less(t, blocked, userTimeout+400*time.Millisecond+slack)
	st := until(t, ch, "timed out", errHas("connection lost", "connection timed out"))
	t.Logf("status: %v %v", st.State, st.Err)
}

// The toxiproxy timeout toxic keeps the TCP connection healthy (the proxy
// acknowledges and drops the data), so neither keep-alive nor
// TCP_USER_TIMEOUT sees it: writes keep succeeding. Only the program's own
// read deadline (or a heartbeat, as RPC has) finds such a silent peer.
func TestSilencedProxyIsInvisibleToTCP(t *testing.T) {
	const userTimeout = 200 * time.Millisecond
	proxy := toxitest.New(t, startServer(t, echo).addr)
	s := newTCP(t, tcp.Options{DialOptions: tcp.DialOptions{
		Address:     proxy.Addr(),
		UserTimeout: userTimeout,
		KeepAlive:   net.KeepAliveConfig{Enable: true, Idle: 50 * time.Millisecond, Interval: 50 * time.Millisecond, Count: 2},
	}})
	run(t, s)
	conn, err := s.Conn(ctxWait(t))
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
