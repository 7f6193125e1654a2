// Package gorilla_test holds the fault tests of adapters/gorilla that
// need toxiproxy — a silent peer, latency beyond ConnectTimeout, a reset
// peer — and an interoperability test of adapters/websocket (over
// coder/websocket) against a gorilla/websocket server. The adapter's other
// tests, its own interoperability with a coder/websocket server included,
// live with it.
package gorilla_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
