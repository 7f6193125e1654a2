package supervisor_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// A connection invalidated while OnConnect runs (the subscription stream
// died) is a failed attempt: never published Connected (readiness would
// lie), not counted in Connects, and counted toward MaxAttempts.
func TestInvalidatedDuringOnConnectIsAFailedAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		o := exponential(time.Second, time.Minute)
		o.MaxAttempts = 3
		var sup *supervisor.Supervisor[*conn]
		o.OnConnect = func(ctx context.Context, c *conn) error {
			sup.Invalidate(c, errors.New("stream died during subscribe"))
			return nil
		}
		s, err := supervisor.New(noWatch{f}, o)
		require.NoError(t, err)
		sup = s
		rec := testkit.Record(s)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		for range 5 {
			synctest.Wait()
			time.Sleep(time.Until(s.Status().NextAttempt))
		}
		synctest.Wait()
		cancel()
		<-done
		states := rec.Stop()
		assert.NotContains(t, states, health.Connected, "no connection was ever usable")
		assert.Equal(t, health.Failed, s.Status().State, "every attempt failed: MaxAttempts 3 should give up; status %+v", s.Status())
	})
}
