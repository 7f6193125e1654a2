package redialtest_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/redialtest"
	"github.com/redial-go/redial/supervisor"
)

// ordersLink stands for a program's own code under test: its connection
// to an orders service retries at 1s, 2s, 4s ... up to 8s, and gives up
// after 6 failed attempts in a row.
func ordersLink(c supervisor.Connector[*redialtest.Conn]) (*supervisor.Supervisor[*redialtest.Conn], error) {
	return supervisor.New(c, supervisor.Options[*redialtest.Conn]{Settings: supervisor.Settings{
		Name:        "orders",
		Backoff:     backoff.Config{Strategy: backoff.Exponential, Base: time.Second, Cap: 8 * time.Second},
		MaxAttempts: 6,
	}})
}

// TestExampleRetryTiming is the pattern for a unit test of a program's
// retry timing: a Script in a synctest bubble, where time is fake, so the
// test takes no real time and checks every attempt to the nanosecond.
// (An Example cannot run synctest.Test: it has no *testing.T.)
func TestExampleRetryTiming(t *testing.T) {
	refused := errors.New("connection refused")
	t.Run("gives up after 6 attempts", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			script := new(redialtest.Script).Fail(refused, refused, refused, refused, refused, refused)
			link, err := ordersLink(script)
			require.NoError(t, err)
			t0 := time.Now()
			err = link.Run(t.Context()) // returns when it gives up: this goroutine waits in fake time
			require.ErrorIs(t, err, supervisor.ErrFailed)
			assert.Equal(t, []time.Duration{0, 1, 3, 7, 15, 23}, seconds(starts(script, t0)))
			assert.Equal(t, 23*time.Second, time.Since(t0), "gave up at the sixth failure")
		})
	})
	t.Run("waits a server's hint", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			script := new(redialtest.Script).Fail(backoff.RetryAfter(refused, time.Minute))
			link, err := ordersLink(script)
			require.NoError(t, err)
			t0 := time.Now()
			go func() { _ = link.Run(t.Context()) }() // t.Context ends before the bubble does
			time.Sleep(time.Minute - 1)
			synctest.Wait()
			assert.Equal(t, health.Backoff, link.Status().State, "a nanosecond early")
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			assert.Equal(t, health.Connected, link.Status().State)
			assert.Equal(t, []time.Duration{0, time.Minute}, starts(script, t0))
		})
	})
}
