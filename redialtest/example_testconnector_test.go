package redialtest_test

import (
	"testing"
	"time"

	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

// A test of a program's own Connector: its real server's address, how to
// build its client toward an address (a Proxy's), and how long its
// liveness rule takes to find a silent connection. TestExampleConnector
// runs this one, with the line client it names.
func ExampleTestConnector() {
	_ = func(t *testing.T) {
		addr := startLineServer(t)
		redialtest.TestConnector(t, redialtest.Harness{
			Target: addr,
			New: func(_ testing.TB, addr string, o redialtest.Options) (redialtest.Client, error) {
				return supervisor.New(&lineClient{addr: addr}, supervisor.Options[*lineConn]{Settings: o.Settings})
			},
			Liveness: 700 * time.Millisecond,
			Silent:   supervisor.ErrSilent,
		})
	}
}
