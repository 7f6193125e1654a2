package gorilla_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/gorilla"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

// TestKilledReplicaFailsOverToAnother: three real servers (gorilla's,
// coder's, gorilla's); the one in use is killed; the supervisor plans its
// next attempt within FailoverSpread and is connected to another replica
// after one more handshake, with the subscription re-sent there.
func TestKilledReplicaFailsOverToAnother(t *testing.T) {
	servers := []*server{startServer(t, impls[0], nil), startServer(t, impls[1], nil), startServer(t, impls[0], nil)}
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
	byURL[back.Endpoint].waitSubscribe(t, 5*time.Second)      // OnConnect ran on the new replica
	logs.WaitFor(t, "endpoint="+back.Endpoint, 5*time.Second) // logged after the Status is published
}

func TestReplicasAreCheckedAndMasked(t *testing.T) {
	_, err := gorilla.New("ws://a/feed", gorilla.Options{Replicas: []string{"ws://b/feed", "http://c/feed?token=SECRET123"}})
	assert.EqualError(t, err, `gorilla: Replicas[1] "http://c/feed?token=xxxxx": scheme "http" is not ws or wss`)
	assert.ErrorIs(t, err, supervisor.ErrInvalidOptions)

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

	// What a replica's server echoes of its token is masked too.
	echo := closingServer(t, impls[1], 1011, "token SECRET456 revoked")
	o = testOptions()
	o.Replicas = []string{echo.url("/feed?token=SECRET456")}
	c = run(t, refused(), o, true)
	st = testkit.WaitStatus(t, c, 5*time.Second, "the replica's close", func(st health.Status) bool {
		return st.Connects == 1 && st.State == health.Backoff
	})
	assert.Equal(t, 1011, gorilla.CloseStatus(st.Err))
	assert.NotContains(t, st.Err.Error(), "SECRET456")
	assert.Contains(t, st.Err.Error(), "token xxxxx revoked")
}

// BeforeConnect gets the url of the endpoint the attempt goes to.
func TestBeforeConnectGetsEachReplica(t *testing.T) {
	a, b := startServer(t, impls[0], nil), startServer(t, impls[1], nil)
	seen := make(chan string, 16)
	o := testOptions()
	o.Replicas = []string{b.url("/feed")}
	o.Supervisor.FailoverSpread = time.Millisecond
	o.BeforeConnect = func(_ context.Context, u *url.URL, _ http.Header) error {
		seen <- u.Host
		return nil
	}
	c := run(t, a.url("/feed"), o, true)
	testkit.WaitStatus(t, c, 5*time.Second, "connected", connected(1))
	assert.Equal(t, a.addr, <-seen)
	a.stop()
	testkit.WaitStatus(t, c, 5*time.Second, "on the replica", connected(2))
	assert.Equal(t, b.addr, <-seen)
	require.NoError(t, c.stop())
}

// A BeforeConnect that breaks the url (another scheme) fails the attempt
// for good: no retry will mend it.
func TestBeforeConnectThatBreaksTheURLIsFinal(t *testing.T) {
	srv := startServer(t, impls[0], nil)
	o := testOptions()
	o.BeforeConnect = func(_ context.Context, u *url.URL, _ http.Header) error {
		u.Scheme = "http"
		u.RawQuery = "token=SECRET123"
		return nil
	}
	c := run(t, srv.url("/feed"), o, false)
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		t.Fatalf("still retrying: %v", c.Status().Err)
	}
	err := c.stop()
	assert.ErrorIs(t, err, supervisor.ErrFailed)
	assert.Equal(t, health.Failed, c.Status().State)
	assert.Equal(t, 1, c.Status().Attempt)
	assert.Contains(t, err.Error(), `connect: BeforeConnect: gorilla: url "http://`, "%v", err)
	assert.NotContains(t, err.Error(), "SECRET123")
	assert.Equal(t, int64(0), srv.handshakes.Load(), "never dialed")
}
