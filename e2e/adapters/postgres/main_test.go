// Package postgres_test holds the fault tests of adapters/postgres that
// need toxiproxy: a silent path under an idle Listener, a stalled network
// under a Pool's ping. The adapter's other tests live with it.
package postgres_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/testing/pgtest"
)

// shared is the cluster the tests run against (behind their proxies).
var shared *pgtest.Cluster

func TestMain(m *testing.M) {
	c, err := pgtest.New(pgtest.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // e.g. how to install the server binaries
		os.Exit(1)
	}
	shared = c
	goleak.VerifyTestMain(withCluster{m})
}

// withCluster closes the shared cluster after the tests, before goleak
// looks for leftovers.
type withCluster struct{ m *testing.M }

func (w withCluster) Run() int {
	code := w.m.Run()
	if err := shared.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	return code
}
