package testkit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
	"github.com/redial-go/redial/supervisor"
)

// DrainSeen starts an adapter's test server that sends on events each
// text message it reads, then "close <code>" when the connection ends
// (-1: no close frame); onClose runs when it has read the close, before
// that event is sent.
type DrainSeen func(t *testing.T, onClose func()) (url string, events <-chan string)

// AssertDrainGoesAway checks a WebSocket adapter's drain against a real
// server: the readiness probe answers 503 before the server reads the
// close, a Do under way when Drain began completes (its write reaches the
// server before the close), a Do after is refused with ErrDraining, the
// server reads 1001 going away, then Stopped and Drain returns nil. It
// logs the drain's timings.
func AssertDrainGoesAway[C comparable](t *testing.T, seen DrainSeen, start StartWS[C], write func(ctx context.Context, conn C, text string) error) {
	reg := &health.Registry{}
	probeAtClose := make(chan int, 1)
	url, events := seen(t, func() { probeAtClose <- probe(reg) })
	c := start(t, url, Socket(true))
	reg.Add("feed", c, health.SourceOptions{Critical: true})
	WaitStatus(t, c, 5*time.Second, "connection", Connected(1))
	require.Equal(t, http.StatusOK, probe(reg))

	inDo, release, did := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		did <- c.Do(context.Background(), func(ctx context.Context, conn C) error {
			close(inDo)
			<-release
			return write(ctx, conn, "last words")
		})
	}()
	<-inDo
	began := time.Now()
	drained := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		drained <- c.Drain(ctx)
	}()
	for !c.Draining() {
		time.Sleep(time.Millisecond)
	}
	assert.Equal(t, http.StatusServiceUnavailable, probe(reg), "not ready from the drain's start")
	assert.ErrorIs(t, c.Do(context.Background(), func(context.Context, C) error { return nil }), supervisor.ErrDraining)
	const work = 200 * time.Millisecond // the Do's work: the drain waits for it
	time.Sleep(work)
	released := time.Now()
	close(release)
	require.NoError(t, Receive(t, drained, "drain"))
	stopped := time.Now()
	assert.NoError(t, Receive(t, did, "the Do under way"))
	assert.Equal(t, "last words", Receive(t, events, "the Do's message"))
	assert.Equal(t, "close 1001", Receive(t, events, "the close"))
	assert.Equal(t, http.StatusServiceUnavailable, Receive(t, probeAtClose, "readiness when the server read the close"))
	assert.Equal(t, health.Stopped, c.Status().State)
	select {
	case <-c.Ended:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
	t.Logf("drain: readiness 503 at once; the Do under way released %v after the drain began; Stopped %v after it was released (%v in all)",
		released.Sub(began).Round(time.Millisecond), stopped.Sub(released).Round(time.Microsecond), stopped.Sub(began).Round(time.Millisecond))
}

// probe returns the status code of reg's readiness probe.
func probe(reg *health.Registry) int {
	rec := httptest.NewRecorder()
	healthhttp.ReadyHandler(reg).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	return rec.Code
}
