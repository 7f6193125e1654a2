package websocket_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

// In WriteOnly mode the adapter reads on one goroutine per connection:
// each has ended by the time Close returns, so none is left when Run
// returns, across reconnections too. Checked at once, without the retries
// goleak allows.
func TestWriteOnlyReaderEndsBeforeRunReturns(t *testing.T) {
	srv := startServer(t, nil)
	o := testOptions()
	o.WriteOnly = true
	c := run(t, srv.url("/feed"), o, false)
	testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
	srv.stop() // the adapter's reader sees the drop
	testkit.WaitStatus(t, c, 5*time.Second, "the loss", func(st health.Status) bool { return st.State != health.Connected })
	srv.restart()
	testkit.WaitStatus(t, c, 5*time.Second, "reconnection", connected(2))
	assert.Equal(t, 1, readers(), "one reader goroutine for the one live connection")
	require.NoError(t, c.stop())
	assert.Zero(t, readers(), "a reader goroutine outlived Run")
}

// readers counts the goroutines Connect started: the WriteOnly readers.
func readers() int {
	buf := make([]byte, 1<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "created by github.com/redial-go/redial/internal/httpcore.(*State).ReadForWriter")
}
