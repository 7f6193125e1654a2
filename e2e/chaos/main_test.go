package chaos

import (
	"testing"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// toxiproxy's bandwidth toxic logs through zerolog's global logger.
	zerolog.SetGlobalLevel(zerolog.Disabled)
	goleak.VerifyTestMain(m, toxiproxyStuck...)
}

// toxiproxyStuck are the goroutines of toxiproxy's per-connection
// pipelines (a link's reader and writer, one per toxic stage). toxiproxy
// v2.12.0 never drains a stage whose successor ended: when a connection
// dies while data moves through it (a reset_peer or timeout toxic closed
// it, or its client gave up), the stage holding the next chunk stays
// blocked for ever. These goroutines belong to the test's proxies, not to
// redial; a proxy that is not stopped still shows (its accept loop), and
// a connection left open shows in the servers' counts.
var toxiproxyStuck = []goleak.Option{
	goleak.IgnoreAnyFunction("github.com/Shopify/toxiproxy/v2/toxics.(*ToxicStub).Run"),
	goleak.IgnoreAnyFunction("github.com/Shopify/toxiproxy/v2.(*ToxicLink).read"),
	goleak.IgnoreAnyFunction("github.com/Shopify/toxiproxy/v2.(*ToxicLink).write"),
}
