package websocket_test

import (
	"testing"

	"github.com/redial-go/redial/internal/testing/testkit"
)

// In WriteOnly mode the adapter reads on one goroutine per connection,
// ended by the time Close returns.
func TestWriteOnlyReaderEndsBeforeRunReturns(t *testing.T) {
	srv := startServer(t, nil)
	o := testOptions()
	o.WriteOnly = true
	testkit.AssertWriteOnlyReaders(t, srv.HTTPServer, run(t, srv.url("/feed"), o, false))
}
