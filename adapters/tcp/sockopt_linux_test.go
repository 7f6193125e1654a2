//go:build linux

package tcp_test

import (
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/redial-go/redial/adapters/tcp"
)

// sockopts reads the socket options the dialer is meant to set.
func sockopts(t *testing.T, c net.Conn) map[string]int {
	t.Helper()
	raw, err := c.(syscall.Conn).SyscallConn()
	require.NoError(t, err)
	got := map[string]int{}
	require.NoError(t, raw.Control(func(fd uintptr) {
		for name, opt := range map[string][2]int{
			"SO_KEEPALIVE":     {unix.SOL_SOCKET, unix.SO_KEEPALIVE},
			"TCP_KEEPIDLE":     {unix.IPPROTO_TCP, unix.TCP_KEEPIDLE},
			"TCP_KEEPINTVL":    {unix.IPPROTO_TCP, unix.TCP_KEEPINTVL},
			"TCP_KEEPCNT":      {unix.IPPROTO_TCP, unix.TCP_KEEPCNT},
			"TCP_USER_TIMEOUT": {unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT},
		} {
			v, err := unix.GetsockoptInt(int(fd), opt[0], opt[1])
			require.NoError(t, err, name)
			got[name] = v
		}
	}))
	return got
}

func TestSocketOptions(t *testing.T) {
	addr := startServer(t, echo).addr
	for name, tc := range map[string]struct {
		o    tcp.DialOptions
		want map[string]int
	}{
		"defaults": {tcp.DialOptions{Address: addr}, map[string]int{
			"SO_KEEPALIVE": 1, "TCP_KEEPIDLE": 15, "TCP_KEEPINTVL": 5, "TCP_KEEPCNT": 3, "TCP_USER_TIMEOUT": 30000}},
		"set": {tcp.DialOptions{Address: addr, UserTimeout: 1500 * time.Millisecond,
			KeepAlive: net.KeepAliveConfig{Enable: true, Idle: 2 * time.Second, Count: 7}}, map[string]int{
			"SO_KEEPALIVE": 1, "TCP_KEEPIDLE": 2, "TCP_KEEPINTVL": 5, "TCP_KEEPCNT": 7, "TCP_USER_TIMEOUT": 1500}},
		"keep-alive off": {tcp.DialOptions{Address: addr, DisableKeepAlive: true}, map[string]int{
			"SO_KEEPALIVE": 0}},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := tcp.NewConnector(tcp.Options{DialOptions: tc.o})
			require.NoError(t, err)
			conn, err := c.Connect(t.Context())
			require.NoError(t, err)
			defer c.Close(conn)
			got := sockopts(t, conn)
			for k, v := range tc.want {
				assert.Equal(t, v, got[k], k)
			}
		})
	}
}
