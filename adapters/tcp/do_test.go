package tcp_test

import (
	"bufio"
	"cmp"
	"context"
	"io"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
	"github.com/redial-go/redial/supervisor"
)

// hangUp says hello and hangs up, as a server that restarts would.
func hangUp(c net.Conn, _ <-chan struct{}) { _, _ = c.Write([]byte("hello\n")) }

// A Do whose f reads to io.EOF breaks its connection with that error: the
// supervisor reconnects, and the next Do gets a new connection.
func TestDoEOFBreaksTheConnectionAndItReconnects(t *testing.T) {
	srv := testkit.StartServer(t, hangUp)
	s := newTCP(t, srv.Addr, tcp.Options{})
	ch, unsub := s.Subscribe()
	defer unsub()
	testkit.Run(t, s)
	ctx := testkit.CtxWait(t)

	var conns []net.Conn
	for i := range 2 {
		var line string
		err := s.Do(ctx, func(_ context.Context, conn net.Conn) error {
			conns = append(conns, conn)
			r := bufio.NewReader(conn)
			var err error
			if line, err = r.ReadString('\n'); err != nil {
				return err
			}
			_, err = r.ReadString('\n')
			return err
		})
		require.ErrorIs(t, err, io.EOF, "Do %d returns f's error", i)
		assert.Equal(t, "hello\n", line)
		st := testkit.Until(t, ch, testkit.Wait, "lost", func(st health.Status) bool {
			return st.Connects == uint64(i+1) && st.State != health.Connected && testkit.ErrHas("connection lost")(st)
		})
		assert.ErrorIs(t, st.Err, io.EOF, "Status says why")
		assert.NotErrorIs(t, st.Err, supervisor.ErrInvalidated)
	}
	require.Len(t, conns, 2)
	assert.True(t, conns[0] != conns[1], "a new connection")
	assert.GreaterOrEqual(t, srv.Accepts.Load(), int64(2))
	assert.GreaterOrEqual(t, s.Status().Connects, uint64(2))
}

// The package doc's reading loop: a bufio.Scanner ends with a nil Err at
// io.EOF, and recording io.EOF makes Status say EOF; a body that returns
// without Invalidate leaves only "connection invalidated".
func TestConnectionsLoopRecordsEOF(t *testing.T) {
	for name, record := range map[string]bool{"Invalidate(conn, EOF)": true, "no Invalidate": false} {
		t.Run(name, func(t *testing.T) {
			s := newTCP(t, testkit.StartServer(t, hangUp).Addr, tcp.Options{})
			testkit.Run(t, s)
			var lines []string
			n := 0
			for conn := range s.Connections(testkit.CtxWait(t)) {
				if n++; n == 3 {
					break
				}
				sc := bufio.NewScanner(conn)
				for sc.Scan() {
					lines = append(lines, sc.Text())
				}
				require.NoError(t, sc.Err(), "the server hung up: io.EOF, which a Scanner reports as nil")
				if record {
					s.Invalidate(conn, cmp.Or(sc.Err(), io.EOF))
				}
			}
			require.Equal(t, 3, n, "the loop ended early: %v", s.Status().Err)
			assert.Equal(t, []string{"hello", "hello"}, lines)
			st := s.Status()
			assert.Equal(t, uint64(3), st.Connects)
			require.Error(t, st.Err)
			t.Logf("status: %v %v", st.State, st.Err)
			if record {
				assert.ErrorIs(t, st.Err, io.EOF)
				assert.NotErrorIs(t, st.Err, supervisor.ErrInvalidated)
				assert.NotContains(t, st.Err.Error(), "connection invalidated")
			} else {
				assert.ErrorIs(t, st.Err, supervisor.ErrInvalidated)
				assert.NotErrorIs(t, st.Err, io.EOF)
			}
		})
	}
}
