package sse_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gosse "github.com/tmaxmax/go-sse"

	"github.com/redial-go/redial/adapters/sse"
)

// restartable is go-sse's own server, with a replay provider that keeps
// every event, behind an http.Server that a test kills (its listener and
// every connection closed) and starts again on the same port, with the
// same provider: the history survives, as a server's database would.
type restartable struct {
	t    *testing.T
	addr string
	sse  *gosse.Server
	srv  *http.Server
	wg   sync.WaitGroup
}

func newRestartable(t *testing.T, history int) *restartable {
	replayer, err := gosse.NewFiniteReplayer(history, false)
	require.NoError(t, err)
	r := &restartable{t: t, addr: "127.0.0.1:0", sse: &gosse.Server{Provider: &gosse.Joe{Replayer: replayer}}}
	r.start()
	t.Cleanup(func() {
		r.kill()
		_ = r.sse.Shutdown(context.Background())
	})
	return r
}

// start serves on r.addr (the port of the first start, for every start).
func (r *restartable) start() {
	ln, err := net.Listen("tcp", r.addr)
	require.NoError(r.t, err)
	r.addr = ln.Addr().String()
	r.srv = &http.Server{ErrorLog: log.New(io.Discard, "", 0), Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		stream(w) // go-sse sends the headers with the first event only
		r.sse.ServeHTTP(w, req)
	})}
	r.wg.Go(func() { _ = r.srv.Serve(ln) })
}

// kill closes the listener and every connection at once, mid-stream.
func (r *restartable) kill() {
	_ = r.srv.Close()
	r.wg.Wait()
}

// publish publishes events 1..n, with ids, as fast as the server takes
// them, but at most ahead events ahead of what the program received
// (consumed, which progress signals): the stream is still flowing when
// it is killed, rather than held whole by the kernel's buffers.
func (r *restartable) publish(n, ahead int, consumed *atomic.Int64, progress <-chan struct{}, done <-chan struct{}) {
	for i := 1; i <= n; i++ {
		for int64(i) > consumed.Load()+int64(ahead) {
			select {
			case <-progress:
			case <-done:
				return
			}
		}
		m := &gosse.Message{ID: gosse.ID(strconv.Itoa(i))}
		m.AppendData(strconv.Itoa(i))
		if err := r.sse.Publish(m); errors.Is(err, gosse.ErrProviderClosed) {
			return
		}
	}
}

// TestRestartsLoseNothing publishes events fast to go-sse's server and
// kills it every few hundred events, mid-stream, from inside the loop
// body, while the Client has read ahead of the program (the buffer, and
// what the kernel holds of a stream its server closed): every event
// arrives once, in order, across every restart, because each request
// resumes after the last event delivered and the server replays from
// there.
func TestRestartsLoseNothing(t *testing.T) {
	const (
		total = 12000
		every = 400 // events between two kills
	)
	srv := newRestartable(t, total+10)
	// Event 0 is there before the Client starts, so that the first request
	// resumes after it and misses nothing published once it starts.
	m := &gosse.Message{ID: gosse.ID("0")}
	m.AppendData("0")
	require.NoError(t, srv.sse.Publish(m))

	o := testOptions()
	o.LastEventID = "0"
	o.Supervisor.Backoff.Base, o.Supervisor.Backoff.Cap = time.Millisecond, 10*time.Millisecond
	// The loop body kills the server once it took `every` events since the
	// last kill, on a stream connected since: to the server started after
	// that kill, so that each kill cuts the stream being read.
	var (
		restarts, since int // the loop body's, read once the loop ended
		killedAt        uint64
	)
	ready := make(chan *sse.Client, 1)
	var cl *sse.Client
	startAt := time.Now()
	c := start(t, "http://"+srv.addr+"/events", o, func(g got) {
		if cl == nil {
			cl = <-ready
		}
		if g.err != nil {
			return
		}
		if since++; since >= every && cl.Status().Connects > killedAt {
			killedAt = cl.Status().Connects
			since = 0
			srv.kill()
			srv.start()
			restarts++
		}
	})
	ready <- c.Client
	var (
		pub      sync.WaitGroup
		consumed atomic.Int64
	)
	progress, over := make(chan struct{}, 1), make(chan struct{})
	pub.Go(func() { srv.publish(total, every/2, &consumed, progress, over) })
	defer pub.Wait()
	defer close(over)
	var count, breaks, lost, dup, last int
loop:
	for last < total {
		select {
		case g := <-c.got:
			if g.err != nil {
				breaks++
				continue
			}
			count++
			consumed.Store(int64(count))
			select {
			case progress <- struct{}{}:
			default:
			}
			n, err := strconv.Atoi(g.ev.Data)
			require.NoError(t, err, "event %q", g.ev.ID)
			require.Equal(t, g.ev.Data, g.ev.ID)
			switch {
			case n <= last:
				dup++
			case n > last+1:
				lost += n - last - 1
			}
			last = max(last, n)
		case <-time.After(3 * time.Second):
			lost += total - last // never came
			break loop
		}
	}
	took := time.Since(startAt)
	st := c.Status()
	require.NoError(t, c.stop())
	t.Logf("%d events in %v, %d restarts, %d breaks yielded, %d connects, %d failed attempts; lost %d, duplicated %d",
		count, took.Round(time.Millisecond), restarts, breaks, st.Connects, st.Failures, lost, dup)
	assert.Equal(t, total, count, "every event once")
	assert.Zero(t, lost, "lost")
	assert.Zero(t, dup, "duplicated")
	assert.GreaterOrEqual(t, restarts, 20, "killed many times")
	// The last kill may come after the program received the last event.
	assert.GreaterOrEqual(t, breaks, restarts-1, "every kill broke the stream")
	assert.GreaterOrEqual(t, st.Connects, uint64(restarts), "a new stream after every kill")
}
