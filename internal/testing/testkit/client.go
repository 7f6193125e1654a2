package testkit

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// Client is a supervisor a test started with Start, with an optional loop
// over one of its adapter's iterators, as a feed program has. Stop ends
// Run first, so that the connection is closed politely, then the loop;
// the test's cleanup stops it.
type Client[C comparable] struct {
	*supervisor.Supervisor[C]
	Ended    chan struct{} // closed when Run returned
	ReadErrs chan error    // the errors the loop yielded (the first 1000)
	readDone chan struct{}
	cancel   func()
	stopped  bool
	runErr   error
}

// Start runs s and, when read is not nil, a loop over read(ctx, s).
func Start[C comparable, M any](t testing.TB, s *supervisor.Supervisor[C], read func(context.Context, *supervisor.Supervisor[C]) iter.Seq2[M, error]) *Client[C] {
	ctx, cancel := context.WithCancel(context.Background())
	readCtx, cancelRead := context.WithCancel(context.Background())
	c := &Client[C]{Supervisor: s, Ended: make(chan struct{}), ReadErrs: make(chan error, 1000), readDone: make(chan struct{})}
	c.cancel = func() { cancel(); <-c.Ended; cancelRead() }
	go func() { c.runErr = s.Run(ctx); close(c.Ended) }()
	if read == nil {
		close(c.readDone)
	} else {
		go func() {
			defer close(c.readDone)
			for _, err := range read(readCtx, s) {
				if err != nil {
					select {
					case c.ReadErrs <- err:
					default:
					}
				}
			}
		}()
	}
	t.Cleanup(func() { c.Stop() })
	return c
}

// StartNew starts newS(url, o) as Start does, with the loop over read
// only when loop is true.
func StartNew[C comparable, M, O any](t testing.TB, newS func(string, O) (*supervisor.Supervisor[C], error),
	read func(context.Context, *supervisor.Supervisor[C]) iter.Seq2[M, error], url string, o O, loop bool) *Client[C] {
	t.Helper()
	s, err := newS(url, o)
	require.NoError(t, err)
	if !loop {
		read = nil
	}
	return Start(t, s, read)
}

// Stop ends Run, then the loop, and returns Run's error.
func (c *Client[C]) Stop() error {
	if !c.stopped {
		c.stopped = true
		c.cancel()
		<-c.readDone
	}
	return c.runErr
}

// Connected is a WaitStatus condition: connected, with at least n
// connects so far.
func Connected(n uint64) func(health.Status) bool {
	return func(st health.Status) bool { return st.State == health.Connected && st.Connects >= n }
}

// SocketSettings are small, deterministic delays for socket tests: name
// "feed", Exponential 20ms doubling to 200ms, ConnectTimeout 2s.
func SocketSettings() supervisor.Settings {
	return supervisor.Settings{Name: "feed", Backoff: Fast(20*time.Millisecond, 200*time.Millisecond), ConnectTimeout: 2 * time.Second}
}
