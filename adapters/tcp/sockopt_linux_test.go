//go:build linux

package tcp_test

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// tcpUserTimeout is TCP_USER_TIMEOUT (linux/tcp.h), which package syscall
// lacks.
const tcpUserTimeout = 0x12

// sockopts reads the socket options the dialer is meant to set.
func sockopts(t *testing.T, c net.Conn) map[string]int {
	t.Helper()
	raw, err := c.(syscall.Conn).SyscallConn()
	require.NoError(t, err)
	got := map[string]int{}
	require.NoError(t, raw.Control(func(fd uintptr) {
		for name, opt := range map[string][2]int{
			"SO_KEEPALIVE":     {syscall.SOL_SOCKET, syscall.SO_KEEPALIVE},
			"TCP_KEEPIDLE":     {syscall.IPPROTO_TCP, syscall.TCP_KEEPIDLE},
			"TCP_KEEPINTVL":    {syscall.IPPROTO_TCP, syscall.TCP_KEEPINTVL},
			"TCP_KEEPCNT":      {syscall.IPPROTO_TCP, syscall.TCP_KEEPCNT},
			"TCP_USER_TIMEOUT": {syscall.IPPROTO_TCP, tcpUserTimeout},
		} {
			v, err := syscall.GetsockoptInt(int(fd), opt[0], opt[1])
			require.NoError(t, err, name)
			got[name] = v
		}
	}))
	return got
}

func TestSocketOptions(t *testing.T) {
	addr := testkit.StartServer(t, testkit.Echo).Addr
	for name, tc := range map[string]struct {
		o    tcp.Options
		want map[string]int
	}{
		"defaults": {tcp.Options{}, map[string]int{
			"SO_KEEPALIVE": 1, "TCP_KEEPIDLE": 5, "TCP_KEEPINTVL": 3, "TCP_KEEPCNT": 3, "TCP_USER_TIMEOUT": 15000}},
		"set": {tcp.Options{UserTimeout: 1500 * time.Millisecond,
			KeepAlive: net.KeepAliveConfig{Idle: 2 * time.Second, Count: 7}}, map[string]int{
			"SO_KEEPALIVE": 1, "TCP_KEEPIDLE": 2, "TCP_KEEPINTVL": 3, "TCP_KEEPCNT": 7, "TCP_USER_TIMEOUT": 1500}},
		"keep-alive off": {tcp.Options{KeepAlive: net.KeepAliveConfig{Idle: -1}}, map[string]int{
			"SO_KEEPALIVE": 0}},
		"the kernel's limits": {tcp.Options{UserTimeout: 24 * time.Hour,
			KeepAlive: net.KeepAliveConfig{Idle: 32767 * time.Second, Interval: 32767 * time.Second, Count: 127}}, map[string]int{
			"SO_KEEPALIVE": 1, "TCP_KEEPIDLE": 32767, "TCP_KEEPINTVL": 32767, "TCP_KEEPCNT": 127, "TCP_USER_TIMEOUT": 86400000}},
		"a sub-millisecond UserTimeout is 1ms, not the kernel's default": {tcp.Options{UserTimeout: time.Microsecond}, map[string]int{
			"TCP_USER_TIMEOUT": 1}},
	} {
		t.Run(name, func(t *testing.T) {
			s := newTCP(t, addr, tc.o)
			testkit.Run(t, s)
			err := s.Do(testkit.CtxWait(t), func(_ context.Context, conn net.Conn) error {
				got := sockopts(t, conn)
				for k, v := range tc.want {
					assert.Equal(t, v, got[k], k)
				}
				return nil
			})
			require.NoError(t, err)
		})
	}
}

// TestKernelLimitsAreErrorsAtNew: a keep-alive setting Linux refuses is an
// error at New, not a socket option failing (or silently left unset) at
// every attempt.
func TestKernelLimitsAreErrorsAtNew(t *testing.T) {
	for o, want := range map[net.KeepAliveConfig]string{
		{Idle: 32768 * time.Second}:     "tcp: KeepAlive.Idle 9h6m8s: longer than 9h6m7s, the most TCP_KEEPIDLE takes on linux",
		{Interval: 32768 * time.Second}: "tcp: KeepAlive.Interval 9h6m8s: longer than 9h6m7s, the most TCP_KEEPINTVL takes on linux",
		{Count: 128}:                    "tcp: KeepAlive.Count 128: more than 127, the most TCP_KEEPCNT takes on linux",
	} {
		_, err := tcp.New("h:1", tcp.Options{KeepAlive: o})
		assert.EqualError(t, err, want)
		assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
	}
}
