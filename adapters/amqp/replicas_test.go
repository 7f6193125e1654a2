package amqp_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redial-go/redial/adapters/amqp"
	"github.com/redial-go/redial/internal/testing/rabbittest"
	"github.com/redial-go/redial/internal/testing/testkit"
)

// A cluster node that is down: the next one is tried at once, not after a
// backoff; Status.Endpoint names it, redacted.
func TestReplicaFailover(t *testing.T) {
	b := rabbit.Get(t)
	closed := testkit.ClosedAddr(t)
	down := b.URLAt(closed, rabbittest.User, b.Password(), "/")
	c := newClient(t, down, amqp.Options{Replicas: []string{b.URL()}})
	start := time.Now()
	st := connected(t, run(t, c))
	t.Logf("connected to %s after %v", st.Endpoint, time.Since(start))
	assert.Equal(t, "amqp://xxxxx@"+b.Addr()+"/", st.Endpoint)
	assert.Equal(t, "amqp://xxxxx@"+closed+"/", c.Name(), "the default Name is the url, redacted")
	h := c.History()
	assert.Contains(t, h[1].Err.Error(), "connection refused")
	assert.Less(t, h[2].At.Sub(h[1].At), fast.Base, "failover without a backoff wait")
}
