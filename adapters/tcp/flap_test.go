package tcp_test

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

func TestFlappingServerBackoffNeverResets(t *testing.T) {
	srv := testkit.StartServer(t, testkit.Drop)
	base, cap, window := 20*time.Millisecond, 320*time.Millisecond, time.Second
	s := newTCP(t, srv.Addr, tcp.Options{
		Supervisor: supervisor.Options[net.Conn]{Backoff: testkit.Fast(base, cap)},
	})
	waits := testkit.RecordWaits(s)
	stop := testkit.Run(t, s)
	startProgram(t, s) // reads EOF at once and invalidates
	<-time.After(window)
	require.NoError(t, stop())

	accepts := int(srv.Accepts.Load())
	limit := testkit.MaxAttempts(base, cap, window)
	planned := waits()
	t.Logf("%d connections accepted in %v (backoff allows %d); planned waits %v", accepts, window, limit, planned)
	assert.LessOrEqual(t, accepts, limit)
	assert.GreaterOrEqual(t, accepts, 4, "the server flapped")
	testkit.AssertGrowing(t, planned, base)
}
