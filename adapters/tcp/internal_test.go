package tcp

import (
	"errors"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp/internal/dial"
	"github.com/redial-go/redial/internal/testkit"
)

// Options has every dial option, and New hands every one to the dialer.
func TestOptionsMirrorDial(t *testing.T) {
	testkit.AssertMirrors(t, Options.dialOptions)
}

func TestCloseOfAConnTheProgramClosedIsNotAnError(t *testing.T) {
	srv := testkit.StartServer(t, testkit.Echo)
	d, err := dial.New("tcp", srv.Addr, nil, dial.Options{})
	require.NoError(t, err)
	c := &connector{d: d}
	conn, err := c.Connect(t.Context())
	require.NoError(t, err)
	require.NoError(t, conn.Close())
	assert.NoError(t, c.Close(conn))
	_, err = conn.Write([]byte("x"))
	assert.True(t, errors.Is(err, net.ErrClosed))
}
