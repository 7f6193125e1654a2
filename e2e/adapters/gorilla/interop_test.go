package gorilla_test

import (
	"context"
	"testing"
	"time"

	coder "github.com/coder/websocket"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// coderOptions are testOptions for adapters/websocket.
func coderOptions() redialws.Options {
	return redialws.Options{
		OnConnect: func(ctx context.Context, c *coder.Conn) error {
			return c.Write(ctx, coder.MessageText, []byte("subscribe prices"))
		},
		Supervisor: supervisor.Settings{
			Name:           "feed",
			Backoff:        backoff.Config{Strategy: backoff.Exponential, Base: 20 * time.Millisecond, Cap: 200 * time.Millisecond},
			ConnectTimeout: 2 * time.Second,
		},
	}
}

// adapters/websocket (over coder/websocket) against a gorilla/websocket
// server: subscribe on every connect, messages in order, heartbeat pings
// answered, a 1012 close read as a hint and a reconnect, a 1008 as the
// end, and a stop said with 1000. (adapters/gorilla against a
// coder/websocket server is tested with the adapter.)
func TestCoderAdapterAgainstGorillaServer(t *testing.T) {
	t.Run("feed, heartbeat, restart, stop", func(t *testing.T) {
		conns := 0
		srv := startServer(t, func(c *websocket.Conn) bool {
			conns++ // handlers of this server run one at a time here: one client
			if _, msg, err := c.ReadMessage(); err != nil || string(msg) != "subscribe prices" {
				return false
			}
			for _, m := range []string{"1", "2"} {
				if c.WriteMessage(websocket.TextMessage, []byte(m+"/"+string(rune('0'+conns)))) != nil {
					return false
				}
			}
			if conns == 1 {
				_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseServiceRestart, "retry-after=1"), time.Now().Add(time.Second))
				_, _, _ = c.ReadMessage() // the client's answer
				return false
			}
			return true // reads on: answers the heartbeat's pings
		})
		o := coderOptions()
		o.PingInterval, o.PingTimeout = 20*time.Millisecond, 500*time.Millisecond
		s, err := redialws.New("ws://"+srv.Addr+"/feed", o)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()

		readCtx, cancelRead := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancelRead()
		var got []string
		var hint time.Duration
		for msg, err := range redialws.Messages(readCtx, s) {
			if err != nil {
				got = append(got, "error")
				assert.Equal(t, coder.StatusServiceRestart, redialws.CloseStatus(err), "%v", err)
				st := testkit.WaitStatus(t, s, 5*time.Second, "backoff", testkit.InState(health.Backoff))
				hint = st.NextAttempt.Sub(st.Since)
				continue
			}
			if got = append(got, string(msg.Data)); len(got) == 5 {
				break
			}
		}
		assert.Equal(t, []string{"1/1", "2/1", "error", "1/2", "2/2"}, got)
		assert.GreaterOrEqual(t, hint, 900*time.Millisecond, "retry-after=1 in the close reason is the wait")
		stay := time.NewTimer(300 * time.Millisecond) // fifteen pings, answered by gorilla's server
		<-stay.C
		st := s.Status()
		assert.Equal(t, health.Connected, st.State, "%v", st.Err)
		assert.Equal(t, uint64(2), st.Connects)
		cancel()
		require.NoError(t, <-done)
		select {
		case code := <-srv.closes:
			assert.Equal(t, websocket.CloseNormalClosure, code, "the stop said goodbye")
		case <-time.After(5 * time.Second):
			t.Fatal("the server saw no close")
		}
	})
	t.Run("policy violation", func(t *testing.T) {
		srv := startServer(t, func(c *websocket.Conn) bool {
			_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, "token revoked"), time.Now().Add(time.Second))
			_, _, _ = c.ReadMessage()
			return false
		})
		s, err := redialws.New("ws://"+srv.Addr+"/feed", coderOptions())
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { _ = s.Run(ctx) }()
		for range redialws.Messages(ctx, s) {
		}
		<-s.Done()
		assert.ErrorIs(t, s.Err(), supervisor.ErrFailed)
		assert.Equal(t, coder.StatusPolicyViolation, redialws.CloseStatus(s.Err()), "%v", s.Err())
		testkit.WaitStatus(t, s, time.Second, "failed", testkit.InState(health.Failed))
	})
}
