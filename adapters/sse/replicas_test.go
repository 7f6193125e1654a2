package sse_test

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// TestKilledReplicaFailsOverAndResumes: three replicas of one service
// share their history (events 1..30); the one in use stalls after event
// 10 and is killed once the program received it. The next attempt goes to another replica
// within FailoverSpread, not after the backoff, and resumes after event
// 10 there: events 1..30 arrive once each.
func TestKilledReplicaFailsOverAndResumes(t *testing.T) {
	var (
		mu      sync.Mutex
		resumes []string
	)
	history := func(w http.ResponseWriter, r *http.Request, _ int) {
		mu.Lock()
		resumes = append(resumes, r.Header.Get("Last-Event-ID"))
		mu.Unlock()
		from, _ := strconv.Atoi(r.Header.Get("Last-Event-ID"))
		stream(w)
		for i := from + 1; i <= 30; i++ {
			send(w, strconv.Itoa(i), strconv.Itoa(i))
			if i == 10 && from == 0 {
				break // the first stream stalls here until it is killed
			}
		}
		<-r.Context().Done()
	}
	servers := []*server{serve(t, history), serve(t, history), serve(t, history)}
	o := testOptions()
	o.Supervisor.Name = ""
	o.Supervisor.Backoff.Base, o.Supervisor.Backoff.Cap = time.Second, time.Second
	o.Supervisor.FailoverSpread = 50 * time.Millisecond
	o.Replicas = []string{servers[1].URL + "/events", servers[2].URL + "/events"}
	c := start(t, servers[0].URL+"/events", o, nil)
	st := testkit.WaitStatus(t, c, 5*time.Second, "connected", testkit.InState(health.Connected))
	require.Equal(t, servers[0].URL+"/events", st.Endpoint, "the first attempt goes to url")
	ch, unsub := c.Subscribe()
	defer unsub()
	var ids []string
	for len(ids) < 10 {
		ids = append(ids, c.next(t, 5*time.Second).ev.ID)
	}
	servers[0].CloseClientConnections() // killed
	servers[0].Close()
	lost := testkit.Until(t, ch, 5*time.Second, "the loss", testkit.InState(health.Backoff))
	assert.Less(t, lost.NextAttempt.Sub(lost.LastFailure), 50*time.Millisecond, "the next replica within FailoverSpread, not after the backoff")
	back := testkit.Until(t, ch, 5*time.Second, "connected again", testkit.InState(health.Connected))
	assert.Contains(t, o.Replicas, back.Endpoint)
	for len(ids) < 30 {
		if g := c.next(t, 5*time.Second); g.err == nil {
			ids = append(ids, g.ev.ID)
		}
	}
	require.NoError(t, c.stop())
	for i, id := range ids {
		assert.Equal(t, strconv.Itoa(i+1), id, "every event once, in order")
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"", "10"}, resumes, "the replica resumes after the last event delivered")
}
