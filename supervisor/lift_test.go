package supervisor_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
)

// A program whose next attempt carries a fresh token lifts the transport's
// permanent mark in its Classify, for a refused attempt and for a lost
// connection alike, and the chain stays whole for errors.As.
func TestClassifyLiftsAPermanentMark(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		revoked := &closeError{code: 1008}
		f := &fake{results: []error{backoff.Permanent(revoked)}}
		o := exponential(time.Second, time.Minute)
		var seen []error
		o.Classify = func(err error) error {
			seen = append(seen, err)
			var ce *closeError
			if errors.As(err, &ce) && ce.code == 1008 {
				return backoff.Retryable(err)
			}
			return err
		}
		r := start(t, f, o)
		synctest.Wait()
		st := r.Status()
		require.Equal(t, health.Backoff, st.State, "a lifted refusal is retried: %v", st.Err)
		var ce *closeError
		assert.ErrorAs(t, st.Err, &ce)
		r.untilConnected(t)

		f.last().broken <- backoff.Permanent(revoked)
		synctest.Wait()
		st = r.Status()
		assert.Equal(t, health.Backoff, st.State, "a lifted loss is retried: %v", st.Err)
		r.untilConnected(t)
		assert.Len(t, seen, 2)
		assert.NoError(t, r.stop())
	})
}

type closeError struct{ code int }

func (e *closeError) Error() string { return "websocket closed: policy violation" }
