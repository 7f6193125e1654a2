package sse_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/sse"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/supervisor"
)

// testOptions are small, deterministic delays for socket tests:
// Exponential 5ms doubling to 50ms, ConnectTimeout 2s.
func testOptions() sse.Options {
	return sse.Options{
		Supervisor: supervisor.Settings{
			Name:           "feed",
			Backoff:        backoff.Config{Strategy: backoff.Exponential, Base: 5 * time.Millisecond, Cap: 50 * time.Millisecond},
			ConnectTimeout: 2 * time.Second,
		},
	}
}

// got is one thing an Events loop yielded.
type got struct {
	ev  sse.Event
	err error
}

// client is a Client a test started, with an Events loop whose yields go
// to got (closed when the loop ended).
type client struct {
	*sse.Client
	got     chan got
	stopRun context.CancelFunc
	runDone chan struct{}
	runErr  error
	stopped bool
}

// start runs Run for url and an Events loop, as a feed program does; both
// end when the test does. hold, when not nil, is called in the loop body
// with every yield before it is handed on: a slow or stalling program.
func start(t *testing.T, url string, o sse.Options, hold func(got)) *client {
	t.Helper()
	c, err := sse.New(url, o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	readCtx, cancelRead := context.WithCancel(context.Background())
	cl := &client{Client: c, got: make(chan got, 100000), runDone: make(chan struct{})}
	readDone := make(chan struct{})
	cl.stopRun = func() { cancel(); <-cl.runDone; cancelRead(); <-readDone }
	go func() { cl.runErr = c.Run(ctx); close(cl.runDone) }()
	go func() {
		defer close(readDone)
		defer close(cl.got)
		for ev, err := range c.Events(readCtx) {
			g := got{ev, err}
			if hold != nil {
				hold(g)
			}
			cl.got <- g
		}
	}()
	t.Cleanup(func() { cl.stop() })
	return cl
}

// stop ends Run, then the Events loop, and returns Run's error.
func (c *client) stop() error {
	if !c.stopped {
		c.stopped = true
		c.stopRun()
	}
	return c.runErr
}

// next returns the next yield, failing t if none comes within d.
func (c *client) next(t *testing.T, d time.Duration) got {
	t.Helper()
	select {
	case g, ok := <-c.got:
		require.True(t, ok, "the Events loop ended; Status %v %v", c.Status().State, c.Status().Err)
		return g
	case <-time.After(d):
		t.Fatalf("nothing yielded within %v; Status %v %v", d, c.Status().State, c.Status().Err)
		return got{}
	}
}

// loopEnds waits for the Events loop to end and returns what it yielded
// meanwhile.
func (c *client) loopEnds(t *testing.T, d time.Duration) []got {
	t.Helper()
	var all []got
	timeout := time.After(d)
	for {
		select {
		case g, ok := <-c.got:
			if !ok {
				return all
			}
			all = append(all, g)
		case <-timeout:
			t.Fatalf("the Events loop did not end within %v (yielded %d)", d, len(all))
		}
	}
}

// server is an httptest server that records the requests it got.
type server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
}

// serve starts a server on 127.0.0.1 whose handler is h, with n the
// number of the request (1 for the first).
func serve(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Clone(context.Background()))
		n := len(s.requests)
		s.mu.Unlock()
		h(w, r, n)
	}))
	t.Cleanup(s.Close)
	return s
}

// request returns the n-th request (1 for the first).
func (s *server) request(n int) *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > len(s.requests) {
		return nil
	}
	return s.requests[n-1]
}

func (s *server) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// stream answers 200 text/event-stream and flushes the headers.
func stream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

// send writes one event with an id and flushes it.
func send(w http.ResponseWriter, id, data string) {
	fmt.Fprintf(w, "id: %s\ndata: %s\n\n", id, data)
	w.(http.Flusher).Flush()
}
