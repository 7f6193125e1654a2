package gorilla_test

import (
	"context"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// client is a supervisor a test started, with an optional Messages loop.
type client struct {
	*supervisor.Supervisor[*websocket.Conn]
	cancel   context.CancelFunc
	done     chan struct{} // closed when Run returned runErr
	readDone chan struct{}
	stopped  bool
	runErr   error
	readErrs chan error // what the Messages loop yielded as errors
}

// testOptions are small, deterministic delays for socket tests:
// Exponential 20ms doubling to 200ms, ConnectTimeout 2s.
func testOptions() gorilla.Options {
	return gorilla.Options{
		Supervisor: supervisor.Options[*websocket.Conn]{
			Settings: supervisor.Settings{
				Name:           "feed",
				Backoff:        backoff.Config{Strategy: backoff.Exponential, Base: 20 * time.Millisecond, Cap: 200 * time.Millisecond},
				ConnectTimeout: 2 * time.Second,
			},
		},
	}
}

// subscribeOnConnect sends "subscribe prices" after every connect.
func subscribeOnConnect(o *gorilla.Options) {
	o.Supervisor.OnConnect = func(ctx context.Context, c *websocket.Conn) error {
		return c.WriteMessage(websocket.TextMessage, []byte("subscribe prices"))
	}
}

// run starts Run for url and, when read is true, a loop over
// gorilla.Messages, as a feed program does. Both end when the test does:
// stop ends Run first, so that the connection is closed politely, then the
// loop.
func run(t *testing.T, url string, o gorilla.Options, read bool) *client {
	t.Helper()
	s, err := gorilla.New(url, o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	readCtx, cancelRead := context.WithCancel(context.Background())
	c := &client{Supervisor: s, done: make(chan struct{}), readDone: make(chan struct{}), readErrs: make(chan error, 1000)}
	c.cancel = func() { cancel(); <-c.done; cancelRead() }
	go func() { c.runErr = s.Run(ctx); close(c.done) }()
	if read {
		go func() {
			defer close(c.readDone)
			for _, err := range gorilla.Messages(readCtx, s) {
				if err != nil {
					select {
					case c.readErrs <- err:
					default:
					}
				}
			}
		}()
	} else {
		close(c.readDone)
	}
	t.Cleanup(func() { c.stop() })
	return c
}

// stop ends Run and then the Messages loop, and returns Run's error.
func (c *client) stop() error {
	if !c.stopped {
		c.stopped = true
		c.cancel()
		<-c.readDone
	}
	return c.runErr
}

func connected(n uint64) func(health.Status) bool {
	return func(st health.Status) bool { return st.State == health.Connected && st.Connects >= n }
}
