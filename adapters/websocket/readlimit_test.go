package websocket_test

import (
	"testing"

	"github.com/coder/websocket"

	"github.com/redial-go/redial/internal/testkit"
)

// The ReadLimit checks against coder/websocket's server: a huge frame, a
// stop while it streams, a poison message.
func TestReadLimit(t *testing.T) {
	testkit.AssertReadLimits(t, websocket.ErrMessageTooBig, feedWith, func(t *testing.T, url string, l testkit.Limits, read bool) *client {
		o := testOptions()
		o.ReadLimit, o.CloseTimeout = l.ReadLimit, l.CloseTimeout
		return run(t, url, o, read)
	})
}
