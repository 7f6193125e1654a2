package gorilla_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// closeSeen is a server that reads until the connection ends and sends the
// close code it read (-1: none, the connection just dropped).
func closeSeen(t *testing.T, im impl) (string, <-chan int) {
	got := make(chan int, 1)
	srv := startServer(t, im, func(s *server, w http.ResponseWriter, r *http.Request) {
		p := s.accept(w, r, acceptOpts{})
		if p == nil {
			return
		}
		defer s.Forget(p)
		for {
			if _, _, err := p.read(r.Context()); err != nil {
				got <- s.im.closeCode(err)
				return
			}
		}
	})
	return srv.url("/feed"), got
}

// Stopping the supervisor closes a healthy connection with a close frame:
// the server reads 1000 (normal closure), whoever reads on the client's
// side: the program (Messages), the adapter (WriteOnly), or nobody.
func TestStopClosesWithNormalClosure(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		testkit.AssertStopCloses(t, func(t *testing.T) (string, <-chan int) { return closeSeen(t, im) }, start)
	})
}

// Run's ctx ends by deadline or with a cause: the connection is healthy, so
// it should still be closed with 1000, as when ctx is plainly cancelled.
func TestStopWithDeadlineOrCauseClosesPolitely(t *testing.T) {
	testkit.ForEachStop(t, func(t *testing.T, ctx context.Context, stop func()) {
		url, got := closeSeen(t, impls[0])
		s, err := gorilla.New(url, testOptions())
		require.NoError(t, err)
		testkit.RunUntil(t, s, gorilla.Messages, ctx, stop)
		assert.Equal(t, websocket.CloseNormalClosure, testkit.Receive(t, got, "close seen by the server"))
	})
}

// A server that never answers the close frame: with a reader waiting for
// the answer, the stop waits CloseTimeout, no longer.
func TestStopWaitsAtMostCloseTimeoutForTheAnswer(t *testing.T) {
	release := make(chan struct{})
	srv := startServer(t, impls[0], func(s *server, w http.ResponseWriter, r *http.Request) {
		p := s.accept(w, r, acceptOpts{})
		if p == nil {
			return
		}
		defer s.Forget(p)
		<-release // reads nothing: the close frame is never answered
	})
	defer close(release)
	o := testOptions()
	o.CloseTimeout = 300 * time.Millisecond
	c := run(t, srv.url("/feed"), o, true)
	testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
	late := testkit.MeasureLateness(t)
	began := time.Now()
	require.NoError(t, c.Stop())
	took := time.Since(began)
	// The close's timer, Run's return and the loop's each wake up as
	// late as the machine makes them.
	bound := late.Bound(o.CloseTimeout, 300*time.Millisecond, 3)
	t.Logf("Run and the loop returned %v after the stop (CloseTimeout %v, bound %v)", took, o.CloseTimeout, bound)
	assert.Less(t, took, bound)
}

// wss:// with Options.TLS trusting the test server's certificate.
func TestWSSUsesTLS(t *testing.T) {
	testkit.AssertWSS(t, func(w http.ResponseWriter, r *http.Request, first chan<- string) {
		c, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		if _, msg, err := c.ReadMessage(); err == nil {
			first <- string(msg)
			_, _, _ = c.ReadMessage()
		}
	}, func(url string, roots *x509.CertPool) (testkit.Subscriber, func() error) {
		o := testOptions()
		o.TLS = &tls.Config{RootCAs: roots}
		subscribeOnConnect(&o)
		c := run(t, url, o, true)
		return c, c.Stop
	})
}

// drainSeen is testkit.DrainSeen with im's server.
func drainSeen(t *testing.T, im impl, onClose func()) (string, <-chan string) {
	events := make(chan string, 16)
	srv := startServer(t, im, func(s *server, w http.ResponseWriter, r *http.Request) {
		p := s.accept(w, r, acceptOpts{})
		if p == nil {
			return
		}
		defer s.Forget(p)
		for {
			_, msg, err := p.read(r.Context())
			if err != nil {
				onClose()
				events <- fmt.Sprint("close ", s.im.closeCode(err))
				return
			}
			events <- string(msg)
		}
	})
	return srv.url("/feed"), events
}

// Drain: readiness 503 first, the Do under way completes, then close 1001.
func TestDrainSaysGoingAway(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		testkit.AssertDrainGoesAway(t, func(t *testing.T, onClose func()) (string, <-chan string) { return drainSeen(t, im, onClose) }, start,
			func(_ context.Context, c *websocket.Conn, text string) error {
				return c.WriteMessage(websocket.TextMessage, []byte(text))
			})
	})
}
