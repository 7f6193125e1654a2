package supervisor_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// running is a Supervisor whose Run goroutine a test started.
type running struct {
	*supervisor.Supervisor[*conn]
	cancel context.CancelFunc
	done   chan error
}

func start(t *testing.T, c supervisor.Connector[*conn], o supervisor.Options[*conn]) *running {
	t.Helper()
	s, err := supervisor.New(c, o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	r := &running{Supervisor: s, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- s.Run(ctx) }()
	return r
}

// stop cancels Run and returns what it returned.
func (r *running) stop() error {
	r.cancel()
	return <-r.done
}

// fixed returns a Config whose delays a test can predict: Exponential.
func exponential(base, cap time.Duration) supervisor.Options[*conn] {
	return supervisor.Options[*conn]{Settings: supervisor.Settings{Name: "test", Backoff: backoffConfig(base, cap)}}
}

// untilConnected advances virtual time through Backoff until r is
// Connected. It must run inside a synctest bubble.
func (r *running) untilConnected(t *testing.T) {
	t.Helper()
	for range 1000 {
		synctest.Wait()
		st := r.Status()
		switch st.State {
		case health.Connected:
			return
		case health.Backoff:
			time.Sleep(time.Until(st.NextAttempt))
		default:
			t.Fatalf("waiting for connected, state is %v (%v)", st.State, st.Err)
		}
	}
	t.Fatal("not connected after 1000 attempts")
}
