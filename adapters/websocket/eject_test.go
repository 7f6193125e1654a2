package websocket_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
	"github.com/redial-go/redial/health"
)

// replica is a WebSocket server on loopback that, while sick, accepts
// TCP and answers every handshake 500; it records when each came.
type replica struct {
	*httptest.Server
	sick   atomic.Bool
	mu     sync.Mutex
	hits   []time.Time
	oks    int
	closes []websocket.StatusCode // how each connection ended: -1 without a close frame
}

func startReplica(t *testing.T) *replica {
	r := &replica{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.hits = append(r.hits, time.Now())
		sick := r.sick.Load()
		if !sick {
			r.oks++
		}
		r.mu.Unlock()
		if sick {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		c, err := websocket.Accept(w, req, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		_, _, err = c.Read(req.Context()) // until the client goes
		r.mu.Lock()
		r.closes = append(r.closes, websocket.CloseStatus(err))
		r.mu.Unlock()
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *replica) url() string { return "ws" + strings.TrimPrefix(r.URL, "http") + "/feed" }

func (r *replica) attempts() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.hits...)
}

// TestASickReplicaIsEjectedProbedAndUsedAgain: three replicas, the
// preferred one answering every handshake 500. The client serves from
// the next one, fails back on schedule, and after the third 500 ejects
// the sick replica: no attempt reaches it until its ejection ends, when
// it is probed. Once it answers 101, the client is back on it by the end
// of its ejection at the latest. Every fail-back closes b's connection
// with a close frame.
func TestASickReplicaIsEjectedProbedAndUsedAgain(t *testing.T) {
	a, b, c := startReplica(t), startReplica(t), startReplica(t)
	a.sick.Store(true)
	o := testOptions()
	o.Replicas = []string{b.url(), c.url()}
	o.Supervisor.EjectAfter, o.Supervisor.EjectBase, o.Supervisor.EjectCap = 3, time.Second, 4*time.Second
	o.Supervisor.PreferFirst = true
	o.Supervisor.FailoverSpread = 10 * time.Millisecond
	s, err := redialws.New(a.url(), o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() { cancel(); <-done }()

	endpoint := func(i int) health.EndpointStatus { return s.Endpoints()[i] }
	// Three fail-backs refused, [0.5s, 1s] after each connection on b,
	// then the ejection. A busy machine stretches each; 10s is far above.
	require.Eventually(t, func() bool { return endpoint(0).State == health.EndpointEjected }, 10*time.Second, 5*time.Millisecond, "never ejected")
	ej := endpoint(0)
	hits := a.attempts()
	assert.Len(t, hits, 3, "ejected after the third 500")
	assert.Equal(t, 3, ej.ConsecutiveFailures)
	require.Eventually(t, func() bool { return s.Status().State == health.Connected }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, endpoint(1).Name, s.Status().Endpoint, "served by b meanwhile")
	// [0.5s, 1s] from the third 500, which the client saw after the server
	// did: 0.5s more for a busy machine.
	assert.WithinRange(t, ej.EjectedUntil, hits[2].Add(500*time.Millisecond), hits[2].Add(1500*time.Millisecond))

	// The probe: at the ejection's end, refused: ejected again, longer.
	require.Eventually(t, func() bool { return endpoint(0).Ejections == 2 }, 20*time.Second, 5*time.Millisecond)
	hits = a.attempts()
	require.Len(t, hits, 4, "one probe")
	assert.False(t, hits[3].Before(ej.EjectedUntil), "no attempt on a while it was ejected: probe at %v, ejected until %v", hits[3], ej.EjectedUntil)

	// Healthy again: back on a by the end of its second ejection.
	ej = endpoint(0)
	a.sick.Store(false)
	healed := time.Now()
	require.Eventually(t, func() bool {
		st := s.Status()
		return st.State == health.Connected && st.Endpoint == endpoint(0).Name
	}, 10*time.Second, 5*time.Millisecond, "never back on a")
	back := time.Now()
	t.Logf("back on a %v after it healed; its ejection ended %v after", back.Sub(healed), ej.EjectedUntil.Sub(healed))
	// The fail-back fires at the ejection's end; the handshake on loopback
	// takes milliseconds, 1s covers a busy machine's scheduling.
	assert.WithinDuration(t, ej.EjectedUntil, back, time.Second)
	assert.Equal(t, health.EndpointHealthy, endpoint(0).State)
	assert.Equal(t, 1, a.oks)
	// Each fail-back closed b's working connection politely.
	require.Eventually(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.closes) >= 4 }, 5*time.Second, 5*time.Millisecond)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, code := range b.closes {
		assert.NotEqual(t, websocket.StatusCode(-1), code, "a close frame: %v", b.closes)
	}
}
