package websocket_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestServerRestartResubscribes(t *testing.T) {
	srv := startServer(t, nil)
	o := testOptions()
	subscribeOnConnect(&o)
	c := run(t, srv.url("/feed"), o, true)
	srv.AssertResubscribes(t, c)
	require.NoError(t, c.Stop())
}
