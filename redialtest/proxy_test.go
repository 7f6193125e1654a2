package redialtest_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/redial-go/redial/redialtest"
)

func TestProxyRelaysTCPAndHTTP(t *testing.T) {
	e := startEcho(t)
	p := redialtest.NewProxy(t, e.Addr)
	roundTrip(t, dial(t, p.Addr()), "hello")

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	t.Cleanup(srv.Close)
	hp := redialtest.NewProxy(t, srv.Listener.Addr().String())
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := client.Get("http://" + hp.Addr() + "/")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	assert.Equal(t, "ok", string(body))
	assert.Equal(t, 1, p.Accepted())
	assert.Equal(t, 1, hp.Accepted())
}

// Kill resets both sides at once and the proxy goes on relaying.
func TestProxyKill(t *testing.T) {
	e := startEcho(t)
	p := redialtest.NewProxy(t, e.Addr)
	c := dial(t, p.Addr())
	roundTrip(t, c, "before")
	require.Equal(t, 1, p.Open())

	p.Kill()
	assert.Equal(t, 0, p.Open(), "Kill returned with a connection live")
	_, err := c.Read(make([]byte, 1))
	assert.ErrorIs(t, err, syscall.ECONNRESET, "the client's side")
	assert.ErrorIs(t, <-e.ends, syscall.ECONNRESET, "the server's side")

	roundTrip(t, dial(t, p.Addr()), "after")
	assert.Equal(t, 2, p.Accepted())
	assert.Equal(t, 1, p.Open())
}

// Refuse refuses new connections on the same address and keeps live ones.
func TestProxyRefuse(t *testing.T) {
	e := startEcho(t)
	p := redialtest.NewProxy(t, e.Addr)
	live := dial(t, p.Addr())
	roundTrip(t, live, "one")

	p.Refuse()
	_, err := net.Dial("tcp", p.Addr())
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
	roundTrip(t, live, "two")

	p.Heal()
	roundTrip(t, dial(t, p.Addr()), "three")
	roundTrip(t, live, "four")
	assert.Equal(t, 2, p.Accepted())
}

// Blackhole accepts, forwards nothing and does not reach the server; Heal
// relays what was written meanwhile. Live connections are not affected.
func TestProxyBlackhole(t *testing.T) {
	e := startEcho(t)
	p := redialtest.NewProxy(t, e.Addr)
	live := dial(t, p.Addr())
	roundTrip(t, live, "one")

	p.Blackhole()
	c := dial(t, p.Addr())
	_, err := c.Write([]byte("held\n"))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return p.Accepted() == 2 }, 10*time.Second, time.Millisecond, "accepted")
	silent(t, c, 200*time.Millisecond)
	roundTrip(t, live, "two")
	assert.EqualValues(t, 1, e.Accepts.Load(), "a blackholed connection reached the server")

	p.Heal()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	got := make([]byte, 5)
	_, err = io.ReadFull(c, got)
	require.NoError(t, err)
	assert.Equal(t, "held\n", string(got))
}

// Stall holds the bytes of a live connection and keeps its sockets; Heal
// delivers them.
func TestProxyStall(t *testing.T) {
	e := startEcho(t)
	p := redialtest.NewProxy(t, e.Addr)
	c := dial(t, p.Addr())
	roundTrip(t, c, "one")
	before := e.received.Load()

	p.Stall()
	_, err := c.Write([]byte("two\n"))
	require.NoError(t, err)
	silent(t, c, 200*time.Millisecond)
	assert.Equal(t, before, e.received.Load(), "a stalled byte reached the server")
	assert.Equal(t, 1, p.Open())

	p.Heal()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	got := make([]byte, 4)
	_, err = io.ReadFull(c, got)
	require.NoError(t, err)
	assert.Equal(t, "two\n", string(got))
}

// Stall returns while a write to a peer that does not read is blocked, and
// keeps the rest of that write: after Heal the stream goes on unaltered.
func TestProxyStallCutsABlockedWriteAndKeepsItsRest(t *testing.T) {
	var written atomic64
	p := redialtest.NewProxy(t, startFlood(t, &written))
	c := dial(t, p.Addr())
	// The server stops making progress once every buffer on the way is
	// full: the proxy's write to c is then blocked.
	for last := int64(-1); last != written.Load(); {
		last = written.Load()
		time.Sleep(50 * time.Millisecond)
	}
	stalled := make(chan struct{})
	go func() { p.Stall(); close(stalled) }()
	select {
	case <-stalled:
	case <-time.After(10 * time.Second): // a blocked Stall never returns; 10s is far beyond a busy machine's delay
		t.Fatal("Stall did not return while a write was blocked")
	}
	t.Logf("stalled after %d bytes", written.Load())
	p.Heal()
	got := make([]byte, written.Load()+1<<20)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(30*time.Second)))
	_, err := io.ReadFull(c, got)
	require.NoError(t, err)
	for i, b := range got {
		if b != flood(i) {
			t.Fatalf("byte %d of %d altered", i, len(got))
		}
	}
}

// Latency delays each chunk by d both ways: a round trip takes at least 2d.
func TestProxyLatency(t *testing.T) {
	const d = 50 * time.Millisecond
	e := startEcho(t)
	p := redialtest.NewProxy(t, e.Addr)
	c := dial(t, p.Addr())
	p.Latency(d)
	start := time.Now()
	roundTrip(t, c, "slow")
	assert.GreaterOrEqual(t, time.Since(start), 2*d)
	p.Heal()
	roundTrip(t, c, "fast")
}

// Every fault may be switched while traffic flows (run with -race), and
// after Heal the proxy relays again.
func TestProxyFaultsWhileTrafficFlows(t *testing.T) {
	e := startEcho(t)
	p := redialtest.NewProxy(t, e.Addr)
	stop, done := make(chan struct{}), make(chan struct{})
	trips := make(chan struct{}, 1)
	go func() {
		defer close(done)
		buf := make([]byte, 4)
		for {
			select {
			case <-stop:
				return
			default:
			}
			c, err := net.DialTimeout("tcp", p.Addr(), time.Second)
			if err != nil {
				continue
			}
			_ = c.SetDeadline(time.Now().Add(20 * time.Millisecond))
			for range 20 {
				if _, err := c.Write([]byte("ping")); err != nil {
					break
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					break
				}
				select {
				case trips <- struct{}{}:
				default:
				}
			}
			_ = c.Close()
		}
	}()
	faults := []func(){p.Kill, p.Refuse, p.Blackhole, p.Stall, func() { p.Latency(time.Millisecond) }}
	for i := range 100 {
		faults[i%len(faults)]()
		if i%3 == 0 {
			p.Heal()
			select {
			case <-trips: // a round trip since the last heal
			case <-time.After(10 * time.Second): // far beyond a busy machine's delay
				t.Fatal("no round trip after Heal")
			}
		}
	}
	p.Heal()
	close(stop)
	<-done
	roundTrip(t, dial(t, p.Addr()), "healed")
	t.Logf("%d connections accepted", p.Accepted())
}

// A proxy ends with its test: no goroutine is left, whatever its faults
// and connections.
func TestProxyCleanupLeavesNothing(t *testing.T) {
	opts := goleak.IgnoreCurrent()
	t.Run("faulted", func(t *testing.T) {
		e := startEcho(t)
		t.Cleanup(func() { // runs right after the proxy's: nothing may be left
			buf := make([]byte, 1<<20)
			stacks := string(buf[:runtime.Stack(buf, true)])
			for _, f := range []string{").accept(", ").serve(", ").pump(", ").deliver("} {
				assert.False(t, strings.Contains(stacks, "redialtest.(*Proxy"+f), "(*Proxy%s left running after Cleanup", f)
			}
		})
		p := redialtest.NewProxy(t, e.Addr)
		stalled := dial(t, p.Addr())
		roundTrip(t, stalled, "x")
		p.Stall()
		_, _ = stalled.Write([]byte("held"))
		p.Blackhole()
		_ = dial(t, p.Addr())
		p.Latency(time.Hour)
		p.Refuse()
	})
	goleak.VerifyNone(t, opts)
}
