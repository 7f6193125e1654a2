// Package amqp_test holds the tests of adapters/amqp that need toxiproxy
// or take long: a stalled path, failover between two paths to a broker,
// and 10,000 confirmed publishes across three broker restarts. The
// adapter's other tests live with it.
package amqp_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/testing/rabbittest"
)

// rabbit is the broker of every test here (behind their proxies).
var rabbit = rabbittest.NewShared(rabbittest.Options{})

func TestMain(m *testing.M) { goleak.VerifyTestMain(rabbittest.Main(m, rabbit)) }
