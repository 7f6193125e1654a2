package chaos

import (
	"fmt"
	"testing"

	"github.com/redial-go/redial/internal/testing/pgtest"
)

// restartable is a server that a fault stops and starts again on the same
// port.
type restartable interface {
	stop()
	start(t testing.TB)
}

// serverGroup is a server and the subjects that talk to it.
type serverGroup struct {
	name     string
	srv      restartable
	subjects []subject
}

func (in *injector) key(f plannedFault) string {
	switch f.kind {
	case faultServerRestart:
		return fmt.Sprintf("server %d", f.target)
	case faultPGRestart:
		return "postgres"
	}
	return fmt.Sprintf("proxy %d", f.target)
}

// apply applies fault f (number i) and returns what removes it; nil when
// it is over already (a PostgreSQL restart).
func (in *injector) apply(f plannedFault, i int) (undo func()) {
	in.applied[f.kind]++
	switch f.kind {
	case faultServerRestart:
		g := in.servers[f.target]
		begin(g.subjects)
		g.srv.stop()
		return func() { g.srv.start(in.t); end(g.subjects) }
	case faultPGRestart:
		begin(in.pg)
		mode := pgtest.Fast
		if f.immediate {
			mode = pgtest.Immediate
		}
		in.cluster.Restart(in.t, mode)
		in.helper.Reset() // its connections died with the server
		end(in.pg)
		return nil
	}
	s := in.subjects[f.target].base()
	p, name := s.proxy, fmt.Sprintf("f%d", i)
	s.window.begin()
	switch f.kind {
	case faultResetPeer:
		p.ResetPeer(in.t, name, 0)
		return func() { p.Remove(in.t, name); s.window.end() }
	case faultDisable:
		p.Disable()
		return func() { p.Enable(in.t); s.window.end() }
	}
	// A timeout toxic, in both directions, closes every connection it is
	// on: after param, or when it is removed (its Cleanup); it drops what
	// it holds, so it must never let a connection go on after dropping
	// data. Latency (toxics_test.go) and bandwidth 0 (toxitest.Stall) hold
	// back what the server sends and lose none of it; the client's side
	// passes, so that a client's close reaches the server at once.
	if f.kind == faultTimeout {
		attrs := map[string]any{"timeout": f.param.Milliseconds()}
		p.Add(in.t, name+"-up", "timeout", "upstream", attrs)
		p.Add(in.t, name+"-down", "timeout", "downstream", attrs)
		return func() {
			p.Remove(in.t, name+"-up")
			p.Remove(in.t, name+"-down")
			s.window.end()
		}
	}
	if f.kind == faultLatency {
		p.Add(in.t, name, latencyToxic, "downstream", map[string]any{"latency": f.param.Milliseconds()})
	} else {
		p.Stall(in.t, name, "downstream")
	}
	return func() {
		p.Remove(in.t, name)
		s.window.end()
	}
}

func begin(subjects []subject) {
	for _, s := range subjects {
		s.base().window.begin()
	}
}

func end(subjects []subject) {
	for _, s := range subjects {
		s.base().window.end()
	}
}
