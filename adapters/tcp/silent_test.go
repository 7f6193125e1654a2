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
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// A peer that stops taking data (it vanished, or hangs without reading)
// leaves written data unacknowledged; keep-alive does not probe while data
// is outstanding, so only TCP_USER_TIMEOUT ends the blocked Write.
func TestUserTimeoutFailsWriteToStalledPeer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("TCP_USER_TIMEOUT is Linux only")
	}
	const userTimeout = 500 * time.Millisecond
	srv := testkit.StartServer(t, testkit.Stall)
	s := newTCP(t, srv.Addr, tcp.Options{
		UserTimeout: userTimeout,
		// Aggressive keep-alive, to show that it is not what ends the write.
		KeepAlive: net.KeepAliveConfig{Idle: 100 * time.Millisecond, Interval: 100 * time.Millisecond, Count: 2},
	})
	ch, unsub := s.Subscribe()
	defer unsub()
	testkit.Run(t, s)
	conn, err := s.Conn(testkit.CtxWait(t))
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
	assert.Less(t, blocked, userTimeout+400*time.Millisecond+testkit.Slack)
	st := testkit.Until(t, ch, testkit.Wait, "timed out", testkit.ErrHas("connection lost", "connection timed out"))
	t.Logf("status: %v %v", st.State, st.Err)
	assert.ErrorIs(t, st.Err, supervisor.ErrSilent)
}
