package supervisor_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/supervisor"
)

// trap is the fake with one callback that panics with value: where names
// it. Its Close counts the close before it panics.
type trap struct {
	*fake
	where string
	value any
}

func (p *trap) Connect(ctx context.Context) (*conn, error) {
	if p.where == "Connect" {
		panic(p.value)
	}
	return p.fake.Connect(ctx)
}

func (p *trap) Close(c *conn) error {
	err := p.fake.Close(c)
	if p.where == "Close" {
		panic(p.value)
	}
	return err
}

func (p *trap) Watch(ctx context.Context, c *conn) error {
	if p.where == "Watch" {
		panic(p.value)
	}
	return p.fake.Watch(ctx, c)
}

// trapTo is a trap with one endpoint, whose ConnectTo panics.
type trapTo struct{ *trap }

func (p trapTo) Endpoints() []string { return []string{"replica"} }
func (p trapTo) ConnectTo(ctx context.Context, _ int) (*conn, error) {
	if p.where == "ConnectTo" {
		panic(p.value)
	}
	return p.fake.Connect(ctx)
}

// panicky is a slog.Handler that panics with value on the record msg.
type panicky struct {
	msg   string
	value any
}

func (h panicky) Enabled(context.Context, slog.Level) bool { return true }
func (h panicky) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		panic(h.value)
	}
	return nil
}
func (h panicky) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h panicky) WithGroup(string) slog.Handler      { return h }

// boom is what the callbacks panic with: a pointer, so that the test can
// check Run panics again with the very same value.
type boom struct{ where string }

func TestACallbackPanicFailsTheSupervisorAndRunPanicsAgain(t *testing.T) {
	for _, tc := range []struct {
		name    string
		where   string // the trap's callback
		logMsg  string // or the Logger's record
		results []error
		lose    bool // break the connection once connected
	}{
		{name: "Connect", where: "Connect"},
		{name: "ConnectTo", where: "ConnectTo"},
		{name: "OnConnect", where: "OnConnect"},
		{name: "Watch", where: "Watch"},
		{name: "Close", where: "Close", lose: true},
		{name: "Classify a failed attempt", where: "Classify", results: []error{errRefused}},
		{name: "Classify a loss", where: "Classify", lose: true},
		{name: "Logger connecting", logMsg: "connecting"},
		{name: "Logger connected", logMsg: "connected"},
		{name: "Logger attempt failed", logMsg: "attempt failed", results: []error{errRefused}},
		{name: "Logger connection lost", logMsg: "connection lost", lose: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				value := &boom{tc.name}
				f := &fake{results: tc.results}
				tr := &trap{fake: f, where: tc.where, value: value}
				var c supervisor.Connector[*conn] = tr
				if tc.where == "ConnectTo" {
					c = trapTo{tr}
				}
				o := exponential(1e9, 60e9)
				if tc.where == "OnConnect" {
					o.OnConnect = func(context.Context, *conn) error { panic(value) }
				}
				if tc.where == "Classify" {
					o.Classify = func(error) error { panic(value) }
				}
				if tc.logMsg != "" {
					o.Logger = slog.New(panicky{tc.logMsg, value})
				}
				s, err := supervisor.New(c, o)
				require.NoError(t, err)
				ch, _ := s.Subscribe()
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				recovered := make(chan any, 1)
				go func() {
					defer func() { recovered <- recover() }()
					_ = s.Run(ctx)
				}()
				if tc.lose {
					synctest.Wait()
					require.Equal(t, health.Connected, s.Status().State)
					f.last().broken <- errors.New("reset")
				}
				assert.Same(t, value, <-recovered, "Run panics again with the callback's value")
				assertPanicked(t, s, ch, tc.where+tc.logMsg)
				_, _, open, _ := f.snapshot()
				assert.Zero(t, open, "the connection is closed")
				for c, n := range f.closes {
					assert.Equal(t, 1, n, "connection %d closed once", c.id)
				}
			})
		})
	}
}

// assertPanicked checks the end of a supervisor whose callback where
// panicked: Failed with ErrPanicked, the value and the stack; Done and
// the health channel ch closed; Conn, Do and Connections end at once.
func assertPanicked(t *testing.T, s *supervisor.Supervisor[*conn], ch <-chan health.Status, where string) {
	t.Helper()
	select {
	case <-s.Done():
	default:
		t.Error("Done is not closed")
	}
	st := s.Status()
	assert.Equal(t, health.Failed, st.State)
	assert.ErrorIs(t, st.Err, supervisor.ErrPanicked)
	err := s.Err()
	assert.ErrorIs(t, err, supervisor.ErrPanicked)
	assert.ErrorIs(t, err, supervisor.ErrFailed)
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), where)
		assert.Contains(t, err.Error(), "&{", "the value")
		assert.Contains(t, err.Error(), "goroutine", "the stack")
	}
	var last health.Status
	for st := range ch { // ends: the channel is closed
		last = st
	}
	assert.Equal(t, health.Failed, last.State)
	_, cerr := s.Conn(context.Background())
	assert.ErrorIs(t, cerr, supervisor.ErrPanicked)
	assert.ErrorIs(t, s.Do(context.Background(), func(context.Context, *conn) error { return nil }), supervisor.ErrFailed)
	for range s.Connections(context.Background()) {
		t.Error("Connections yielded after a panic")
	}
}

// The final record comes after the final Status: a Logger that panics on
// it makes Run panic once Done is closed, and the Status stays final.
func TestALoggerPanicOnTheFinalRecord(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		value := &boom{"stopped"}
		f := &fake{}
		o := exponential(1e9, 60e9)
		o.Logger = slog.New(panicky{"stopped", value})
		s, err := supervisor.New[*conn](f, o)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		recovered := make(chan any, 1)
		go func() {
			defer func() { recovered <- recover() }()
			_ = s.Run(ctx)
		}()
		synctest.Wait()
		cancel()
		assert.Same(t, value, <-recovered)
		<-s.Done()
		assert.Equal(t, health.Stopped, s.Status().State)
		_, _, open, _ := f.snapshot()
		assert.Zero(t, open)
	})
}
