package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestCallbacksWorkAfterTheServerRestarts runs the one-process mode: the
// server restarts after 2s; the client must reconnect and the server's
// call back into the client must work on the new connection.
func TestCallbacksWorkAfterTheServerRestarts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4500*time.Millisecond)
	defer cancel()
	var out testkit.Buffer
	require.NoError(t, both(ctx, &out))
	text := out.String()
	before, after, restarted := strings.Cut(text, "server: restarting")
	require.True(t, restarted, text)
	assert.Contains(t, before, "client: ACME: 42.00 (for tcp-rpc example)")
	assert.Contains(t, after, "server: a client connected", "the client reconnected:\n%s", text)
	assert.Contains(t, after, "client: ACME: 42.00 (for tcp-rpc example)", "the callback works on the new connection:\n%s", text)
}
