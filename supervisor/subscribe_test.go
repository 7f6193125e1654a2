package supervisor_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
)

func TestSubscriberThatNeverReadsDoesNotSlowTheSupervisor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fake{}
		r := start(t, f, exponential(time.Millisecond, time.Millisecond))
		lazy, unsub := r.Subscribe() // never read until the end
		defer unsub()
		t0 := time.Now()
		for range 200 {
			r.untilConnected(t)
			f.last().broken <- errors.New("flap")
		}
		r.untilConnected(t)
		// 200 losses, each waits exactly 1ms: nothing else held it up.
		assert.Equal(t, 200*time.Millisecond, time.Since(t0))
		assert.Equal(t, uint64(201), r.Status().Connects)

		got := <-lazy
		assert.Equal(t, r.Status(), got, "a late reader sees the newest Status")
		select {
		case st := <-lazy:
			t.Fatalf("the channel held more than one Status: %+v", st)
		default:
		}
		assert.NoError(t, r.stop())
		st := <-lazy
		assert.Equal(t, health.Stopped, st.State)
	})
}

func TestSubscribeStartsWithCurrentAndUnsubscribeCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := start(t, &fake{}, exponential(time.Second, time.Minute))
		synctest.Wait()
		ch, unsub := r.Subscribe()
		st := <-ch
		assert.Equal(t, health.Connected, st.State)
		unsub()
		unsub() // idempotent
		_, ok := <-ch
		assert.False(t, ok)
		require.NoError(t, r.stop())
	})
}
