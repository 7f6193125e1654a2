package gorilla_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// In WriteOnly mode the adapter reads on one goroutine per connection,
// ended by the time Close returns.
func TestWriteOnlyReaderEndsBeforeRunReturns(t *testing.T) {
	srv := startServer(t, impls[0], nil)
	o := testOptions()
	o.WriteOnly = true
	testkit.AssertWriteOnlyReaders(t, srv.HTTPServer, run(t, srv.url("/feed"), o, false))
}

// Without WriteOnly the adapter starts no goroutine per connection: the
// heartbeat runs on the supervisor's, the reads on the program's.
func TestNoGoroutinePerConnection(t *testing.T) {
	srv := startServer(t, impls[0], nil)
	c := run(t, srv.url("/feed"), testOptions(), true)
	testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
	assert.Zero(t, testkit.WriteOnlyReaders())
	assert.Zero(t, strings.Count(testkit.Stacks(), "internal/httpcore.(*connector[...]).ConnectTo"), "nothing of an attempt still runs")
	require.NoError(t, c.Stop())
}
