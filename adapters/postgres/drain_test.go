package postgres_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/postgres"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// terminateMsg is the frontend's Terminate message: 'X', length 4.
var terminateMsg = []byte{'X', 0, 0, 0, 4}

// sniffer is a TCP relay in front of the server that keeps, for every
// connection, the last bytes the client sent before it closed its side.
type sniffer struct {
	Addr     string
	upstream string
	mu       sync.Mutex
	tails    [][]byte // of the connections whose client side ended
	wg       sync.WaitGroup
}

func startSniffer(t *testing.T, upstream string) *sniffer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &sniffer{Addr: ln.Addr().String(), upstream: upstream}
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Go(func() { s.pipe(c) })
		}
	})
	t.Cleanup(func() { _ = ln.Close(); s.wg.Wait() })
	return s
}

func (s *sniffer) pipe(c net.Conn) {
	up, err := net.Dial("tcp", s.upstream)
	if err != nil {
		_ = c.Close()
		return
	}
	go func() { _, _ = io.Copy(c, up); _ = c.Close() }()
	tail := &tailWriter{w: up}
	_, _ = io.Copy(tail, c)
	_ = up.Close()
	s.mu.Lock()
	s.tails = append(s.tails, tail.last)
	s.mu.Unlock()
}

// ended returns the tails of the connections that ended so far.
func (s *sniffer) ended() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.tails...)
}

// waitEnded waits until n connections ended, at most 10s.
func (s *sniffer) waitEnded(t *testing.T, n int) [][]byte {
	deadline := time.Now().Add(10 * time.Second)
	for len(s.ended()) < n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return s.ended()
}

type tailWriter struct {
	w    io.Writer
	last []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.last = append(t.last, p...)
	if n := len(t.last); n > len(terminateMsg) {
		t.last = t.last[n-len(terminateMsg):]
	}
	return t.w.Write(p)
}

// drainSource is what the drain tests need of a Conn, Pool or Listener.
type drainSource interface {
	Run(ctx context.Context) error
	Drain(ctx context.Context) error
	Draining() bool
	Status() health.Status
	Done() <-chan struct{}
}

// runForDrain runs s until the test ends and waits for Connected.
func runForDrain(t *testing.T, s drainSource) <-chan error {
	ran := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { ran <- s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-s.Done() })
	deadline := time.Now().Add(10 * time.Second)
	for s.Status().State != health.Connected {
		require.True(t, time.Now().Before(deadline), "not connected: %v", s.Status())
		time.Sleep(5 * time.Millisecond)
	}
	return ran
}

// drainDuring starts Drain while do's work is under way, checks that
// readiness drops and new work is refused (refused), and returns how
// long the drain took after do returned, the drain's error and do's.
func drainDuring(t *testing.T, s drainSource, do func(ctx context.Context) error, refused func() error) (after time.Duration, drainErr, doErr error) {
	reg := &health.Registry{}
	reg.Add("db", s, health.SourceOptions{Critical: true})
	require.True(t, reg.Ready())
	did := make(chan error, 1)
	var doneAt time.Time
	go func() { err := do(t.Context()); doneAt = time.Now(); did <- err }()
	time.Sleep(50 * time.Millisecond) // the query is on the wire (pg_sleep(0.3))
	drained := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		drained <- s.Drain(ctx)
	}()
	for !s.Draining() {
		time.Sleep(time.Millisecond)
	}
	assert.False(t, reg.Ready(), "not ready from the drain's start")
	assert.ErrorIs(t, refused(), supervisor.ErrDraining)
	doErr = <-did
	drainErr = <-drained
	return time.Since(doneAt), drainErr, doErr
}

// A Conn drained while a query runs: the query completes, a Do after is
// refused, the connection ends with Terminate, Stopped.
func TestConnDrainLetsTheQueryFinishAndSaysTerminate(t *testing.T) {
	sn := startSniffer(t, shared.Addr())
	c, err := postgres.NewConn(shared.DSNVia(sn.Addr, "sslmode", "disable"), postgres.ConnOptions{Supervisor: supervisor.Settings{Backoff: fast}})
	require.NoError(t, err)
	ran := runForDrain(t, c)
	sleep := func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "select pg_sleep(0.3)")
		return err
	}
	after, drainErr, doErr := drainDuring(t, c,
		func(ctx context.Context) error { return c.Do(ctx, sleep) },
		func() error { return c.Do(t.Context(), sleep) })
	require.NoError(t, drainErr)
	assert.NoError(t, doErr, "the query under way completed")
	assert.NoError(t, <-ran)
	assert.Equal(t, health.Stopped, c.Status().State)
	tails := sn.waitEnded(t, 1)
	require.Len(t, tails, 1)
	assert.Equal(t, terminateMsg, tails[0], "the last message is Terminate: a goodbye, not a cut")
	t.Logf("conn drain: Stopped %v after the query under way returned", after.Round(time.Microsecond))
}

// A Pool drained while a query runs on one of its two connections: the
// query completes, Do is refused, every connection ends with Terminate and
// Drain returns once the pool is closed.
func TestPoolDrainLetsTheQueryFinishAndSaysTerminate(t *testing.T) {
	sn := startSniffer(t, shared.Addr())
	p, err := postgres.NewPool(shared.DSNVia(sn.Addr, "sslmode", "disable", "pool_max_conns", "4"), postgres.PoolOptions{Supervisor: supervisor.Settings{Backoff: fast}})
	require.NoError(t, err)
	ran := runForDrain(t, p)
	sleep := func(ctx context.Context, conn *pgxpool.Conn) error {
		_, err := conn.Exec(ctx, "select pg_sleep(0.3)")
		return err
	}
	// Two connections: one idle, one busy when the drain begins.
	hold := make(chan struct{})
	go func() {
		_ = p.Do(t.Context(), func(ctx context.Context, conn *pgxpool.Conn) error { <-hold; return nil })
	}()
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, p.Do(t.Context(), func(ctx context.Context, conn *pgxpool.Conn) error { return conn.Ping(ctx) }))
	close(hold)
	after, drainErr, doErr := drainDuring(t, p,
		func(ctx context.Context) error { return p.Do(ctx, sleep) },
		func() error { return p.Do(t.Context(), sleep) })
	require.NoError(t, drainErr)
	assert.NoError(t, doErr, "the query under way completed")
	assert.NoError(t, <-ran)
	assert.Equal(t, health.Stopped, p.Status().State)
	tails := sn.waitEnded(t, 2)
	require.GreaterOrEqual(t, len(tails), 2)
	for i, tail := range tails {
		assert.True(t, bytes.Equal(terminateMsg, tail), "connection %d: the last message is Terminate, not %q", i, tail)
	}
	t.Logf("pool drain: closed %v after the query under way returned (%d connections said Terminate)", after.Round(time.Microsecond), len(tails))
}

// A Listener drained says Terminate too.
func TestListenerDrainSaysTerminate(t *testing.T) {
	sn := startSniffer(t, shared.Addr())
	l := newListener(t, shared.DSNVia(sn.Addr, "sslmode", "disable"), postgres.ListenerOptions{Channels: []string{"drained"}})
	ran := runForDrain(t, l)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	require.NoError(t, l.Drain(ctx))
	assert.NoError(t, <-ran)
	tails := sn.waitEnded(t, 1)
	require.Len(t, tails, 1)
	assert.Equal(t, terminateMsg, tails[0])
}

// Replace on a Conn while a query runs: the query completes on the old
// session, the next Do runs on a new one, and the old one ends with
// Terminate; the state never leaves Connected.
func TestConnReplaceIsMakeBeforeBreak(t *testing.T) {
	sn := startSniffer(t, shared.Addr())
	c, err := postgres.NewConn(shared.DSNVia(sn.Addr, "sslmode", "disable"), postgres.ConnOptions{Supervisor: supervisor.Settings{Backoff: fast}})
	require.NoError(t, err)
	runForDrain(t, c)
	pid := func(ctx context.Context) (p uint32, err error) {
		err = c.Do(ctx, func(ctx context.Context, conn *pgx.Conn) error {
			p = conn.PgConn().PID()
			return nil
		})
		return p, err
	}
	before, err := pid(t.Context())
	require.NoError(t, err)
	did := make(chan error, 1)
	go func() {
		did <- c.Do(t.Context(), func(ctx context.Context, conn *pgx.Conn) error {
			_, err := conn.Exec(ctx, "select pg_sleep(0.3)")
			return err
		})
	}()
	time.Sleep(50 * time.Millisecond)
	c.Replace()
	require.NoError(t, <-did, "the query under way completed")
	deadline := time.Now().Add(10 * time.Second)
	for c.Status().Connects < 2 {
		require.True(t, time.Now().Before(deadline), "not replaced: %v", c.Status())
		time.Sleep(5 * time.Millisecond)
	}
	after, err := pid(t.Context())
	require.NoError(t, err)
	assert.NotEqual(t, before, after, "a new session")
	tails := sn.waitEnded(t, 1)
	require.Len(t, tails, 1)
	assert.Equal(t, terminateMsg, tails[0], "the old session said Terminate")
	for _, tr := range c.History() {
		assert.NotEqual(t, health.Backoff, tr.To)
	}
	assert.Zero(t, c.Status().Failures)
}
