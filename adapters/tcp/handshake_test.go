package tcp_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// readHello is a Handshake that ignores its ctx: the server speaks first.
func readHello(_ context.Context, c net.Conn) error {
	buf := make([]byte, len("hello\n"))
	if _, err := io.ReadFull(c, buf); err != nil {
		return err
	}
	if string(buf) != "hello\n" {
		return fmt.Errorf("greeting %q", buf)
	}
	return nil
}

// roundTripOnce writes a line and reads its echo.
func roundTripOnce(c net.Conn) error {
	if err := c.SetDeadline(time.Now().Add(testkit.Wait)); err != nil {
		return err
	}
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(c, buf); err != nil {
		return err
	}
	if string(buf) != "ping\n" {
		return fmt.Errorf("echo %q", buf)
	}
	return nil
}

// The Handshake runs inside the attempt: the connection the program gets
// has had its greeting read.
func TestHandshakeRunsOnEveryConnection(t *testing.T) {
	s := newTCP(t, testkit.StartServer(t, testkit.Greet).Addr, tcp.Options{Handshake: readHello})
	testkit.Run(t, s)
	ctx := testkit.CtxWait(t)
	for range 2 {
		err := s.Do(ctx, func(_ context.Context, conn net.Conn) error {
			if err := roundTripOnce(conn); err != nil {
				return err
			}
			return io.EOF // done with it: the next Do gets a new one
		})
		require.ErrorIs(t, err, io.EOF)
	}
	require.NoError(t, s.Do(ctx, func(_ context.Context, conn net.Conn) error { return roundTripOnce(conn) }))
	assert.Equal(t, uint64(3), s.Status().Connects)
}

// A server that accepts and never answers fails the attempt at
// ConnectTimeout, although the Handshake ignores its ctx: its I/O is
// interrupted.
func TestHandshakeEndsWithTheAttempt(t *testing.T) {
	const connectTimeout = 100 * time.Millisecond
	s := newTCP(t, testkit.StartServer(t, testkit.Stall).Addr, tcp.Options{
		Handshake:  readHello,
		Supervisor: supervisor.Settings{ConnectTimeout: connectTimeout},
	})
	ch, unsub := s.Subscribe()
	defer unsub()
	start := time.Now()
	testkit.Run(t, s)
	st := testkit.Until(t, ch, testkit.Wait, "attempt failed", testkit.InState(health.Backoff))
	took := st.Since.Sub(start)
	t.Logf("attempt: %v (%v)", took, st.Err)
	assert.ErrorContains(t, st.Err, "connect: timed out after 100ms: handshake with 127.0.0.1:")
	assert.GreaterOrEqual(t, took, connectTimeout)
	assert.Less(t, took, connectTimeout+testkit.Slack)
}
