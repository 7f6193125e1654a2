package websocket_test

import (
	"context"
	"testing"

	"github.com/coder/websocket"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/internal/testkit"
)

// Messages allocates no more per message than conn.Read does.
func TestMessagesAllocatesAsReadDoes(t *testing.T) {
	testkit.AssertMessagesAllocateAsRead(t, feedWith, start, func(ctx context.Context, c *websocket.Conn) error {
		_, _, err := c.Read(ctx)
		return err
	}, redialws.Messages)
}
