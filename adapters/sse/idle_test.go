package sse_test

import (
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/sse"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
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
	up := testkit.WaitStatus(t, c, 5*time.Second, "connected", testkit.Connected(1))
	lost := testkit.WaitStatus(t, c, 5*time.Second, "the loss", testkit.InState(health.Backoff))
	g := c.next(t, 5*time.Second)
	testkit.WaitStatus(t, c, 5*time.Second, "a new stream", testkit.Connected(2))
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

// TestSlowProgramPausesTheStream: with a buffer of one and a program that
// takes nothing for 3 IdleTimeouts, the read does not wait for it past
// IdleTimeout/3: the stream is paused (ErrBehind, not ErrIdleTimeout, and
// no loss for the supervisor: one Connect), the server checked meanwhile,
// and the stream resumed after the last event read once the program took
// it: every event once, in order. While it was busy, Status said how far
// behind it was.
func TestSlowProgramPausesTheStream(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request, n int) {
		from, _ := strconv.Atoi(r.Header.Get("Last-Event-ID"))
		stream(w)
		for i := from + 1; i <= 6; i++ {
			send(w, strconv.Itoa(i), strconv.Itoa(i))
		}
		keepAlive(w, r)
	})
	o := testOptions()
	o.IdleTimeout = idle
	o.Buffer = 1
	var (
		busy = true
		lag  health.Lag
		cl   = make(chan *client, 1)
	)
	c := start(t, srv.URL+"/events", o, func(got) {
		if busy {
			busy = false
			time.Sleep(3 * idle) // a slow program, on purpose
			lag = (<-cl).Lag()
		}
	})
	cl <- c
	var data []string
	for len(data) < 6 {
		g := c.next(t, 5*time.Second)
		if g.err != nil {
			assert.ErrorIs(t, g.err, sse.ErrBehind)
			assert.ErrorContains(t, g.err, "sse: read: the program fell behind the stream: 1 events waited")
			continue
		}
		data = append(data, g.ev.Data)
	}
	st := c.Status()
	require.NoError(t, c.stop())
	assert.Equal(t, []string{"1", "2", "3", "4", "5", "6"}, data)
	assert.Equal(t, health.Connected, st.State, "%v", st.Err)
	assert.Equal(t, uint64(1), st.Connects, "one stream for the supervisor")
	assert.GreaterOrEqual(t, srv.count(), 3, "paused, checked and resumed")
	assert.Equal(t, "2", srv.request(2).Header.Get("Last-Event-ID"), "resumed after the last event read")
	t.Logf("lag while busy: %+v; %d requests", lag, srv.count())
	assert.GreaterOrEqual(t, lag.Waiting, 2, "event 2 and the pause")
	assert.GreaterOrEqual(t, lag.Oldest, 2*idle)
}

// keepAlive sends a comment every IdleTimeout/4 until the request ends.
func keepAlive(w http.ResponseWriter, r *http.Request) {
	tick := time.NewTicker(idle / 4)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			fmt.Fprint(w, ": keep-alive\n\n")
			w.(http.Flusher).Flush()
		}
	}
}
