package gorilla_test

import (
	"testing"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/internal/testkit"
)

// A server that accepts and drops every connection at once: the client
// keeps backing off, so the handshakes the server counts in a fixed
// window stay within what the backoff allows.
func TestFlappingServerNeverResetsTheBackoff(t *testing.T) {
	testkit.AssertFlappingNeverResets(t, feedWith, func(t *testing.T, url string, b backoff.Config) *client {
		o := testOptions()
		o.Supervisor.Backoff = b
		return run(t, url, o, true)
	})
}
