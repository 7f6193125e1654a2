package testkit_test

import (
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// feed is a Subscriber that sends the given states.
type feed struct{ states []health.State }

func (f feed) Subscribe() (<-chan health.Status, func()) {
	ch := make(chan health.Status, len(f.states))
	for _, s := range f.states {
		ch <- health.Status{State: s}
	}
	return ch, func() { close(ch) }
}

func TestRecorderDropsRepeats(t *testing.T) {
	r := testkit.Record(feed{[]health.State{health.Idle, health.Connecting, health.Connecting, health.Connected}})
	// Stop closes the channel; the recorder still reads what it holds.
	assert.Equal(t, []health.State{health.Idle, health.Connecting, health.Connected}, r.Stop())
}

func TestWaitStatus(t *testing.T) {
	st := testkit.WaitStatus(t, feed{[]health.State{health.Idle, health.Backoff}}, time.Second, "backoff", testkit.InState(health.Backoff))
	assert.Equal(t, health.Backoff, st.State)
}

func TestBufferWaitFor(t *testing.T) {
	var b testkit.Buffer
	go func() {
		for i := range 3 {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}()
	b.WaitFor(t, "line 2", time.Second)
	assert.Contains(t, b.String(), "line 0")
}

// A connection accepted while Stop runs, after Stop closed the ones it
// knew of, is closed too: registered and served, it kept its handler
// reading and Stop waiting for it, for ever (issue 19, defect 10: a CI
// run hung 9 min 57 s in TestRPCCallWhileDisconnectedWaitsBoundedByItsContext).
func TestServerStopClosesAConnectionAcceptedWhileItRuns(t *testing.T) {
	srv := testkit.StartServer(t, testkit.Echo)
	accepted := make(chan struct{})
	testkit.AfterAccept(srv, func(quit <-chan struct{}) {
		close(accepted)
		<-quit // Stop has begun: it closes the listener and the connections it knows of
	})
	c, err := net.Dial("tcp", srv.Addr)
	require.NoError(t, err)
	defer c.Close()
	<-accepted
	stopped := make(chan struct{})
	go func() { srv.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(testkit.Wait):
		_ = c.Close() // lets the handler, and Stop, return
		<-stopped
		t.Fatalf("Stop still waited after %v for the handler of a connection accepted while it ran", testkit.Wait)
	}
	require.NoError(t, c.SetReadDeadline(time.Now().Add(testkit.Wait)))
	_, err = c.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the server closed it")
	assert.Zero(t, srv.Accepts.Load(), "it was never served")
}

func TestServerRestartsOnItsAddress(t *testing.T) {
	srv := testkit.StartServer(t, testkit.Greet)
	addr := srv.Addr
	hello := func() error {
		c, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = io.ReadFull(c, make([]byte, len("hello\n")))
		return err
	}
	require.NoError(t, hello())
	srv.Stop()
	assert.Error(t, hello(), "refused while stopped")
	srv.Restart()
	assert.Equal(t, addr, srv.Addr)
	require.NoError(t, hello())
	assert.Equal(t, int64(2), srv.Accepts.Load())
}

func TestMaxAttempts(t *testing.T) {
	// attempts at 0, 20, 60, 140, 300, 620, 940ms
	require.Equal(t, 7, testkit.MaxAttempts(20*time.Millisecond, 320*time.Millisecond, time.Second))
}
