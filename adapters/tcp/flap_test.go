package tcp_test

import (
	"cmp"
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

func TestFlappingServerBackoffNeverResets(t *testing.T) {
	srv := testkit.StartServer(t, testkit.Drop)
	base, cap := 20*time.Millisecond, 320*time.Millisecond
	s := newTCP(t, srv.Addr, tcp.Options{
		Supervisor: supervisor.Settings{Backoff: testkit.Fast(base, cap)},
	})
	stop := testkit.Run(t, s)
	readUntilEOF(t, s) // reads EOF at once and invalidates
	testkit.AssertFlapping(t, s, base, cap, time.Second, 4, srv.Accepts.Load)
	require.NoError(t, stop())
}

// readUntilEOF plays the program: it reads each connection until it
// fails and reports that with Invalidate, until the test ends.
func readUntilEOF(t *testing.T, s *supervisor.Supervisor[net.Conn]) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for conn := range s.Connections(ctx) {
			_, err := io.Copy(io.Discard, conn)
			s.Invalidate(conn, cmp.Or(err, io.EOF))
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
}
