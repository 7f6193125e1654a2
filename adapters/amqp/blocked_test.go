package amqp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/health/healthhttp"
)

// eventually polls cond until it holds, failing t after d. For what
// nothing notifies: the broker's connection.blocked reaches Status only.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v", what, d)
		}
		<-tick.C
	}
}

// probe returns h's status code for a GET.
func probe(h http.Handler) int {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	return rec.Code
}

// A memory alarm: the broker blocks the publishing connection. Status
// and readiness say so while it lasts (Degraded: /readyz 503, live), the
// state stays Connected, a Publish waits instead of sending, and once the
// alarm clears the message sent before the block is confirmed and the
// program is ready again.
func TestBlockedConnection(t *testing.T) {
	b := rabbit.Get(t)
	q := queueName(t)
	c := newClient(t, b.URL(), amqp.Options{Topology: declare(q)})
	connected(t, run(t, c))
	var reg health.Registry
	reg.Add("broker", c, health.SourceOptions{Critical: true})
	ctx := ctxFor(t, 2*time.Minute)
	require.NoError(t, c.Publish(ctx, "", q, amqp091.Publishing{Body: []byte("before")}))
	require.True(t, reg.Ready())
	require.Equal(t, http.StatusOK, probe(healthhttp.ReadyHandler(&reg)))

	alarm := time.Now()
	b.Ctl(t, "set_vm_memory_high_watermark", "0.000001")
	restored := false
	restore := func() {
		if !restored {
			restored = true
			b.Ctl(t, "set_vm_memory_high_watermark", "0.4")
		}
	}
	t.Cleanup(restore)
	first := make(chan error, 1)
	go func() { first <- c.Publish(ctx, "", q, amqp091.Publishing{Body: []byte("during")}) }()
	eventually(t, time.Minute, "not ready", func() bool { return !reg.Ready() })
	t.Logf("not ready %v after the alarm was set", time.Since(alarm).Round(time.Millisecond))
	st := c.Status()
	t.Logf("status while blocked: %v: %v", st.State, st.Err)
	assert.Equal(t, health.Connected, st.State)
	assert.ErrorIs(t, st.Err, amqp.ErrBlocked)
	assert.ErrorIs(t, c.Degraded(), amqp.ErrBlocked)
	assert.Equal(t, http.StatusServiceUnavailable, probe(healthhttp.ReadyHandler(&reg)))
	assert.Equal(t, http.StatusOK, probe(healthhttp.LiveHandler(&reg)), "blocked is no reason to restart")
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err := c.Publish(short, "", q, amqp091.Publishing{Body: []byte("waits")})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, amqp.ErrBlocked, "it says why it waited")
	assert.NotErrorIs(t, err, amqp.ErrMaybeDelivered, "it was not sent")

	cleared := time.Now()
	restore()
	eventually(t, time.Minute, "ready again", reg.Ready)
	t.Logf("ready again %v after the alarm was cleared", time.Since(cleared).Round(time.Millisecond))
	require.NoError(t, <-first, "confirmed once unblocked")
	assert.NoError(t, c.Degraded())
	assert.NotErrorIs(t, c.Status().Err, amqp.ErrBlocked)
	assert.Equal(t, http.StatusOK, probe(healthhttp.ReadyHandler(&reg)))
	assert.EqualValues(t, 1, c.Status().Connects)
}
