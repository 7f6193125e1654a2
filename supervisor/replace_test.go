package supervisor_test

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// errRotate is a program's reason to replace a working connection.
var errRotate = fmt.Errorf("credentials rotated: %w", supervisor.ErrReplaced)

// states returns the states h went to, in order.
func states(h []health.Transition) []health.State {
	out := make([]health.State, len(h))
	for i, tr := range h {
		out[i] = tr.To
	}
	return out
}

// A connection ended with ErrReplaced, by Invalidate or by Watch, is
// closed and replaced at once, whatever the backoff: Connected ->
// Connecting -> Connected, a reconnect but no loss, failure or outage.
func TestAReplacedConnectionIsNoLoss(t *testing.T) {
	for name, replace := range map[string]func(r *running, c *conn){
		"Invalidate": func(r *running, c *conn) { r.Invalidate(c, errRotate) },
		"Watch":      func(r *running, c *conn) { c.broken <- errRotate },
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &fake{latency: time.Second}
				r := start(t, f, exponential(time.Minute, time.Hour))
				time.Sleep(time.Second) // the dial
				r.untilConnected(t)
				time.Sleep(time.Hour) // a stable connection
				old, at := f.last(), time.Now()
				replace(r, old)
				time.Sleep(time.Second / 2) // half the dial
				st := r.Status()
				require.Equal(t, health.Connecting, st.State)
				assert.Zero(t, st.LongestOutage, "a replacement under way counted as an outage")
				assert.Equal(t, 1, f.closeCount(old))
				time.Sleep(time.Second / 2)
				synctest.Wait()
				st = r.Status()
				require.Equal(t, health.Connected, st.State)
				assert.NotSame(t, old, f.last())
				h := r.History()
				assert.Equal(t, []health.State{health.Connecting, health.Connected, health.Connecting, health.Connected}, states(h))
				assert.ErrorIs(t, h[2].Err, supervisor.ErrReplaced, "the history says why")
				assert.Zero(t, h[2].Delay)
				starts, _, _, _ := f.snapshot()
				assert.Equal(t, at, starts[1], "the attempt came at once")
				assert.NoError(t, st.Err, "a replacement is no error")
				assert.Zero(t, st.Failures)
				assert.Zero(t, st.LastFailure)
				assert.Zero(t, st.LongestOutage)
				assert.EqualValues(t, 2, st.Connects)
				assert.Equal(t, 1, st.ReconnectsLastMinute)
				assert.NoError(t, r.stop())
			})
		})
	}
}

// When the replacement's attempt fails, the supervisor backs off as after
// any failed attempt, and the outage counts from the replacement on.
func TestAReplacementThatFailsIsAnOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{nil, errRefused}}
		r := start(t, f, exponential(time.Minute, time.Hour))
		r.untilConnected(t)
		time.Sleep(time.Hour)
		r.Invalidate(f.last(), errRotate)
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State)
		assert.EqualValues(t, 1, st.Failures)
		assert.ErrorIs(t, st.Err, errRefused)
		time.Sleep(10 * time.Second)
		assert.Equal(t, 10*time.Second, r.Status().LongestOutage, "the outage under way, since the replacement")
		r.untilConnected(t)
		st = r.Status()
		assert.Equal(t, time.Minute, st.LongestOutage, "the outage lasted the backoff's minute")
		assert.Equal(t, 1, st.ReconnectsLastMinute)
		assert.NoError(t, r.stop())
	})
}

// A supervisor stopped while it replaces a connection had no outage.
func TestStoppedWhileReplacingHadNoOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		r := start(t, f, exponential(time.Minute, time.Hour))
		r.untilConnected(t)
		f.mu.Lock()
		f.hang = true
		f.mu.Unlock()
		r.Invalidate(f.last(), errRotate)
		time.Sleep(time.Second)
		require.Equal(t, health.Connecting, r.Status().State)
		require.NoError(t, r.stop())
		st := r.Status()
		assert.Equal(t, health.Stopped, st.State)
		assert.Zero(t, st.LongestOutage)
		assert.Zero(t, f.openCount())
	})
}

// A Permanent mark wins over ErrReplaced: the supervisor gives up.
func TestAPermanentReplacementGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		r := start(t, f, exponential(time.Minute, time.Hour))
		r.untilConnected(t)
		r.Invalidate(f.last(), backoff.Permanent(errRotate))
		synctest.Wait()
		assert.Equal(t, health.Failed, r.Status().State)
		assert.ErrorIs(t, r.stop(), supervisor.ErrFailed)
	})
}

// The replacement is one record, "connection replaced", with the
// connection's uptime and the reason; the attempt that follows logs no
// second "connecting".
func TestAReplacementIsLogged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs testkit.Buffer
		f := &fake{}
		o := exponential(time.Minute, time.Hour)
		o.Logger = newLogger(&logs)
		r := start(t, f, o)
		r.untilConnected(t)
		time.Sleep(5 * time.Second)
		r.Invalidate(f.last(), errRotate)
		synctest.Wait()
		require.NoError(t, r.stop())
		var got []string
		for _, rec := range records(t, &logs) {
			got = append(got, rec["level"].(string)+" "+rec["msg"].(string)+" "+rec["state"].(string))
			if rec["msg"] == "connection replaced" {
				assert.Equal(t, float64(5*time.Second), rec["uptime"])
				assert.Equal(t, errRotate.Error(), rec["err"])
			}
		}
		assert.Equal(t, []string{
			"DEBUG connecting connecting", "INFO connected connected",
			"INFO connection replaced connecting", "INFO connected connected",
			"INFO stopped stopped",
		}, got)
		assert.False(t, errors.Is(r.Status().Err, supervisor.ErrReplaced))
	})
}
