package websocket_test

import (
	"context"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// Run's ctx ends by deadline or with a cause: the connection is healthy, so
// it should still be closed with 1000, as when ctx is plainly cancelled.
func TestStopWithDeadlineOrCauseClosesPolitely(t *testing.T) {
	testkit.ForEachStop(t, func(t *testing.T, ctx context.Context, stop func()) {
		url, got := closeSeen(t)
		s, err := redialws.New(url, testOptions())
		require.NoError(t, err)
		testkit.RunUntil(t, s, redialws.Messages, ctx, stop)
		assert.Equal(t, int(websocket.StatusNormalClosure), testkit.Receive(t, got, "close seen by the server"))
	})
}
