package supervisor

import (
	"context"
	"slices"

	"github.com/redial-go/redial/internal/opterr"
)

// endpoints are a Connector's endpoints, fixed at construction: a
// Connector without Endpoints is one, which Connect reaches.
type endpoints[C comparable] struct {
	to    Endpoints[C] // nil: Connect
	names []string     // shown in Status and logs; nil with one endpoint
	m     *multi       // several endpoints' health (ejection.go); nil with one
}

// count returns the number of endpoints.
func (e *endpoints[C]) count() int { return max(len(e.names), 1) }

func endpointsOf[C comparable](c Connector[C], prefer bool) (*endpoints[C], error) {
	e, ok := c.(Endpoints[C])
	if !ok {
		return &endpoints[C]{}, nil
	}
	names := slices.Clone(e.Endpoints())
	switch len(names) {
	case 0:
		return nil, opterr.New("supervisor", "Connector", nil, "Endpoints() returned none")
	case 1:
		names = nil // one endpoint is the Name's: a plain Connector's Status
	}
	eps := &endpoints[C]{to: e, names: names}
	if names != nil {
		eps.m = &multi{prefer: prefer}
	}
	return eps, nil
}

// call is the callee's name of an attempt, for a panic's text.
func (e *endpoints[C]) call() string {
	if e.to != nil {
		return "ConnectTo"
	}
	return "Connect"
}

// connect makes one attempt on endpoint i.
func (e *endpoints[C]) connect(ctx context.Context, c Connector[C], i int) (C, error) {
	if e.to != nil {
		return e.to.ConnectTo(ctx, i)
	}
	return c.Connect(ctx)
}
