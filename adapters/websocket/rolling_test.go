package websocket_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// TestRollingRestartOfThreeReplicas (issue 29 item 5): three replicas of
// a feed that ticks every 10 ms are each killed and kept down 5 s, one
// after the other, under a client with the three as Replicas and the
// default delays. The client is on each replica as it goes down, so every
// restart is a loss: the gap in messages is one failover (rand[0,
// FailoverSpread) and a handshake), and the supervisor never fails.
func TestRollingRestartOfThreeReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("20s of restarts")
	}
	const tick, down = 10 * time.Millisecond, 5 * time.Second
	feed := func(srv **testkit.HTTPServer[*websocket.Conn]) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			c, err := websocket.Accept(w, r, nil)
			if err != nil || !(*srv).Track(c) {
				return
			}
			defer (*srv).Forget(c)
			for n := 0; ; n++ {
				if c.Write(r.Context(), websocket.MessageText, []byte(fmt.Sprint(n))) != nil {
					return
				}
				time.Sleep(tick)
			}
		}
	}
	drop := func(c *websocket.Conn) { _ = c.CloseNow() }
	reps := make([]*testkit.HTTPServer[*websocket.Conn], 3)
	for i := range reps {
		reps[i] = testkit.StartHTTP(t, drop, feed(&reps[i]))
	}
	o := redialws.Options{Replicas: []string{reps[1].URL("/feed"), reps[2].URL("/feed")}}
	o.Supervisor.Name = "feed"
	s, err := redialws.New(reps[0].URL("/feed"), o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	var mu sync.Mutex
	var arrivals []time.Time
	var failed bool
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	statuses, unsubscribe := s.Subscribe()
	go func() {
		for st := range statuses {
			if st.State == health.Failed {
				mu.Lock()
				failed = true
				mu.Unlock()
			}
		}
	}()
	read := make(chan struct{})
	go func() {
		defer close(read)
		for _, err := range redialws.Messages(ctx, s) {
			if err == nil {
				mu.Lock()
				arrivals = append(arrivals, time.Now())
				mu.Unlock()
			}
		}
	}()
	defer func() { cancel(); <-done; <-read; unsubscribe() }()
	require.Eventually(t, func() bool { return s.Status().State == health.Connected }, 5*time.Second, 5*time.Millisecond)
	time.Sleep(500 * time.Millisecond)

	// gap returns the longest time without a message from from to to.
	gap := func(from, to time.Time) time.Duration {
		mu.Lock()
		defer mu.Unlock()
		var longest time.Duration
		last := from
		for _, at := range arrivals {
			if at.Before(from) || at.After(to) {
				continue
			}
			longest = max(longest, at.Sub(last))
			last = at
		}
		return max(longest, to.Sub(last))
	}
	spread := time.Second / 2 // FailoverSpread's default, Base/2
	for i, r := range reps {
		on := s.Status().Endpoint
		require.Equal(t, r.URL("/feed"), on, "the client is on replica %d as it goes down", i)
		killed := time.Now()
		r.Stop()
		time.Sleep(down)
		r.Restart()
		g := gap(killed, time.Now())
		t.Logf("restart %d: longest gap %v, then on %s", i, g.Round(time.Millisecond), s.Status().Endpoint)
		// One failover: rand[0, FailoverSpread) and a loopback handshake;
		// 500ms more for a busy machine.
		assert.Less(t, g, spread+500*time.Millisecond, "restart %d", i)
		time.Sleep(time.Second)
	}
	mu.Lock()
	assert.False(t, failed, "never Failed")
	mu.Unlock()
	assert.Equal(t, health.Connected, s.Status().State)
	assert.NoError(t, s.Err())
}
