package postgres_test

import (
	"sync"
	"testing"

	"github.com/Shopify/toxiproxy/v2/toxics"

	"github.com/redial-go/redial/e2e/toxitest"
)

// deadFlowToxic is the type name of the toxic deadPath adds.
const deadFlowToxic = "redial_pg_dead_flow"

func init() { toxics.Register(deadFlowToxic, new(deadFlow)) }

// deadPath is a path that dies the way a dropped NAT entry or a vanished
// peer does, which toxitest.Stall (it delivers what it held once removed)
// does not model: while it is dead nothing passes and nothing is closed,
// and every connection that was open at any moment while it was dead
// stays dead for good, even once it heals; only connections made after
// the heal work. So a client must give up on its old connections (and on
// dials made during the outage) by itself.
type deadPath struct {
	key   string
	state *pathState
}

// newDeadPath puts a dead-flow toxic on both directions of proxy; the
// path is healthy until Kill.
func newDeadPath(t *testing.T, proxy *toxitest.Proxy) *deadPath {
	st := &pathState{died: make(chan struct{})}
	key := t.Name()
	paths.Store(key, st)
	t.Cleanup(func() { paths.Delete(key) })
	proxy.Add(t, "dead-up", deadFlowToxic, "upstream", map[string]any{"key": key})
	proxy.Add(t, "dead-down", deadFlowToxic, "downstream", map[string]any{"key": key})
	return &deadPath{key: key, state: st}
}

// Kill makes the path dead: every connection open now, or made before
// Heal, is dead for good.
func (d *deadPath) Kill() {
	d.state.mu.Lock()
	defer d.state.mu.Unlock()
	if !d.state.dead {
		d.state.dead = true
		close(d.state.died)
	}
}

// Heal makes the path work again for new connections.
func (d *deadPath) Heal() {
	d.state.mu.Lock()
	defer d.state.mu.Unlock()
	if d.state.dead {
		d.state.dead = false
		d.state.died = make(chan struct{})
	}
}

// paths maps a toxic's key to its path's state: toxiproxy makes the toxic
// from JSON, so the test reaches it by name.
var paths sync.Map

type pathState struct {
	mu   sync.Mutex
	dead bool
	died chan struct{} // closed when the path dies; a fresh one after Heal
}

// now returns whether the path is dead, and the channel closed when it
// next dies.
func (s *pathState) now() (bool, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead, s.died
}

// deadFlow is the toxic: one instance per direction, piping every
// connection's chunks of that direction.
type deadFlow struct {
	Key string `json:"key"`
}

// flowState survives the re-plumbing of a connection's toxics: a flow
// that died stays dead.
type flowState struct{ dead bool }

func (*deadFlow) NewState() any { return new(flowState) }

func (f *deadFlow) Pipe(stub *toxics.ToxicStub) {
	v, ok := paths.Load(f.Key)
	if !ok {
		new(toxics.NoopToxic).Pipe(stub)
		return
	}
	path, flow := v.(*pathState), stub.State.(*flowState)
	for {
		dead, died := path.now()
		if dead || flow.dead {
			flow.dead = true
			swallow(stub)
			return
		}
		select {
		case <-stub.Interrupt:
			return
		case <-died:
			continue
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			if dead, _ := path.now(); dead {
				continue // dropped: the flow is dead from now on
			}
			select {
			case stub.Output <- c:
			case <-stub.Interrupt:
				return
			}
		}
	}
}

// swallow drops everything of a dead flow, its close included, until the
// toxic is removed (the test's end).
func swallow(stub *toxics.ToxicStub) {
	input := stub.Input
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-input:
			if c == nil {
				input = nil
			}
		}
	}
}
