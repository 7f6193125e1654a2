package gorilla_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/e2e/toxitest"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testing/testkit"
)

func TestResetPeerReconnectsAndResubscribes(t *testing.T) {
	for _, writeOnly := range []bool{false, true} {
		name := map[bool]string{false: "program reads", true: "WriteOnly"}[writeOnly]
		t.Run(name, func(t *testing.T) {
			srv := startServer(t, nil)
			p := toxitest.New(t, srv.Addr)
			o := testOptions()
			o.WriteOnly = writeOnly
			o.PingInterval = 100 * time.Millisecond // reset_peer acts when data flows: the pong
			subscribeOnConnect(&o)
			c := run(t, "ws://"+p.Addr()+"/feed", o, !writeOnly)
			testkit.WaitStatus(t, c, 5*time.Second, "first connection", testkit.Connected(1))
			srv.WaitSubscribe(t, 5*time.Second)

			p.ResetPeer(t, "rst", 0)
			st := testkit.WaitStatus(t, c, 5*time.Second, "the reset", func(st health.Status) bool { return st.State != health.Connected && st.Err != nil })
			t.Logf("after reset_peer: %s, %v", st.State, st.Err)
			p.Remove(t, "rst")

			testkit.WaitStatus(t, c, 5*time.Second, "reconnection", testkit.Connected(2))
			assert.Equal(t, "subscribe prices", srv.WaitSubscribe(t, 5*time.Second))
			require.NoError(t, c.Stop())
		})
	}
}
