package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCallbacksWorkAfterTheServerRestarts runs the one-process mode: the
// server restarts after 2s; the client must reconnect and the server's
// call back into the client must work on the new connection.
func TestCallbacksWorkAfterTheServerRestarts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4500*time.Millisecond)
	defer cancel()
	var out syncBuffer
	require.NoError(t, both(ctx, &out))
	text := out.String()
	before, after, restarted := strings.Cut(text, "server: restarting")
	require.True(t, restarted, text)
	assert.Contains(t, before, "client: ACME: 42.00 (for tcp-rpc example)")
	assert.Contains(t, after, "server: a client connected", "the client reconnected:\n%s", text)
	assert.Contains(t, after, "client: ACME: 42.00 (for tcp-rpc example)", "the callback works on the new connection:\n%s", text)
}
