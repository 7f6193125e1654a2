package toxitest_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/internal/testing/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// echo starts an echo server and returns its address.
func echo(t *testing.T) string {
	return testkit.Serve(t, func(c net.Conn) { _, _ = io.Copy(c, c) })
}

func roundTrip(c net.Conn) error {
	_ = c.SetDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	_, err := bufio.NewReader(c).ReadString('\n')
	return err
}

func TestProxyFaults(t *testing.T) {
	p := toxitest.New(t, echo(t))
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, roundTrip(c))

	p.Silence(t, "s")
	err = roundTrip(c)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout(), "a silenced peer times out: %v", err)
	p.Unsilence(t, "s")
	c.Close()

	p.ResetPeer(t, "rst", 0)
	c2, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c2.Close()
	err = roundTrip(c2)
	assert.True(t, errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF), "reset_peer: %v", err)
	p.Remove(t, "rst")

	p.Disable()
	_, err = net.Dial("tcp", p.Addr())
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	p.Enable(t)
	c3, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c3.Close()
	assert.NoError(t, roundTrip(c3))
}

// NewOn listens where it is told to, and again there after Enable.
func TestNewOnListensThere(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	p := toxitest.NewOn(t, addr, echo(t))
	assert.Equal(t, addr, p.Addr())
	p.Disable()
	p.Enable(t)
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	assert.NoError(t, roundTrip(c))
}
