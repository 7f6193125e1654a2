package main

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cenkalti/rpc2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/internal/testing/testkit"
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

// TestExitsWhenTheServerRefusesForGood points the client at an rpc2
// server that does not serve pings: the first ping of every attempt fails
// for good, so the client exits at once, non-zero, with one
// line that says why; a closed port with -max-attempts 3 likewise, after a
// record for each failed attempt.
func TestExitsWhenTheServerRefusesForGood(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := rpc2.NewServer() // no rpc.HandlePing
	done := make(chan struct{})
	go func() { defer close(done); srv.Accept(ln) }()
	t.Cleanup(func() { _ = ln.Close(); <-done })
	out := testkit.ExitsForGood(t, run, "has no method", "-addr", ln.Addr().String())
	assert.NotContains(t, out, "call failed")
	assert.NotContains(t, out, `msg="attempt failed"`)
	assert.Contains(t, out, `level=ERROR msg="gave up" name=`+ln.Addr().String()+` state=failed consecutive_failures=1 `)

	// A closed port is retried, logged once per attempt with the wait,
	// until -max-attempts; then one line says it gave up.
	addr := testkit.ClosedAddr(t)
	out = testkit.ExitsForGood(t, run, "gave up after 3 attempts", "-addr", addr, "-max-attempts", "3")
	for _, n := range []string{"1", "2"} {
		assert.Contains(t, out, `level=WARN msg="attempt failed" name=`+addr+` state=backoff consecutive_failures=`+n+` `)
	}
	assert.Equal(t, 2, strings.Count(out, " reason=backoff\n"), "a record per failed attempt, with its wait:\n%s", out)
	assert.Contains(t, out, `level=ERROR msg="gave up" name=`+addr+` state=failed consecutive_failures=3 `)
}
