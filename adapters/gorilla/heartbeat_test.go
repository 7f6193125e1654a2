package gorilla_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// Nobody reads and WriteOnly is not set: the heartbeat replaces the
// connection and says why.
func TestHeartbeatWithoutReaderReplacesConnection(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		o := testOptions()
		o.PingInterval, o.PingTimeout = 100*time.Millisecond, 100*time.Millisecond
		c := run(t, startServer(t, im, nil).url("/feed"), o, false)
		testkit.AssertHeartbeatNeedsReader(t, c, gorilla.ErrHeartbeat)
		require.NoError(t, c.Stop())
	})
}

// With WriteOnly the adapter reads: pings are answered and the connection
// stays up with nobody reading in the program.
func TestWriteOnlyConnectionStaysUp(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		srv, pings := startPingedServer(t, im, acceptOpts{})
		o := testOptions()
		o.WriteOnly = true
		o.PingInterval, o.PingTimeout = 20*time.Millisecond, 500*time.Millisecond
		c := run(t, srv.url("/feed"), o, false)
		testkit.AssertPingsAnswered(t, c, pings, 10)
		require.NoError(t, c.Stop())
	})
}

// A peer that never answers a ping and sends nothing is found within
// PingInterval + PingTimeout, whether the program reads or the adapter
// does (WriteOnly). (The same through a toxiproxy that silences the
// path is in e2e/adapters/gorilla.)
func TestHeartbeatFindsSilentPeer(t *testing.T) {
	const interval, timeout = 200 * time.Millisecond, 150 * time.Millisecond
	eachImpl(t, func(t *testing.T, im impl) {
		for _, m := range modes {
			t.Run(m.name, func(t *testing.T) {
				srv := startServer(t, im, func(s *server, w http.ResponseWriter, r *http.Request) {
					if p := s.accept(w, r, acceptOpts{noPong: true}); p != nil {
						s.feed(r.Context(), p)
					}
				})
				o := testOptions()
				o.PingInterval, o.PingTimeout, o.WriteOnly = interval, timeout, m.writeOnly
				late := testkit.MeasureLateness(t)
				c := run(t, srv.url("/feed"), o, !m.writeOnly)
				began := testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1)).Since
				st := testkit.WaitStatus(t, c, 5*time.Second, "the heartbeat to fail", func(st health.Status) bool { return st.State != health.Connected })
				found := st.Since.Sub(began)
				// Four wake-ups, each as late as the machine makes them: the
				// heartbeat's start, its ping timer, the pong's deadline, the
				// supervisor publishing the loss (629ms at load 12 before).
				bound := late.Bound(interval+timeout, 100*time.Millisecond, 4)
				t.Logf("silent peer found %v after the connect (bound %v, wakes up to %v late): %v", found, bound, late.Worst(), st.Err)
				assert.ErrorIs(t, st.Err, gorilla.ErrHeartbeat)
				assert.LessOrEqual(t, found, bound, "found within PingInterval + PingTimeout")
				assert.GreaterOrEqual(t, found, interval+timeout-50*time.Millisecond, "a ping waited PingTimeout")
				require.NoError(t, c.Stop())
			})
		}
	})
}

// Every pong moves the read deadline: a reader on a quiet but healthy
// connection (pongs, no messages) keeps it for many times PingInterval +
// PingTimeout, the deadline the connect set.
func TestPongExtendsTheReadDeadline(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		srv, pings := startPingedServer(t, im, acceptOpts{})
		o := testOptions()
		o.PingInterval, o.PingTimeout = 100*time.Millisecond, 900*time.Millisecond
		c := run(t, srv.url("/feed"), o, true)
		testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
		staysConnected(t, c, pings, 21) // 2.1s: the connect's deadline (1s) passed twice
	})
}

// An OnConnect that takes longer than PingInterval + PingTimeout (a
// subscription that waits for its answer) leaves the handshake's read
// deadline behind: the loop's first read counts it from when it began, so
// a quiet, healthy peer keeps its connection.
func TestSlowOnConnectKeepsTheConnection(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		srv, pings := startPingedServer(t, im, acceptOpts{})
		o := testOptions()
		o.PingInterval, o.PingTimeout = 100*time.Millisecond, 700*time.Millisecond
		o.OnConnect = func(ctx context.Context, _ *websocket.Conn) error {
			slow := time.NewTimer(1200 * time.Millisecond) // 1.5 times the read deadline
			defer slow.Stop()
			select {
			case <-slow.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		c := run(t, srv.url("/feed"), o, true)
		testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
		staysConnected(t, c, pings, 17) // 1.7s: the read deadline (0.8s) passed twice
	})
}

// Messages read through Messages move the read deadline and count as the
// peer's answer: a server that never answers a ping but streams messages
// keeps its connection, with a PingTimeout longer than PingInterval and
// with one shorter (as the defaults, 10s and 5s, are).
func TestMessagesExtendTheReadDeadline(t *testing.T) {
	for _, timing := range []struct{ interval, timeout time.Duration }{
		{500 * time.Millisecond, time.Second},
		{time.Second, 500 * time.Millisecond},
	} {
		t.Run(fmt.Sprintf("%v+%v", timing.interval, timing.timeout), func(t *testing.T) {
			messagesExtendTheReadDeadline(t, timing.interval, timing.timeout)
		})
	}
}

func messagesExtendTheReadDeadline(t *testing.T, interval, timeout time.Duration) {
	eachImpl(t, func(t *testing.T, im impl) {
		pinged, pings := pingSignal()
		srv := startServer(t, im, func(s *server, w http.ResponseWriter, r *http.Request) {
			p := s.accept(w, r, acceptOpts{noPong: true, onPing: pinged})
			if p == nil {
				return
			}
			defer s.Forget(p)
			go func() { _, _, _ = p.read(r.Context()) }() // handles control frames
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for range tick.C {
				if p.write(r.Context(), websocket.TextMessage, []byte("tick")) != nil {
					return
				}
			}
		})
		o := testOptions()
		o.PingInterval, o.PingTimeout = interval, timeout
		c := run(t, srv.url("/feed"), o, true)
		testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
		// A ping every interval + timeout (no pong: each waits its
		// timeout): the third is two read deadlines past the connect's.
		staysConnected(t, c, pings, 3)
	})
}

// startPingedServer is the feed server accepting with o, and the pings it
// receives.
func startPingedServer(t *testing.T, im impl, o acceptOpts) (*server, <-chan struct{}) {
	pinged, pings := pingSignal()
	o.onPing = pinged
	return startServer(t, im, func(s *server, w http.ResponseWriter, r *http.Request) {
		if p := s.accept(w, r, o); p != nil {
			s.feed(r.Context(), p)
		}
	}), pings
}

// pingSignal is an acceptOpts.onPing and the channel it signals.
func pingSignal() (func(), <-chan struct{}) {
	pings := make(chan struct{}, 1000)
	return func() {
		select {
		case pings <- struct{}{}:
		default:
		}
	}, pings
}

// The heartbeat tests leave at least 500ms between the moment the peer was
// last heard and the read deadline (PingTimeout with pongs, the smaller of
// PingInterval and PingTimeout with messages and no pong): under -race on
// two busy cores, 100ms margins failed 12 runs in 40.
//
// staysConnected fails unless c's reader sees no error until the server
// received n pings from the heartbeat, each a ping that found the
// connection alive, and c is still on its first connection then; it stops
// c. Counting pings, not time, keeps the window the same number of
// heartbeats on a loaded machine.
func staysConnected(t *testing.T, c *client, pings <-chan struct{}, n int) {
	t.Helper()
	for i := range n {
		select {
		case err := <-c.ReadErrs:
			t.Fatalf("the read failed after %d pings: %v", i, err)
		case <-pings:
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of %d pings reached the server", i, n)
		}
	}
	select {
	case err := <-c.ReadErrs:
		t.Fatalf("the read failed: %v", err)
	default:
	}
	st := c.Status()
	assert.Equal(t, health.Connected, st.State, "%v", st.Err)
	assert.Equal(t, uint64(1), st.Connects)
	require.NoError(t, c.Stop())
}
