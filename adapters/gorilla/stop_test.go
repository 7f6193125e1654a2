package gorilla_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

// closeSeen is a server that reads until the connection ends and sends the
// close code it read (-1: none, the connection just dropped).
func closeSeen(t *testing.T, im impl) (*server, chan int) {
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
	return srv, got
}

// Stopping the supervisor closes a healthy connection with a close frame:
// the server reads 1000 (normal closure), whoever reads on the client's
// side: the program (Messages), the adapter (WriteOnly), or nobody.
func TestStopClosesWithNormalClosure(t *testing.T) {
	eachImpl(t, func(t *testing.T, im impl) {
		for name, m := range map[string]struct{ read, writeOnly bool }{
			"program reads": {true, false},
			"WriteOnly":     {false, true},
			"nobody reads":  {false, false},
		} {
			t.Run(name, func(t *testing.T) {
				srv, got := closeSeen(t, im)
				o := testOptions()
				o.WriteOnly = m.writeOnly
				c := run(t, srv.url("/feed"), o, m.read)
				testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
				require.NoError(t, c.Stop())
				select {
				case code := <-got:
					assert.Equal(t, websocket.CloseNormalClosure, code)
				case <-time.After(5 * time.Second):
					t.Fatal("the server saw no close")
				}
			})
		}
	})
}

// Run's ctx ends by deadline or with a cause: the connection is healthy, so
// it should still be closed with 1000, as when ctx is plainly cancelled.
func TestStopWithDeadlineOrCauseClosesPolitely(t *testing.T) {
	for name, mk := range map[string]func() (context.Context, func()){
		"cancel": func() (context.Context, func()) { ctx, c := context.WithCancel(context.Background()); return ctx, c },
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
			srv, got := closeSeen(t, impls[0])
			s, err := gorilla.New(srv.url("/feed"), testOptions())
			require.NoError(t, err)
			ctx, stop := mk()
			readCtx, cancelRead := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx) }()
			readDone := make(chan struct{})
			go func() {
				defer close(readDone)
				for range gorilla.Messages(readCtx, s) {
				}
			}()
			_, err = s.Conn(context.Background())
			require.NoError(t, err)
			stop()
			require.NoError(t, <-done)
			cancelRead()
			<-readDone
			select {
			case code := <-got:
				assert.Equal(t, websocket.CloseNormalClosure, code, "server saw %v", code)
			case <-time.After(5 * time.Second):
				t.Fatal("the server saw no close")
			}
		})
	}
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
	began := time.Now()
	require.NoError(t, c.Stop())
	took := time.Since(began)
	t.Logf("Run and the loop returned %v after the stop (CloseTimeout %v)", took, o.CloseTimeout)
	assert.Less(t, took, o.CloseTimeout+300*time.Millisecond)
}

// wss:// with Options.TLS trusting the test server's certificate.
func TestWSSUsesTLS(t *testing.T) {
	subs := make(chan string, 1)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		_, msg, err := c.ReadMessage()
		if err == nil {
			subs <- string(msg)
			_, _, _ = c.ReadMessage()
		}
	}))
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	ts.StartTLS()
	defer ts.Close()
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	url := "wss" + strings.TrimPrefix(ts.URL, "https") + "/feed"
	o := testOptions()
	o.TLS = &tls.Config{RootCAs: pool}
	subscribeOnConnect(&o)
	c := run(t, url, o, true)
	testkit.WaitStatus(t, c, 5*time.Second, "connection", connected(1))
	assert.Equal(t, "subscribe prices", <-subs)
	require.NoError(t, c.Stop())

	o.TLS = nil // Go's defaults do not trust the test certificate
	c = run(t, url, o, true)
	st := testkit.WaitStatus(t, c, 5*time.Second, "an error", func(st health.Status) bool { return st.Err != nil })
	assert.Contains(t, st.Err.Error(), "certificate")
	require.NoError(t, c.Stop())
}
