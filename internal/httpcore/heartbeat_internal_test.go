package httpcore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// pinged is a Library whose connections are watched by the heartbeat:
// ping answers each ping (n counts them from 1), reader, when set, is the
// WriteOnly reader's next (ended before Dial returns when early), and
// Close tells closes whether it said goodbye.
type pinged struct {
	*Core
	ping   func(ctx context.Context, n int) error
	reader func() error
	early  bool
	pings  atomic.Int32
	closes chan bool
}

type pingedConn struct{ _ int }

func (l *pinged) Dial(_ context.Context, _ *Attempt, st *State) (*pingedConn, *http.Response, error) {
	if l.reader != nil {
		st.ReadForWriter(l.reader, func() {})
		if l.early {
			<-st.ReadDone()
		}
	}
	return &pingedConn{}, nil, nil
}

func (l *pinged) Ping(ctx context.Context, _ *pingedConn, _ *State) error {
	return l.ping(ctx, int(l.pings.Add(1)))
}

func (l *pinged) Close(_ *pingedConn, st *State) error {
	if l.closes != nil {
		l.closes <- st.Polite()
	}
	return nil
}

var pingedSpec = &Spec{Pkg: "ws", Schemes: []string{"ws"}}

// runPinged runs a supervisor of l with the default heartbeat (10s, 5s)
// until its first attempt is over; cancel stops it.
func runPinged(t *testing.T, l *pinged) (s *supervisor.Supervisor[*pingedConn], cancel context.CancelFunc, done <-chan error) {
	l.closes = make(chan bool, 1)
	cfg := Config{URL: "ws://h/x", WriteOnly: l.reader != nil}
	so := supervisor.Options[*pingedConn]{Settings: supervisor.Settings{Backoff: backoff.Config{Base: time.Hour, Cap: time.Hour}}}
	s, err := New(pingedSpec, cfg, so, func(c *Core) (Library[*pingedConn], error) {
		l.Core = c
		return l, nil
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	ch := make(chan error, 1)
	go func() { ch <- s.Run(ctx) }()
	synctest.Wait()
	return s, cancel, ch
}

// lost waits until s is no longer Connected, an hour at most, and returns
// the Status and how long it had been connected.
func lost(s *supervisor.Supervisor[*pingedConn]) (health.Status, time.Duration) {
	since := s.Status().Since
	ch, unsubscribe := s.Subscribe()
	defer unsubscribe()
	timeout := time.After(time.Hour)
	for {
		select {
		case st := <-ch:
			if st.State != health.Connected {
				return st, st.Since.Sub(since)
			}
		case <-timeout:
			return s.Status(), time.Hour
		}
	}
}

// A ping without its pong fails the heartbeat PingInterval + PingTimeout
// after it began, and the connection is dropped without a goodbye; pongs
// keep it going.
func TestHeartbeatFindsASilentPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &pinged{ping: func(ctx context.Context, n int) error {
			if n <= 3 {
				return nil // a pong
			}
			<-ctx.Done() // silence
			return ctx.Err()
		}}
		s, cancel, done := runPinged(t, l)
		require.Equal(t, health.Connected, s.Status().State)
		st, after := lost(s)
		assert.ErrorIs(t, st.Err, ErrHeartbeat)
		assert.ErrorContains(t, st.Err, "heartbeat failed: no pong within 5s (the peer is silent, or nothing reads the connection)")
		assert.Equal(t, 4*10*time.Second+5*time.Second, after)
		cancel() // closes it politely only if the heartbeat had not
		assert.False(t, <-l.closes, "a silent peer gets no goodbye")
		assert.NoError(t, <-done)
	})
}

func TestHeartbeatEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &pinged{ping: func(context.Context, int) error { return fmt.Errorf("write: %w", net.ErrClosed) }}
		s, cancel, done := runPinged(t, l)
		st, _ := lost(s)
		assert.ErrorContains(t, st.Err, "heartbeat: connection closed: write: use of closed network connection")
		cancel()
		assert.False(t, <-l.closes)
		<-done

		// Invalidate: the program saw the connection fail, so it is broken;
		// a stop says goodbye.
		l = &pinged{ping: func(context.Context, int) error { return nil }}
		s, cancel, done = runPinged(t, l)
		conn, err := s.Conn(t.Context())
		require.NoError(t, err)
		time.Sleep(65 * time.Second) // 6 pings
		s.Invalidate(conn, errors.New("read failed"))
		assert.False(t, <-l.closes, "invalidated: dropped")
		cancel()
		<-done
		s, cancel, done = runPinged(t, l)
		time.Sleep(65 * time.Second)
		require.Equal(t, health.Connected, s.Status().State)
		cancel()
		assert.True(t, <-l.closes, "stopped: goodbye")
		<-done
		assert.EqualValues(t, 12, l.pings.Load(), "a ping every 10s while connected")

		// The WriteOnly reader's end, before and after the heartbeat began,
		// is the reason.
		gone := errors.New("close frame 1001")
		for _, early := range []bool{true, false} {
			l = &pinged{ping: func(context.Context, int) error { return nil }, early: early, reader: func() error {
				if !early {
					time.Sleep(time.Minute)
				}
				return gone
			}}
			s, cancel, done = runPinged(t, l)
			st, _ := lost(s)
			assert.ErrorContains(t, st.Err, "close frame 1001", "the WriteOnly reader's reason")
			cancel()
			assert.False(t, <-l.closes)
			<-done
		}
	})
}
