package websocket_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

func TestServerRestartResubscribes(t *testing.T) {
	srv := startServer(t, nil)
	o := testOptions()
	subscribeOnConnect(&o)
	c := run(t, srv.url("/feed"), o, true)
	testkit.WaitStatus(t, c, 5*time.Second, "first connection", connected(1))
	assert.Equal(t, "subscribe prices", srv.WaitSubscribe(t, 5*time.Second))

	srv.stop() // mid-stream: the client's Read sees the connection drop
	st := testkit.WaitStatus(t, c, 5*time.Second, "the loss", func(st health.Status) bool { return st.State != health.Connected })
	t.Logf("after the stop: %s, %v", st.State, st.Err)
	srv.restart()

	testkit.WaitStatus(t, c, 5*time.Second, "second connection", connected(2))
	assert.Equal(t, "subscribe prices", srv.WaitSubscribe(t, 5*time.Second))
	assert.Equal(t, []string{"subscribe prices", "subscribe prices"}, srv.Subscribes())
	require.NoError(t, c.stop())
}
