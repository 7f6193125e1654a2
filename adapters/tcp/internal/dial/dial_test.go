package dial

import (
	"crypto/tls"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/opterr"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestValidateFillsDefaults(t *testing.T) {
	o, err := Options{}.validate("tcp")
	require.NoError(t, err)
	assert.Equal(t, net.KeepAliveConfig{Enable: true, Idle: 5 * time.Second, Interval: 3 * time.Second, Count: 3}, o.KeepAlive)
	assert.Equal(t, time.Duration(defaultUserTimeout), o.UserTimeout)

	o, err = Options{KeepAlive: net.KeepAliveConfig{Enable: true, Count: 7}}.validate("tcp")
	require.NoError(t, err)
	assert.Equal(t, net.KeepAliveConfig{Enable: true, Idle: 5 * time.Second, Interval: 3 * time.Second, Count: 7}, o.KeepAlive)

	o, err = Options{DisableKeepAlive: true}.validate("tcp")
	require.NoError(t, err)
	assert.Zero(t, o.KeepAlive, "disabled: no defaults filled in")
}

// The TLS config is the dialer's own: a program that changes its config
// afterwards changes nothing.
func TestNewClonesTLS(t *testing.T) {
	cfg := &tls.Config{ServerName: "a"}
	d, err := New("tcp", "h:1", nil, Options{TLS: cfg})
	require.NoError(t, err)
	cfg.ServerName = "b"
	require.NotNil(t, d.tls)
	assert.NotSame(t, cfg, d.tls.Config)
	assert.Equal(t, "a", d.tls.Config.ServerName)
	assert.Equal(t, []string{"h:1"}, d.Addrs())
}

func TestErrorsSayThePackage(t *testing.T) {
	for pkg, want := range map[string]string{
		"tcp": `tcp: address "h": missing port in address`,
		"rpc": `rpc: address "h": missing port in address`,
	} {
		_, err := New(pkg, "h", nil, Options{})
		assert.EqualError(t, err, want)
		assert.ErrorIs(t, err, opterr.ErrInvalid)
	}
	_, err := New("rpc", "h:1", nil, Options{KeepAlive: net.KeepAliveConfig{Enable: true, Idle: -time.Second}})
	assert.EqualError(t, err, "rpc: KeepAlive.Idle -1s: negative")
}
