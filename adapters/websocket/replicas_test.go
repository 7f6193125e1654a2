package websocket_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
)

// TestKilledReplicaFailsOverToAnother: three real servers; the one in use
// is killed; the supervisor plans its next attempt within FailoverSpread
// and is connected to another replica after one more handshake, with the
// subscription re-sent there.
func TestKilledReplicaFailsOverToAnother(t *testing.T) {
	servers := []*server{startServer(t, nil), startServer(t, nil), startServer(t, nil)}
	byURL := map[string]*server{}
	for _, s := range servers {
		byURL[s.url("/feed")] = s
	}
	o := testOptions()
	o.Supervisor.Name = ""
	o.Supervisor.FailoverSpread = 50 * time.Millisecond
	o.Replicas = []string{servers[1].url("/feed"), servers[2].url("/feed")}
	var logs testkit.Buffer
	o.Supervisor.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	subscribeOnConnect(&o)
	c := run(t, servers[0].url("/feed"), o, true)
	st := testkit.WaitStatus(t, c, 5*time.Second, "connected", testkit.InState(health.Connected))
	require.Equal(t, servers[0].url("/feed"), st.Endpoint, "the first attempt goes to url")
	assert.Equal(t, servers[0].url("/feed"), c.Name(), "the Name is url")
	servers[0].waitSubscribe(t, 5*time.Second)

	ch, unsub := c.Subscribe()
	defer unsub()
	servers[0].stop() // killed: connections dropped, port closed
	lost := testkit.Until(t, ch, 5*time.Second, "the loss", testkit.InState(health.Backoff))
	assert.Less(t, lost.NextAttempt.Sub(lost.LastFailure), 50*time.Millisecond, "the next replica within FailoverSpread, not after the backoff")
	back := testkit.Until(t, ch, 5*time.Second, "connected again", testkit.InState(health.Connected))
	assert.NotEqual(t, servers[0].url("/feed"), back.Endpoint)
	assert.Contains(t, o.Replicas, back.Endpoint)
	assert.Equal(t, uint64(2), back.Connects)
	assert.Zero(t, back.Failures, "the next replica was tried first, and took it")
	byURL[back.Endpoint].waitSubscribe(t, 5*time.Second) // OnConnect ran on the new replica
	assert.Contains(t, logs.String(), "endpoint="+back.Endpoint)
}
