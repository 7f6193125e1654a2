package sse_test

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/sse"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

const idle = 200 * time.Millisecond

// TestSilentStreamIsReplaced: a server that sends the headers and then
// nothing. The stream is broken after IdleTimeout, the break is yielded,
// and the Client reconnects.
func TestSilentStreamIsReplaced(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		<-r.Context().Done()
	})
	o := testOptions()
	o.IdleTimeout = idle
	c := start(t, srv.URL+"/events", o, nil)
	up := testkit.WaitStatus(t, c, 5*time.Second, "connected", connected(1))
	lost := testkit.WaitStatus(t, c, 5*time.Second, "the loss", testkit.InState(health.Backoff))
	g := c.next(t, 5*time.Second)
	testkit.WaitStatus(t, c, 5*time.Second, "a new stream", connected(2))
	require.NoError(t, c.stop())
	t.Logf("lost after %v: %v", lost.LastFailure.Sub(up.Since), lost.Err)
	assert.GreaterOrEqual(t, lost.LastFailure.Sub(up.Since), idle)
	assert.Less(t, lost.LastFailure.Sub(up.Since), idle+time.Second)
	assert.ErrorIs(t, lost.Err, sse.ErrIdleTimeout)
	assert.ErrorIs(t, g.err, sse.ErrIdleTimeout, "the break is yielded")
	assert.EqualError(t, g.err, "sse: read: stream silent for longer than IdleTimeout (200ms): the path or the server is dead")
}

// TestKeepAliveCommentsKeepTheStream: comment lines count as data.
func TestKeepAliveCommentsKeepTheStream(t *testing.T) {
	var pings atomic.Int64
	enough := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		tick := time.NewTicker(idle / 4)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				fmt.Fprint(w, ": keep-alive\n\n")
				w.(http.Flusher).Flush()
				if pings.Add(1) == 20 { // 5 IdleTimeouts
					close(enough)
				}
			}
		}
	})
	o := testOptions()
	o.IdleTimeout = idle
	c := start(t, srv.URL+"/events", o, nil)
	<-enough
	st := c.Status()
	require.NoError(t, c.stop())
	assert.Equal(t, health.Connected, st.State, "%v", st.Err)
	assert.Equal(t, uint64(1), st.Connects)
}

// TestSlowProgramIsNotASilentServer: with a buffer of one and a program
// that takes nothing for 3 IdleTimeouts, the read waits for the program,
// and that wait is not silence: the event the server sent meanwhile is
// read after it, on the same stream.
func TestSlowProgramIsNotASilentServer(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		stream(w)
		for i := 1; i <= 5; i++ {
			send(w, fmt.Sprint(i), fmt.Sprint(i))
		}
		select {
		case <-time.After(2 * idle): // the program is still busy
			send(w, "6", "6")
		case <-r.Context().Done():
		}
		<-r.Context().Done()
	})
	o := testOptions()
	o.IdleTimeout = idle
	o.Buffer = 1
	busy := true
	c := start(t, srv.URL+"/events", o, func(got) {
		if busy {
			busy = false
			time.Sleep(3 * idle) // a slow program, on purpose
		}
	})
	for i := 1; i <= 6; i++ {
		g := c.next(t, 5*time.Second)
		require.NoError(t, g.err, "event %d", i)
		assert.Equal(t, fmt.Sprint(i), g.ev.Data)
	}
	st := c.Status()
	require.NoError(t, c.stop())
	assert.Equal(t, uint64(1), st.Connects, "one stream")
}
