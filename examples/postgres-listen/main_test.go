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

	"github.com/redial-go/redial/internal/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// syncBuffer is a bytes.Buffer safe for the example's two writers, that
// tells waiters about every write.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed on the next write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

// waitFor blocks until the output holds text, or fails the test after 15s.
func (s *syncBuffer) waitFor(t *testing.T, text string) {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		s.mu.Lock()
		found, all := strings.Contains(s.b.String(), text), s.b.String()
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		changed := s.changed
		s.mu.Unlock()
		if found {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("no %q in:\n%s", text, all)
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestListenAcrossARestart runs the example against a throwaway server,
// restarts the server, and checks that notifications before and after
// arrive and the resync line is printed.
func TestListenAcrossARestart(t *testing.T) {
	pg := pgtest.Start(t, pgtest.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, &out, pg.DSN(), []string{"orders"}) }()

	notify := func(payload string) {
		c := pg.Connect(t)
		defer c.Close(context.Background())
		_, err := c.Exec(context.Background(), "SELECT pg_notify('orders', $1)", payload)
		require.NoError(t, err)
	}
	out.waitFor(t, "msg=connected") // the Listener logs it once LISTEN is done
	notify("order 1")
	out.waitFor(t, "orders: order 1")
	pg.Restart(t, pgtest.Fast)
	out.waitFor(t, "resync here") // after the reconnect, once LISTEN is done again
	notify("order 2")
	out.waitFor(t, "orders: order 2")
	cancel()
	require.NoError(t, <-done)
	assert.NotContains(t, out.String(), pg.Password(), "the password never shows")
}
