package tcp_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/adapters/tcp/tcptls"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// newTCP returns a supervisor of address with a short backoff.
func newTCP(t *testing.T, address string, o tcp.Options) *supervisor.Supervisor[net.Conn] {
	t.Helper()
	return newLink(t, address, nil, o)
}

// newLink is newTCP, or over TLS with cfg when it is set (tcptls).
func newLink(t *testing.T, address string, cfg *tls.Config, o tcp.Options) *supervisor.Supervisor[net.Conn] {
	t.Helper()
	if o.Supervisor.Name == "" {
		o.Supervisor.Name = "tcp"
	}
	if o.Supervisor.Backoff == (backoff.Config{}) {
		o.Supervisor.Backoff = backoff.Config{Strategy: backoff.Exponential, Base: 20 * time.Millisecond, Cap: 100 * time.Millisecond}
	}
	var s *supervisor.Supervisor[net.Conn]
	var err error
	if cfg != nil {
		s, err = tcptls.New(address, tcptls.Options{TLS: cfg, Options: o})
	} else {
		s, err = tcp.New(address, o)
	}
	require.NoError(t, err)
	return s
}

// run starts s.Run until the test ends.
func run(t *testing.T, s *supervisor.Supervisor[net.Conn]) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-s.Done() })
}

// readHello is a Handshake: the server speaks first.
func readHello(_ context.Context, c net.Conn) error {
	buf := make([]byte, len("hello\n"))
	_, err := io.ReadFull(c, buf)
	return err
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
	_, err := io.ReadFull(c, buf)
	return err
}
