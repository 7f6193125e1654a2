package dial

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/internal/testing/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestValidateFillsDefaults(t *testing.T) {
	o, err := Options{}.validate("tcp")
	require.NoError(t, err)
	assert.Equal(t, net.KeepAliveConfig{Enable: true, Idle: 5 * time.Second, Interval: 3 * time.Second, Count: 3}, o.KeepAlive)
	assert.Equal(t, time.Duration(defaultUserTimeout), o.UserTimeout)

	o, err = Options{KeepAlive: net.KeepAliveConfig{Count: 7}}.validate("tcp")
	require.NoError(t, err)
	assert.Equal(t, net.KeepAliveConfig{Enable: true, Idle: 5 * time.Second, Interval: 3 * time.Second, Count: 7}, o.KeepAlive)

	o, err = Options{KeepAlive: net.KeepAliveConfig{Enable: true, Idle: -1}}.validate("tcp")
	require.NoError(t, err)
	assert.Zero(t, o.KeepAlive, "a negative Idle: off, no defaults filled in, Enable ignored")
}

func TestCloseOfAConnTheProgramClosedIsNotAnError(t *testing.T) {
	srv := testkit.StartServer(t, testkit.Echo)
	d, err := New("tcp", srv.Addr, nil, Options{}, nil)
	require.NoError(t, err)
	c := &connector{d: d}
	conn, err := c.Connect(t.Context())
	require.NoError(t, err)
	require.NoError(t, conn.Close())
	assert.NoError(t, c.Close(conn))
	_, err = conn.Write([]byte("x"))
	assert.ErrorIs(t, err, net.ErrClosed)
}

// A Layer that fails or panics leaves no connection open; one that works
// gives the program its connection.
func TestDialRunsTheLayer(t *testing.T) {
	srv := testkit.StartServer(t, testkit.Echo)
	var raws []net.Conn
	fail := func(_ context.Context, raw net.Conn, addr string) (net.Conn, error) {
		raws = append(raws, raw)
		return nil, errors.New("no")
	}
	d, err := New("tcp", srv.Addr, nil, Options{}, fail)
	require.NoError(t, err)
	_, err = d.Dial(t.Context(), 0)
	assert.EqualError(t, err, "no")
	require.Len(t, raws, 1)
	_, err = raws[0].Write([]byte("x"))
	assert.ErrorIs(t, err, net.ErrClosed, "the raw connection was closed")

	boom := func(_ context.Context, raw net.Conn, _ string) (net.Conn, error) {
		raws = append(raws, raw)
		panic("boom")
	}
	d, err = New("tcp", srv.Addr, nil, Options{}, boom)
	require.NoError(t, err)
	assert.PanicsWithValue(t, "boom", func() { _, _ = d.Dial(t.Context(), 0) })
	require.Len(t, raws, 2)
	_, err = raws[1].Write([]byte("x"))
	assert.ErrorIs(t, err, net.ErrClosed, "the raw connection was closed after a panic")

	type wrapped struct{ net.Conn }
	ok := func(_ context.Context, raw net.Conn, _ string) (net.Conn, error) { return wrapped{raw}, nil }
	d, err = New("tcp", srv.Addr, nil, Options{}, ok)
	require.NoError(t, err)
	conn, err := d.Dial(t.Context(), 0)
	require.NoError(t, err)
	assert.IsType(t, wrapped{}, conn)
	require.NoError(t, Close(conn))
}

func TestErrorsSayThePackage(t *testing.T) {
	for pkg, want := range map[string]string{
		"tcp": `tcp: address "h": missing port in address`,
		"rpc": `rpc: address "h": missing port in address`,
	} {
		_, err := New(pkg, "h", nil, Options{}, nil)
		assert.EqualError(t, err, want)
		assert.ErrorIs(t, err, opterr.ErrInvalid)
	}
	_, err := New("rpc", "h:1", nil, Options{KeepAlive: net.KeepAliveConfig{Interval: -time.Second}}, nil)
	assert.EqualError(t, err, "rpc: KeepAlive.Interval -1s: negative")
}
