package websocket_test

import (
	"testing"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// Messages allocates no more per message than conn.Read does.
func TestMessagesAllocatesAsReadDoes(t *testing.T) {
	testkit.AssertMessagesAllocateAsRead(t, feedWith, start, readOne, redialws.Messages)
}
