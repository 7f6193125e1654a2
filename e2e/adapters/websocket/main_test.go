// Package websocket_test holds the fault tests of adapters/websocket that
// need toxiproxy: a silent peer, latency beyond ConnectTimeout, a reset
// peer. The adapter's other tests live with it.
package websocket_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
