package testkit

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"iter"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// The checks below are rules both WebSocket adapters (websocket, gorilla)
// keep, each tested with the adapter's own server library.

// AssertResubscribes checks, for c, a client of s whose OnConnect sends
// "subscribe prices": it subscribes on its first connection, finds s
// stopped (a killed process), and subscribes again once s restarted.
func (s *HTTPServer[P]) AssertResubscribes(t testing.TB, c Subscriber) {
	t.Helper()
	WaitStatus(t, c, 5*time.Second, "first connection", Connected(1))
	assert.Equal(t, "subscribe prices", s.WaitSubscribe(t, 5*time.Second))
	s.Stop() // mid-stream: the client's read sees the connection drop
	st := WaitStatus(t, c, 5*time.Second, "the loss", func(st health.Status) bool { return st.State != health.Connected })
	t.Logf("after the stop: %s, %v", st.State, st.Err)
	s.Restart()
	WaitStatus(t, c, 5*time.Second, "second connection", Connected(2))
	assert.Equal(t, "subscribe prices", s.WaitSubscribe(t, 5*time.Second))
	assert.Equal(t, []string{"subscribe prices", "subscribe prices"}, s.Subscribes())
}

// AssertWriteOnlyReaders checks, for c, a WriteOnly client of s: the
// adapter reads on one goroutine per live connection, across a
// reconnection, and each has done its work by the time Close returns, so
// none still reads when Run returns (checked at once; one that signalled
// its end may take a moment to exit: the package's goleak check waits for it).
func AssertWriteOnlyReaders[P, C comparable](t testing.TB, s *HTTPServer[P], c *Client[C]) {
	t.Helper()
	WaitStatus(t, c, 5*time.Second, "connection", Connected(1))
	s.Stop() // the adapter's reader sees the drop
	WaitStatus(t, c, 5*time.Second, "the loss", func(st health.Status) bool { return st.State != health.Connected })
	s.Restart()
	WaitStatus(t, c, 5*time.Second, "reconnection", Connected(2))
	assert.Equal(t, 1, WriteOnlyReaders(), "one reader goroutine for the one live connection")
	require.NoError(t, c.Stop())
	assert.Zero(t, busyWriteOnlyReaders(), "a reader goroutine still worked after Run returned")
}

// AssertAttemptTimesOut checks, for c, started at began with
// connectTimeout against a server that never answers the handshake: the
// first attempt ends, in Backoff, ConnectTimeout after it began.
func AssertAttemptTimesOut(t testing.TB, c Subscriber, began time.Time, connectTimeout time.Duration) {
	t.Helper()
	st := WaitStatus(t, c, 5*time.Second, "the attempt to fail", InState(health.Backoff))
	took := st.Since.Sub(began)
	t.Logf("attempt ended after %v (ConnectTimeout %v): %v", took, connectTimeout, st.Err)
	assert.GreaterOrEqual(t, took, connectTimeout)
	assert.Less(t, took, connectTimeout+200*time.Millisecond)
	assert.ErrorIs(t, st.Err, context.DeadlineExceeded)
	assert.Contains(t, st.Err.Error(), fmt.Sprintf("timed out after %v", connectTimeout))
	assert.Equal(t, 1, st.ConsecutiveFailures)
}

// WriteOnlyReaders counts the goroutines the WebSocket adapters' Connect
// started: the WriteOnly readers.
func WriteOnlyReaders() int {
	return strings.Count(Stacks(), writeOnlyReader)
}

const writeOnlyReader = "created by github.com/redial-go/redial/internal/httpcore.(*State).ReadForWriter"

// busyWriteOnlyReaders counts the WriteOnly readers still at work: with a
// frame below the reader's own, other than the runtime's (one that closed
// its done channel has none left).
func busyWriteOnlyReaders() int {
	n := 0
	for _, g := range strings.Split(Stacks(), "\n\n") {
		if !strings.Contains(g, writeOnlyReader) {
			continue
		}
		for _, line := range strings.Split(g, "\n")[1:] {
			if line == "" || line[0] == '\t' || strings.HasPrefix(line, "created by") ||
				strings.HasPrefix(line, "runtime.") || strings.Contains(line, "ReadForWriter.func") {
				continue
			}
			n++
			break
		}
	}
	return n
}

// ForEachStop runs f once per way Run's ctx can end — cancelled, with a
// cause, by deadline — as subtests: f gets the ctx for Run and the func
// that ends it, which returns once it has.
func ForEachStop(t *testing.T, f func(t *testing.T, ctx context.Context, stop func())) {
	for name, mk := range map[string]func() (context.Context, func()){
		"cancel": func() (context.Context, func()) { return context.WithCancel(context.Background()) },
		"cause": func() (context.Context, func()) {
			ctx, c := context.WithCancelCause(context.Background())
			return ctx, func() { c(errors.New("shutting down")) }
		},
		"deadline": func() (context.Context, func()) {
			ctx, c := context.WithDeadline(context.Background(), time.Now().Add(time.Hour))
			ctx2, c2 := context.WithTimeout(ctx, 400*time.Millisecond)
			return ctx2, func() { <-ctx2.Done(); c2(); c() }
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, stop := mk()
			f(t, ctx, stop)
		})
	}
}

// RunUntil runs s with ctx and a loop over read, as a program does, until
// the first connection; then it calls stop and returns once Run (with no
// error) and the loop have.
func RunUntil[C comparable, M any](t testing.TB, s *supervisor.Supervisor[C], read func(context.Context, *supervisor.Supervisor[C]) iter.Seq2[M, error], ctx context.Context, stop func()) {
	t.Helper()
	readCtx, cancelRead := context.WithCancel(context.Background())
	done, readDone := make(chan error, 1), make(chan struct{})
	go func() { done <- s.Run(ctx) }()
	go func() {
		defer close(readDone)
		for range read(readCtx, s) {
		}
	}()
	_, err := s.Conn(context.Background())
	require.NoError(t, err)
	stop()
	require.NoError(t, <-done)
	cancelRead()
	<-readDone
}

// Receive returns what ch gives within 5s; it fails t, naming what, when
// nothing comes.
func Receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s within 5s", what)
		var zero T
		return zero
	}
}

// AssertWSS checks a WebSocket adapter over wss://, against a TLS test
// server that serves each connection with serve (which sends the first
// message it reads to first). start runs a client of url that trusts
// roots (nil: Go's defaults, which do not trust the test certificate)
// and sends "subscribe prices" on connect.
func AssertWSS(t *testing.T, serve func(w http.ResponseWriter, r *http.Request, first chan<- string), start func(url string, roots *x509.CertPool) (Subscriber, func() error)) {
	subs := make(chan string, 1)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { serve(w, r, subs) }))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	ts.StartTLS()
	defer ts.Close()
	roots := x509.NewCertPool()
	roots.AddCert(ts.Certificate())
	url := "wss" + strings.TrimPrefix(ts.URL, "https") + "/feed"
	c, stop := start(url, roots)
	WaitStatus(t, c, 5*time.Second, "connection", Connected(1))
	assert.Equal(t, "subscribe prices", Receive(t, subs, "subscribe message"))
	require.NoError(t, stop())
	c, stop = start(url, nil)
	st := WaitStatus(t, c, 5*time.Second, "an error", func(st health.Status) bool { return st.Err != nil })
	assert.Contains(t, st.Err.Error(), "certificate")
	require.NoError(t, stop())
}

// AssertPingsAnswered checks, for c, a WriteOnly client: n pings reach
// the server (pings), answered, on c's one connection.
func AssertPingsAnswered(t testing.TB, c interface {
	Subscriber
	Status() health.Status
}, pings <-chan struct{}, n int) {
	t.Helper()
	WaitStatus(t, c, 5*time.Second, "connection", Connected(1))
	for i := range n {
		Receive(t, pings, fmt.Sprintf("ping %d", i+1))
	}
	st := c.Status()
	assert.Equal(t, health.Connected, st.State)
	assert.Equal(t, uint64(1), st.Connects, "the pings answered on one connection")
}

// AssertHeartbeatNeedsReader checks, for c, a client nobody reads with a
// short heartbeat: the pongs are never seen, so the heartbeat replaces
// the connection with errHeartbeat and says why.
func AssertHeartbeatNeedsReader(t testing.TB, c Subscriber, errHeartbeat error) {
	t.Helper()
	WaitStatus(t, c, 5*time.Second, "connection", Connected(1))
	st := WaitStatus(t, c, 5*time.Second, "the heartbeat to fail", func(st health.Status) bool { return st.State != health.Connected })
	assert.ErrorIs(t, st.Err, errHeartbeat)
	assert.Contains(t, st.Err.Error(), "nothing reads the connection")
}

// AssertStopBounded checks that stopping c, once connected, returns
// within closeTimeout (and the machine's slack) while the server streams a
// message nobody reads: the close handshake would discard it all.
func AssertStopBounded[C comparable](t testing.TB, c *Client[C], closeTimeout time.Duration) {
	t.Helper()
	WaitStatus(t, c, 5*time.Second, "connection", Connected(1))
	began := time.Now()
	require.NoError(t, c.Stop())
	took := time.Since(began)
	t.Logf("Run returned %v after the stop (CloseTimeout %v)", took, closeTimeout)
	assert.Less(t, took, closeTimeout+500*time.Millisecond)
}

// AssertPoisonEnds checks, for c, a client with a ReadLimit of 4096 that
// reads from a server sending a larger message on every connect: three
// connections break at the same place, then the supervisor gives up with
// an error that names ReadLimit and wraps tooBig.
func AssertPoisonEnds[C comparable](t testing.TB, c *Client[C], tooBig error, handshakes func() int64) {
	t.Helper()
	select {
	case <-c.Ended:
	case <-time.After(10 * time.Second):
		t.Fatalf("still reconnecting after %d handshakes", handshakes())
	}
	err := c.Stop()
	assert.ErrorIs(t, err, supervisor.ErrFailed)
	assert.ErrorIs(t, err, tooBig)
	assert.Contains(t, err.Error(), "a message over ReadLimit (4096 bytes) broke 3 connections in a row at the same place: giving up")
	assert.Len(t, c.ReadErrs, 3, "each break yielded once")
	assert.Equal(t, int64(3), handshakes())
}

// AssertHandshakeBounded checks, for start's reading client, against servers that
// accept the TCP connection and never answer the handshake: the attempt
// ends at ConnectTimeout, and a stop during the handshake ends it at once.
// (The same through toxiproxy latency is in e2e/adapters.)
func AssertHandshakeBounded[C comparable](t *testing.T, start StartWS[C]) {
	t.Run("ConnectTimeout", func(t *testing.T) {
		w := Socket(true)
		w.Settings.ConnectTimeout = 300 * time.Millisecond
		began := time.Now() // the first attempt is immediate
		c := start(t, "ws://"+Serve(t, nil)+"/feed", w)
		AssertAttemptTimesOut(t, c, began, w.Settings.ConnectTimeout)
		require.NoError(t, c.Stop())
	})
	t.Run("Stop", func(t *testing.T) {
		accepted := make(chan struct{}, 1)
		addr := Serve(t, func(c net.Conn) { // reads the request, never answers
			accepted <- struct{}{}
			_, _ = io.Copy(io.Discard, c)
		})
		w := Socket(true)
		w.Settings.ConnectTimeout = time.Minute
		c := start(t, "ws://"+addr+"/feed", w)
		<-accepted // the handshake is under way
		began := time.Now()
		require.NoError(t, c.Stop())
		took := time.Since(began)
		t.Logf("Run returned %v after the stop, during the handshake", took)
		assert.Less(t, took, 500*time.Millisecond)
	})
}
