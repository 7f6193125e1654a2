package httpcore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/supervisor"
)

func heartbeatState() *State {
	return newState(&Core{Config: Config{PingInterval: 10 * time.Second, PingTimeout: 5 * time.Second}}, 0)
}

// A ping without its pong fails the heartbeat PingInterval + PingTimeout
// after it began, and marks the connection broken; pongs keep it going.
func TestHeartbeatFindsASilentPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := heartbeatState()
		pings := 0
		start := time.Now()
		err := st.Heartbeat(t.Context(), func(ctx context.Context) error {
			if pings++; pings <= 3 {
				return nil // a pong
			}
			<-ctx.Done() // silence
			return ctx.Err()
		})
		assert.ErrorIs(t, err, ErrHeartbeat)
		assert.EqualError(t, err, "heartbeat failed: no pong within 5s (the peer is silent, or nothing reads the connection)")
		assert.Equal(t, 4*10*time.Second+5*time.Second, time.Since(start))
		assert.True(t, st.broken.Load())
	})
}

func TestHeartbeatEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := heartbeatState()
		err := st.Heartbeat(t.Context(), func(context.Context) error { return fmt.Errorf("write: %w", net.ErrClosed) })
		assert.EqualError(t, err, "heartbeat: connection closed: write: use of closed network connection")
		assert.True(t, st.broken.Load())

		for _, tc := range []struct {
			cause  error
			broken bool
		}{{&supervisor.InvalidatedError{Err: errors.New("read failed")}, true}, {errors.New("stopping"), false}} {
			st := heartbeatState()
			ctx, cancel := context.WithCancelCause(t.Context())
			time.AfterFunc(time.Minute, func() { cancel(tc.cause) })
			err := st.Heartbeat(ctx, func(context.Context) error { return nil })
			assert.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, tc.broken, st.broken.Load(), "Invalidate: the connection is known broken; a stop says goodbye")
		}

		st = heartbeatState()
		gone := errors.New("close frame 1001")
		st.ReadForWriter(func() error { time.Sleep(time.Minute); return gone }, func() {})
		err = st.Heartbeat(t.Context(), func(context.Context) error { return nil })
		assert.Same(t, gone, err, "the WriteOnly reader's reason")
		assert.True(t, st.broken.Load())
	})
}
