package supervisor_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// oneEndpoint is fake with Endpoints of one name: what every adapter
// hands the supervisor for one target.
type oneEndpoint struct{ *fake }

func (o oneEndpoint) Endpoints() []string { return []string{"only"} }
func (o oneEndpoint) ConnectTo(ctx context.Context, i int) (*conn, error) {
	if i != 0 {
		panic("ConnectTo of one endpoint called with another")
	}
	return o.Connect(ctx)
}

// trace is what a program sees of one run: every Status, the history,
// the log and when each attempt started.
type trace struct {
	statuses []health.Status
	history  []health.Transition
	log      string
	starts   []time.Time
}

// script runs c's fake through two failures, a connection, a loss, a
// failure and a connection, in a bubble of its own (every bubble starts
// at the same instant, so two traces compare as they are).
func script(t *testing.T, wrap func(*fake) supervisor.Connector[*conn]) trace {
	var tr trace
	synctest.Test(t, func(t *testing.T) {
		f := &fake{results: []error{errRefused, errRefused, nil, errRefused}}
		var logs bytes.Buffer
		o := exponential(time.Second, time.Minute)
		o.FailoverSpread = 300 * time.Millisecond
		o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		r := start(t, wrap(f), o)
		ch, unsubscribe := r.Subscribe()
		defer unsubscribe()
		seen := func() {
			synctest.Wait()
			select {
			case st := <-ch:
				tr.statuses = append(tr.statuses, st)
			default:
			}
		}
		r.untilConnected(t)
		seen()
		f.last().broken <- errRefused
		seen()
		r.untilConnected(t)
		seen()
		require.NoError(t, r.stop())
		tr.history, tr.log = r.History(), logs.String()
		tr.starts, _, _, _ = f.snapshot()
	})
	return tr
}

// One endpoint is a list of one: a Connector whose Endpoints returns one
// name behaves exactly as a plain Connector (no Endpoint shown, the same
// logs, waits and rounds).
func TestOneEndpointIsAPlainConnector(t *testing.T) {
	plain := script(t, func(f *fake) supervisor.Connector[*conn] { return f })
	one := script(t, func(f *fake) supervisor.Connector[*conn] { return oneEndpoint{f} })
	require.Len(t, plain.starts, 5)
	assert.Equal(t, plain.starts, one.starts, "the same attempts at the same times")
	assert.Equal(t, plain.statuses, one.statuses)
	assert.Equal(t, plain.history, one.history)
	assert.Equal(t, plain.log, one.log)
	for _, st := range one.statuses {
		assert.Empty(t, st.Endpoint)
	}
}
