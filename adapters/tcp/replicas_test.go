package tcp_test

import (
	"cmp"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

// replica is a TCP server that holds its connections until killed.
type replica struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

func startReplica(t *testing.T) *replica {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	r := &replica{ln: ln}
	r.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.mu.Lock()
			r.conns = append(r.conns, c)
			r.mu.Unlock()
		}
	})
	t.Cleanup(r.kill)
	return r
}

// kill closes the listener and every connection, as a crashed process.
func (r *replica) kill() {
	_ = r.ln.Close()
	r.wg.Wait()
	r.mu.Lock()
	for _, c := range r.conns {
		_ = c.Close()
	}
	r.conns = nil
	r.mu.Unlock()
}

func TestKilledReplicaFailsOverToAnother(t *testing.T) {
	rs := []*replica{startReplica(t), startReplica(t), startReplica(t)}
	addr := func(i int) string { return rs[i].ln.Addr().String() }
	s, err := tcp.New(addr(0), tcp.Options{
		Replicas:   []string{addr(1), addr(2)},
		Supervisor: supervisor.Options[net.Conn]{FailoverSpread: 50 * time.Millisecond},
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	defer func() { cancel(); <-s.Done() }()
	go func() { _ = s.Run(ctx) }()
	go func() { // the program's reader: it sees the EOF and says so
		for conn := range s.Connections(ctx) {
			_, err := io.Copy(io.Discard, conn)
			s.Invalidate(conn, cmp.Or(err, io.EOF))
		}
	}()
	st := testkit.WaitStatus(t, s, 5*time.Second, "connected", testkit.InState(health.Connected))
	require.Equal(t, addr(0), st.Endpoint)
	ch, unsub := s.Subscribe()
	defer unsub()
	rs[0].kill()
	lost := testkit.Until(t, ch, 5*time.Second, "the loss", testkit.InState(health.Backoff))
	// The kill closes the server's side: the reader sees EOF, or a reset
	// when the kernel answers with RST (data in flight).
	assert.True(t, errors.Is(lost.Err, io.EOF) || errors.Is(lost.Err, syscall.ECONNRESET), "lost with %v", lost.Err)
	assert.Less(t, lost.NextAttempt.Sub(lost.LastFailure), 50*time.Millisecond, "the next replica within FailoverSpread")
	back := testkit.Until(t, ch, 5*time.Second, "connected again", testkit.InState(health.Connected))
	assert.Equal(t, addr(1), back.Endpoint, "the next replica")
	assert.Zero(t, back.Failures)
}

func TestReplicasAreChecked(t *testing.T) {
	_, err := tcp.New("a:1", tcp.Options{Replicas: []string{"b:1", "c"}})
	assert.EqualError(t, err, `tcp: Replicas[1] "c": missing port in address`)
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)
}
