package tcp_test

import (
	"cmp"
	"context"
	"errors"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

func TestKilledReplicaFailsOverToAnother(t *testing.T) {
	// Each replica holds its connections until it is stopped, as a
	// crashed process.
	rs := []*testkit.Server{testkit.StartServer(t, testkit.Stall), testkit.StartServer(t, testkit.Stall), testkit.StartServer(t, testkit.Stall)}
	addr := func(i int) string { return rs[i].Addr }
	s, err := tcp.New(addr(0), tcp.Options{
		Replicas:   []string{addr(1), addr(2)},
		Supervisor: supervisor.Settings{FailoverSpread: 50 * time.Millisecond},
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
	rs[0].Stop()
	lost := testkit.Until(t, ch, 5*time.Second, "the loss", testkit.InState(health.Backoff))
	// The kill closes the server's side: the reader sees EOF, or a reset
	// when the kernel answers with RST (data in flight).
	assert.True(t, errors.Is(lost.Err, io.EOF) || errors.Is(lost.Err, syscall.ECONNRESET), "lost with %v", lost.Err)
	assert.Less(t, lost.NextAttempt.Sub(lost.LastFailure), 50*time.Millisecond, "the next replica within FailoverSpread")
	back := testkit.Until(t, ch, 5*time.Second, "connected again", testkit.InState(health.Connected))
	assert.Equal(t, addr(1), back.Endpoint, "the next replica")
	assert.Zero(t, back.Failures)
}
