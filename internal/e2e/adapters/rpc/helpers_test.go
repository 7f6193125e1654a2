package rpc_test

import (
	"context"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cenkalti/rpc2"
	"github.com/stretchr/testify/require"

	"github.com/redial-go/redial/adapters/tcp/rpc"
	"github.com/redial-go/redial/backoff"
	"github.com/redial-go/redial/health"
	"github.com/redial-go/redial/internal/testkit"
	"github.com/redial-go/redial/supervisor"
)

// wait bounds every wait for a state in these tests; slack is how much
// later than planned a timer may fire on a loaded machine running -race.
const (
	wait  = 5 * time.Second
	slack = 400 * time.Millisecond
)

// startRPCServer serves rpc2 on 127.0.0.1 until the test ends, with
// rpc.HeartbeatMethod, Server.Echo(s) = s and Server.CallBack(name),
// which returns the client's Client.Hello(name).
func startRPCServer(t *testing.T) string {
	srv := rpc2.NewServer()
	rpc.HandleHeartbeat(srv)
	srv.Handle("Server.Echo", func(_ *rpc2.Client, s string, reply *string) error {
		*reply = s
		return nil
	})
	srv.Handle("Server.CallBack", func(c *rpc2.Client, name string, reply *string) error {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		return c.CallWithContext(ctx, "Client.Hello", name, reply)
	})
	return testkit.Serve(t, func(c net.Conn) { srv.ServeConn(c) })
}

// hello is the client's handler the server calls back.
func hello(_ *rpc2.Client, name string, reply *string) error {
	*reply = "hello " + name
	return nil
}

// newRPC returns a Client with short heartbeats and backoff; change
// adjusts the options first.
func newRPC(t *testing.T, addr string, change func(*rpc.Options)) *rpc.Client {
	t.Helper()
	o := rpc.Options{
		Handlers:          map[string]any{"Client.Hello": hello},
		HeartbeatInterval: 100 * time.Millisecond,
		HeartbeatTimeout:  100 * time.Millisecond,
		Supervisor: supervisor.Options[*rpc2.Client]{
			Name:    "rpc",
			Backoff: backoff.Config{Strategy: backoff.Exponential, Base: 20 * time.Millisecond, Cap: 100 * time.Millisecond},
		},
	}
	if change != nil {
		change(&o)
	}
	r, err := rpc.New(addr, o)
	require.NoError(t, err)
	return r
}

// run starts r.Run until the test ends.
func run(t *testing.T, r *rpc.Client) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-r.Done() })
}

// until reads ch until a Status satisfies ok and returns it; it fails the
// test after wait, or when the channel closes first.
func until(t *testing.T, ch <-chan health.Status, what string, ok func(health.Status) bool) health.Status {
	t.Helper()
	return testkit.Until(t, ch, wait, what, ok)
}

func isState(s health.State) func(health.Status) bool {
	return func(st health.Status) bool { return st.State == s }
}

// errHas is an until condition: Err says every one of substr.
func errHas(substr ...string) func(health.Status) bool {
	return func(st health.Status) bool {
		if st.Err == nil {
			return false
		}
		for _, s := range substr {
			if !strings.Contains(st.Err.Error(), s) {
				return false
			}
		}
		return true
	}
}

// ctxWait is a context bounded by wait.
func ctxWait(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	t.Cleanup(cancel)
	return ctx
}

// stacksAt is a slog.Handler for a supervisor's Logger that takes every
// goroutine's stack when the supervisor logs a record: on its own
// goroutine, right after it closed a connection.
type stacksAt struct {
	mu  sync.Mutex
	got map[string][]string // by message
}

func newStacksAt() *stacksAt { return &stacksAt{got: map[string][]string{}} }

func (h *stacksAt) Enabled(context.Context, slog.Level) bool { return true }
func (h *stacksAt) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *stacksAt) WithGroup(string) slog.Handler            { return h }

func (h *stacksAt) Handle(_ context.Context, r slog.Record) error {
	buf := make([]byte, 1<<20)
	s := string(buf[:runtime.Stack(buf, true)])
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got[r.Message] = append(h.got[r.Message], s)
	return nil
}

// at returns the stacks taken at every record msg.
func (h *stacksAt) at(msg string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.got[msg]
}

// assertNoConnectionGoroutines checks that no goroutine a client session
// started is still at work in rpc2 (its read loop, a request being
// written); the test servers' own read loops are not the client's.
func assertNoConnectionGoroutines(t *testing.T, stacks string) {
	t.Helper()
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "adapters/tcp/rpc.(*session)") && strings.Contains(g, "rpc2.(*Client)") {
			t.Errorf("a goroutine of a closed connection is running:\n%s", g)
		}
	}
}
