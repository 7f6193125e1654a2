package websocket_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	redialws "github.com/redial-go/redial/adapters/websocket"
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

func TestReplicasAreCheckedAndMasked(t *testing.T) {
	_, err := redialws.New("ws://a/feed", redialws.Options{Replicas: []string{"ws://b/feed", "http://c/feed?token=SECRET123"}})
	assert.EqualError(t, err, `websocket: Replicas[1] "http://c/feed?token=xxxxx": scheme "http" is not ws or wss`)

	// A replica's token is masked in errors like url's, and the error
	// names the endpoint that failed.
	refused := func() string { return "ws://" + testkit.ClosedAddr(t) + "/feed" }
	o := testOptions()
	o.Replicas = []string{refused() + "?token=SECRET123"}
	c := run(t, refused(), o, false)
	st := testkit.WaitStatus(t, c, 5*time.Second, "an attempt on the replica", func(st health.Status) bool {
		return st.Attempt == 2 && st.State == health.Backoff
	})
	assert.NotContains(t, st.Err.Error(), "SECRET123")
	assert.NotContains(t, st.Endpoint, "SECRET123")
	assert.Contains(t, st.Err.Error(), `handshake "`+st.Endpoint+`"`, "with replicas an error names its endpoint")
	assert.Contains(t, st.Endpoint, "token=xxxxx")
}
