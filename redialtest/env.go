package redialtest

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/redial-go/redial/health"
)

// env is one case's server, the Proxy in front of it, and the log of its
// client.
type env struct {
	t    testing.TB
	h    Harness
	srv  Server
	p    *Proxy
	logs logBuffer
}

// address is a Server that is only an address: Harness.Target.
type address string

func (a address) Addr() string { return string(a) }

func newEnv(t testing.TB, h Harness) *env {
	t.Helper()
	var srv Server = address(h.Target)
	if h.Start != nil {
		srv = h.Start(t)
	}
	return &env{t: t, h: h, srv: srv, p: NewProxy(t, srv.Addr())}
}

// kill ends every connection abruptly and refuses new ones, as a killed
// server does, until serve.
func (e *env) kill() {
	e.p.Refuse()
	e.p.Kill()
}

// serve ends every fault, the server's refusal too.
func (e *env) serve() {
	e.p.Heal()
	if r, ok := e.srv.(Refuser); ok {
		r.Serve()
	}
}

// refuse makes the server refuse new attempts, retryably: its protocol's
// way when it is a Refuser (its text may echo), the Proxy's otherwise.
func (e *env) refuse() {
	if r, ok := e.srv.(Refuser); ok {
		r.Refuse(false)
		return
	}
	e.p.Refuse()
}

func (e *env) refuseForGood() { e.srv.(Refuser).Refuse(true) }

func (e *env) closeConns() { e.srv.(ConnCloser).CloseConns() }

// logBuffer is what the case's stock slog handler writes to.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitStatus returns the first Status on c's health channel that
// satisfies ok, failing t if none comes within d or the channel closes.
func waitStatus(t testing.TB, c Client, d time.Duration, what string, ok func(health.Status) bool) health.Status {
	t.Helper()
	ch, unsub := c.Subscribe()
	defer unsub()
	timer := time.NewTimer(d)
	defer timer.Stop()
	var last health.Status
	for {
		select {
		case st, open := <-ch:
			if !open {
				t.Fatalf("no %s: the health channel closed; last status %s, %d failures, err %v", what, last.State, last.ConsecutiveFailures, last.Err)
			}
			if ok(st) {
				return st
			}
			last = st
		case <-timer.C:
			t.Fatalf("no %s within %v; last status %s, %d failures, err %v", what, d, last.State, last.ConsecutiveFailures, last.Err)
		}
	}
}

// connected is a waitStatus condition: Connected, after n connects.
func connected(n uint64) func(health.Status) bool {
	return func(st health.Status) bool { return st.State == health.Connected && st.Connects >= n }
}
