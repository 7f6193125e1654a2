package amqp_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// run starts c until the test ends and returns its health channel.
func run(t *testing.T, c *amqp.Client) <-chan health.Status {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch, unsubscribe := c.Subscribe()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(30 * time.Second):
			t.Error("Run did not return within 30s of cancel")
		}
		unsubscribe()
	})
	return ch
}

// until waits on ch for a Status that satisfies ok.
func until(t *testing.T, ch <-chan health.Status, d time.Duration, what string, ok func(health.Status) bool) health.Status {
	t.Helper()
	return testkit.Until(t, ch, d, what, ok)
}

func isConnected(st health.Status) bool { return st.State == health.Connected }

// since returns c's transitions since at.
func since(c *amqp.Client, at time.Time) []health.Transition {
	var out []health.Transition
	for _, tr := range c.History() {
		if !tr.At.Before(at) {
			out = append(out, tr)
		}
	}
	return out
}
