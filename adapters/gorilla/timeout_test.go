package gorilla_test

import (
	"testing"
	"time"

	"github.com/redial-go/redial/internal/testkit"
)

// A handshake never answered ends at ConnectTimeout, or at once on a stop.
func TestHandshakeNeverAnsweredIsBounded(t *testing.T) {
	testkit.AssertHandshakeBounded(t, func(url string, d time.Duration) (testkit.Subscriber, func() error) {
		o := testOptions()
		o.Supervisor.ConnectTimeout = d
		c := run(t, url, o, true)
		return c, c.Stop
	})
}
